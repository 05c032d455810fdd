"""File → Open Model…: opened in a thread behind a progress dialog with a Cancel."""

from __future__ import annotations

import pytest


@pytest.fixture
def closes_the_model_view(window):
    """The model view and the loader's thread (a child of the window, finished) go with the
    test: the window is then as a new one and is kept for the next test (window_reuse.py)."""
    yield
    for name in ("model_view", "model_loader"):
        view = window.__dict__.pop(name, None)
        if name == "model_view" and view is not None:
            view.close()
            view.deleteLater()
        elif view is not None:
            view.wait()
            view.deleteLater()


def test_a_folder_opens_in_a_thread_and_shows_the_model_view(
    window,
    qtbot,
    bert_folder,
    closes_the_model_view,
):
    from attn_explorer.ui.lens.open_model import open_in_background

    open_in_background(window, str(bert_folder))
    qtbot.waitUntil(lambda: "model_view" in window.__dict__, timeout=60_000)
    view = window.model_view
    qtbot.waitUntil(lambda: view.model_run is not None, timeout=60_000)
    assert view.model_grid.layers == 2 and view.windowTitle().startswith("Model view: ")


def test_cancel_drops_the_model_when_it_arrives(
    window,
    qtbot,
    bert_folder,
    closes_the_model_view,
):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QProgressDialog, QPushButton

    from attn_explorer.ui.lens.open_model import open_in_background

    open_in_background(window, str(bert_folder))
    dialog = window.findChild(QProgressDialog)
    assert dialog.labelText().startswith("Opening ")
    qtbot.mouseClick(dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.model_loader.isFinished(), timeout=60_000)
    qtbot.wait(50)
    assert "model_view" not in window.__dict__
    assert window.statusBar().currentMessage().endswith("was cancelled.")


def test_a_refusal_is_said_in_a_message_box(
    window, qtbot, tmp_path, monkeypatch, closes_the_model_view
):
    from attn_explorer.ui.lens import open_model

    said = []
    monkeypatch.setattr(
        open_model.QMessageBox, "warning", lambda parent, title, text: said.append((title, text))
    )
    open_model.open_in_background(window, str(tmp_path))
    qtbot.waitUntil(lambda: bool(said), timeout=30_000)
    assert said[0][0] == "Cannot open the model" and "holds no model" in said[0][1]


def test_a_download_shows_its_bytes_and_cancel_stops_it(
    window, qtbot, gpt2_folder, tmp_path, monkeypatch, closes_the_model_view
):
    """The dialog counts the fake hub's bytes; Cancel stops the transfer in its thread, which
    ends (joined), and no model view opens."""
    from attn_explorer.lens.download import CancelledError

    hub, dialog = _downloading(window, gpt2_folder, tmp_path, monkeypatch, 80_000_000)
    qtbot.waitUntil(lambda: "MB of 80.0 MB" in dialog.labelText(), timeout=30_000)
    qtbot.waitUntil(lambda: dialog.value() > 2000, timeout=30_000)
    label = dialog.labelText()
    assert label.startswith("Downloading someone/tiny-gpt2: ") and label.endswith(" MB of 80.0 MB")
    assert 80_000_000 // 1024 < dialog.maximum() < 81_000_000 // 1024  # kB of every file
    _press_cancel(qtbot, dialog)
    job = window.model_loader
    qtbot.waitUntil(job.isFinished, timeout=30_000)
    qtbot.wait(50)
    assert isinstance(hub.stopped_by[0], CancelledError)
    assert hub.chunks < 80
    assert "model_view" not in window.__dict__
    assert window.statusBar().currentMessage() == "Opening someone/tiny-gpt2 was cancelled."


def test_the_download_reads_in_vietnamese(
    window, qtbot, gpt2_folder, tmp_path, monkeypatch, closes_the_model_view, vietnamese
):
    _hub, dialog = _downloading(window, gpt2_folder, tmp_path, monkeypatch, 30_000_000)
    qtbot.waitUntil(lambda: "30.0 MB" in dialog.labelText(), timeout=30_000)
    assert dialog.labelText().startswith("Đang tải someone/tiny-gpt2 xuống: ")
    _press_cancel(qtbot, dialog)
    qtbot.waitUntil(window.model_loader.isFinished, timeout=30_000)


def test_the_command_lines_hub_name_downloads_behind_the_dialog_and_waits(
    window, qtbot, gpt2_folder, tmp_path, monkeypatch, closes_the_model_view
):
    """`--model NAME` (open_model) downloads a hub name not in the cache with the same dialog,
    then shows its model view, drawn."""
    from attn_explorer.lens import download
    from attn_explorer.ui.lens.open_model import open_model
    from tests.lens.fake_hub import FakeHub

    hub = FakeHub(gpt2_folder, tmp_path / "snapshot").install(monkeypatch)
    monkeypatch.setattr(download, "cached", lambda name: None)
    view = open_model(window, "someone/tiny-gpt2", "the cat sat", "cpu", wait=True)
    assert hub.chunks > 0 and view.loaded.name == "someone/tiny-gpt2"
    assert view.model_run.tokens == ("the", "␣cat", "␣sat")


def test_a_pseudo_translated_download_has_no_english_outside_the_brackets(
    window, qtbot, gpt2_folder, tmp_path, monkeypatch, closes_the_model_view, pseudo
):
    _hub, dialog = _downloading(window, gpt2_folder, tmp_path, monkeypatch, 30_000_000)
    qtbot.waitUntil(lambda: "30.0" in dialog.labelText(), timeout=30_000)
    label = dialog.labelText()
    assert label.startswith("⟪") and label.endswith("⟫")
    _press_cancel(qtbot, dialog)
    qtbot.waitUntil(window.model_loader.isFinished, timeout=30_000)
    assert window.statusBar().currentMessage().startswith("⟪")


def _press_cancel(qtbot, dialog) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QPushButton

    qtbot.mouseClick(dialog.findChild(QPushButton), Qt.MouseButton.LeftButton)


def _downloading(window, gpt2_folder, tmp_path, monkeypatch, size: int):
    """Open Model by Name on a fake hub whose weights file has `size` bytes, sent in chunks
    0.02 s apart: the hub and the download's progress dialog."""
    from PySide6.QtWidgets import QProgressDialog

    from attn_explorer.ui.lens.open_model import open_in_background
    from tests.lens.fake_hub import FakeHub

    hub = FakeHub(gpt2_folder, tmp_path / "snapshot", {"model.safetensors": size}, 0.02)
    hub.install(monkeypatch)
    open_in_background(window, "someone/tiny-gpt2")
    return hub, window.findChild(QProgressDialog)
