"""File → Open Model…: a folder (the save_pretrained layout) or a hub name, opened through the
lens, and the model view shown beside the lab."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMenu, QMessageBox

from attn_explorer.lens.errors import LensError
from attn_explorer.ui.i18n import tr as _tr

# The main window (ui/main_window.py), not imported: it builds the menus that import this.
LabWindow = Any

if TYPE_CHECKING:
    from attn_explorer.ui.lens.model_window import ModelWindow

DEFAULT_TEXT = "Your journey starts with one step"


def open_model(
    window: LabWindow, source: str, text: str | None = None, device: str | None = None
) -> ModelWindow:
    """Open `source` and show its model view; LensError with the sentence if it cannot be."""
    from attn_explorer.lens.loading import load
    from attn_explorer.ui.lens.model_window import ModelWindow

    QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
    try:
        loaded = load(source, device)
    finally:
        QApplication.restoreOverrideCursor()
    view = ModelWindow(window, loaded, text or DEFAULT_TEXT)
    window.model_view = view  # kept: a window without a reference would be collected
    view.show()
    return view


def _ask_and_open(window: LabWindow, by_name: bool) -> None:
    if by_name:
        source, ok = QInputDialog.getText(
            window,
            _tr("Open Model by Name"),
            _tr("A hub name such as gpt2 or bert-base-uncased (downloaded once):"),
        )
        if not ok or not source.strip():
            return
    else:
        source = QFileDialog.getExistingDirectory(window, _tr("Open Model Folder"))
        if not source:
            return
    try:
        open_model(window, source.strip())
    except LensError as error:
        QMessageBox.warning(window, _tr("Cannot open the model"), str(error))


def add_model_actions(window: LabWindow, file_menu: QMenu) -> list[QAction]:
    """The File menu's two ways to open a model, before its Quit."""
    folder = QAction(_tr("Open &Model Folder…"), window)
    folder.triggered.connect(lambda: _ask_and_open(window, by_name=False))
    name = QAction(_tr("Open Model &by Name…"), window)
    name.triggered.connect(lambda: _ask_and_open(window, by_name=True))
    file_menu.addActions([folder, name])
    file_menu.addSeparator()
    return [folder, name]
