"""File → Export while A is pinned: the figure of A, B and B − A offered beside the figure of
what is on screen, and the data of A, B and B − A beside every array of B; the same files the
Compare menu and `export --compare` write (io/compare_export.py, ui/compare/figure.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from attn_explorer.engine import compute, preset
from attn_explorer.engine.compare import compare
from attn_explorer.ui.export import export_actions

MHA = preset("mha").config


@pytest.fixture
def pinned(window, wait_settled):
    window.load_preset("mha")
    wait_settled(window)
    window.compare.pin()
    window.compare.heads.switch(2, False)
    wait_settled(window)
    return window


def _run_dialog(window, monkeypatch, act):
    from attn_explorer.ui.export.dialogs import ExportFigureDialog

    seen = {}

    def user(dialog):  # what a user does in the dialog, instead of its modal loop
        seen["dialog"] = dialog
        act(dialog)
        return dialog.result()

    monkeypatch.setattr(ExportFigureDialog, "exec", user)
    window.files.export_figure()
    return seen["dialog"]


def test_without_a_pin_the_dialog_offers_the_figure_on_screen_only(window, monkeypatch):
    dialog = _run_dialog(window, monkeypatch, lambda d: d.reject())
    assert dialog.figure_box is None and dialog.chosen_figure() == 0


def test_the_comparison_figure_is_offered_and_written(pinned, tmp_path, monkeypatch, dialogs):
    from tests.cli.conftest import svg_texts

    def act(dialog):
        assert dialog.figure_box.count() == 2
        assert dialog.figure_box.itemText(1).startswith("A, B and B − A: ")
        dialog.figure_box.setCurrentIndex(1)
        assert (dialog.width.value(), dialog.height.value()) == (1500, 640)
        assert "-compare-" in dialog.path.text()
        dialog.format.setCurrentIndex(dialog.format.findData("svg"))
        dialog.path.setText(str(tmp_path / "cmp.svg"))
        dialog.accept()

    dialog = _run_dialog(pinned, monkeypatch, act)
    assert dialog.result() == dialog.DialogCode.Accepted and dialogs["critical"] == []
    texts = svg_texts(tmp_path / "cmp.svg")
    assert "B changes ablate (none → 2)." in texts
    # the same figure the Compare menu writes
    menu = svg_texts(pinned.compare.export_figure(tmp_path / "menu.svg"))
    assert texts == menu


def test_choosing_the_screen_figure_again_restores_its_size(pinned, monkeypatch):
    def act(dialog):
        dialog.figure_box.setCurrentIndex(1)
        dialog.figure_box.setCurrentIndex(0)
        dialog.reject()

    dialog = _run_dialog(pinned, monkeypatch, act)
    spec, _ = pinned.current_figure()
    assert (dialog.width.value(), dialog.height.value()) == spec.default_size(pinned.trace)


@pytest.mark.parametrize("fmt", ["npz", "json"])
def test_export_data_offers_a_b_and_b_minus_a(pinned, tmp_path, monkeypatch, dialogs, fmt):
    offered = {}

    def save_dialog(_parent, _title, _start, filters, *_rest):
        offered["filters"] = filters.split(";;")
        return str(tmp_path / "both"), export_actions._tr(export_actions.COMPARE_FILTERS[fmt])

    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName", save_dialog)
    pinned.files.export_data()
    assert offered["filters"][-2:] == [
        "NumPy archive of A, B and B − A (*.npz)",
        "JSON of A, B and B − A (*.json)",
    ]
    from dataclasses import replace

    expected = compare(compute(MHA), compute(replace(MHA, ablate=(2,))))
    path = tmp_path / f"both.{fmt}"
    if fmt == "npz":
        with np.load(path) as data:
            np.testing.assert_allclose(data["b_minus_a.context"], expected["context"].diff)
            np.testing.assert_array_equal(data["a.context"], expected.a.context)
    else:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["settings_differing"] == list(expected.settings)
        np.testing.assert_allclose(
            data["arrays"]["context"]["b_minus_a"], expected["context"].diff, atol=1e-6
        )
    assert dialogs["critical"] == []


def test_without_a_pin_export_data_offers_no_comparison(window, tmp_path, monkeypatch):
    offered = {}

    def save_dialog(_parent, _title, _start, filters, *_rest):
        offered["filters"] = filters
        return "", ""

    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName", save_dialog)
    window.files.export_data()
    assert "B − A" not in offered["filters"]


def test_vietnamese_offers_are_translated(vietnamese, pinned, monkeypatch):
    offered = {}

    def save_dialog(_parent, _title, _start, filters, *_rest):
        offered["filters"] = filters.split(";;")
        return "", ""

    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName", save_dialog)
    pinned.files.export_data()
    assert offered["filters"][-1] == "JSON gồm A, B và B − A (*.json)"
    assert pinned.compare.figure_what().startswith("A, B và B − A: ")
