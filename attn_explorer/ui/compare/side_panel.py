"""What the two panels beside the matrices share while comparing (A, B and B − A; the heads on
and off): their width bounds, their column and its bold title."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class SidePanel(QWidget):
    """A narrow column with a word-wrapped title on top; the panels add the rest under it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Narrow where the window is (a 1024-pixel projector): its buttons may be narrower
        # than their texts rather than widen the window past the screen.
        self.setMinimumWidth(130)
        self.setMaximumWidth(260)
        self.column = QVBoxLayout(self)
        self.column.setContentsMargins(4, 0, 0, 0)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.column.addWidget(self.title)
