"""What the File menu needs of the window it serves, so that it need not import the window.

The main window builds its File menu (`FileActions`); were the menu to import the window's
class to name its host, the two modules would import each other. `FileHost` names the
members the menu reads and calls instead, and the window has them all.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtWidgets import QMenuBar

from attn_explorer.engine import Problem, Trace
from attn_explorer.model.state import ExplorerState, ViewState
from attn_explorer.ui.editing.document import Document
from attn_explorer.ui.export.spec import FigureSpec


class FileHost(Protocol):
    """The window as the File menu uses it.

    The host is also the Qt parent of the menu's actions and dialogs, and `commit_typed_edits`
    looks for its focused children: it is a QMainWindow, of which only the methods the menu
    calls are named here.
    """

    doc: Document  # the settings being edited, with their undo stack
    trace: Trace | None  # the computation on screen; None before the first arrives
    problems: list[Problem]  # why the current settings cannot be computed, first shown
    stale_reason: str | None  # why the picture on screen is not of the current settings
    compare: Any  # ui.compare.tools.CompareTools: A pinned, its comparison and figure

    def current_state(self) -> ExplorerState:
        """The settings and the view, as a session saves them."""
        ...

    def current_figure(self) -> tuple[FigureSpec, str]:
        """The figure of what is on screen, and its description for the export dialog."""
        ...

    def apply_view(self, view: ViewState) -> None:
        """Show the tab, stage, head and query an opened session was saved with."""
        ...

    def notify(self, text: str) -> None:
        """Say in the status bar that something was done."""
        ...

    def _status(self, text: str, error: bool = False) -> None:
        """Put `text` in the status bar, red where `error`."""
        ...

    # QMainWindow's own
    def menuBar(self) -> QMenuBar: ...

    def setWindowTitle(self, title: str) -> None: ...

    def setWindowModified(self, modified: bool) -> None: ...

    def setEnabled(self, enabled: bool) -> None: ...

    def devicePixelRatioF(self) -> float: ...
