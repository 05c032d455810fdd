"""File → Open Model…: opened in a thread behind a progress dialog with a Cancel."""

from __future__ import annotations

import pytest


@pytest.fixture
def closes_the_model_view(window):
    yield
    for name in ("model_view", "model_loader"):
        view = window.__dict__.pop(name, None)
        if name == "model_view" and view is not None:
            view.close()
            view.deleteLater()
        elif view is not None:
            view.wait()


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
