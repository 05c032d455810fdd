"""Head importance from the model view: measured in a thread with progress and cancel, drawn as
a grid and sorted bars, saved as the lens computes it (CSV, JSON) and as a figure."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from tests.lens.conftest import TEXT


@pytest.fixture
def measured(model_view, qtbot):
    from attn_explorer.ui.lens.importance_window import open_importance

    shown = open_importance(model_view)
    qtbot.waitUntil(lambda: shown.result is not None, timeout=60_000)
    return shown


def test_the_model_view_has_a_button_that_measures_every_head(model_view, qtbot):
    from PySide6.QtWidgets import QPushButton

    button = next(
        b for b in model_view.findChildren(QPushButton) if b.text() == "Head &Importance…"
    )
    button.click()
    shown = model_view.importance_window
    assert shown.isVisible() and not shown.again.isEnabled()
    qtbot.waitUntil(lambda: shown.result is not None, timeout=60_000)
    assert shown.progress.value() == shown.progress.maximum() == 12
    assert shown.job is None and shown.again.isEnabled() and shown.save_data.isEnabled()


def test_the_window_shows_what_the_lens_measures(measured):
    from attn_explorer.lens.importance import headline, importance

    direct = importance(measured.view.loaded, TEXT)
    np.testing.assert_allclose(measured.result.primary, direct.primary, rtol=1e-5, atol=1e-7)
    assert measured.best.text() == headline(direct)
    assert measured.words.text().startswith("Each head switched off alone")
    assert "next-token distribution" in measured.words.text()
    assert measured.grid_plot.getAxis("top")._tickLevels[0][-1][1] == "H4"


def test_data_and_figure_are_saved(measured, tmp_path):
    rows = list(csv.reader(measured.write_data(tmp_path / "i.csv").open(encoding="utf-8")))
    layer, head = np.unravel_index(np.argmax(measured.result.primary), (3, 4))
    assert rows[0][:2] == ["layer", "head"] and rows[1][:2] == [str(layer + 1), str(head + 1)]
    assert len(rows) == 13
    data = json.loads(measured.write_data(tmp_path / "i.json").read_text(encoding="utf-8"))
    assert data["measure"] == "next-token" and len(data["kl"]) == 3
    png = measured.write_figure(tmp_path / "i.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert measured.write_figure(tmp_path / "i.svg").read_text(encoding="utf-8").count("L1") >= 1


def test_cancel_stops_the_thread_and_says_so(model_view, monkeypatch):
    import attn_explorer.lens.importance as imp
    from attn_explorer.ui.lens.importance_window import open_importance

    monkeypatch.setattr(imp, "BATCH_BYTES", 1)  # twelve passes: time to cancel between
    shown = open_importance(model_view)
    shown.stop()
    assert shown.job is None and shown.again.isEnabled()
    assert shown.words.text() == "Measuring the heads was cancelled."
    assert shown.result is None and not shown.save_data.isEnabled()


def test_closing_the_model_view_joins_the_measurement(model_view):
    from attn_explorer.ui.lens.importance_window import open_importance

    shown = open_importance(model_view)
    job = shown.job
    model_view.close()
    assert shown.job is None and job.isFinished() and not shown.isVisible()


def test_a_pseudo_translated_window_shows_no_bare_english(measured, pseudo):
    measured.show_result(measured.result)
    for text in (measured.words.text(), measured.best.text()):
        assert text.startswith("⟪") and text.endswith("⟫")


def test_a_vietnamese_learner_reads_the_headline_with_a_decimal_point(measured, vietnamese):
    measured.show_result(measured.result)
    layer, head, value, _ = measured.result.ranking()[0]
    assert measured.best.text().startswith(
        f"Quan trọng nhất: tầng {layer + 1}, đầu {head + 1} "
        f"(trung bình độ phân kỳ KL (nats): {value:.4f}; "
    )
    assert measured.words.text().startswith("Tắt riêng từng đầu (đầu ra của nó thay bằng số 0)")
