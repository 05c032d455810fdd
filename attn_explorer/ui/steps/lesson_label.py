"""The loaded example's lesson under a stage of the step-through."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QLabel


class LessonLabel(QLabel):
    """The example's lesson under a stage: as tall as `fit_height` says, and no part of the
    window's least size, so that a large text size still fits the window on a small screen:
    the step-through gives it the room the matrices and the panel leave, or none."""

    def __init__(self) -> None:
        super().__init__()
        self._height = 0

    def wrapped_height(self, width: int) -> int:
        """Its height at `width` with the text it holds (wrapped or not)."""
        if self.wordWrap():
            return super().heightForWidth(width)
        return super().sizeHint().height()

    def fit_height(self, height: int) -> None:
        if height != self._height:
            self._height = height
            self.setMaximumHeight(height)
            self.updateGeometry()

    def hasHeightForWidth(self) -> bool:  # the height is the one fitted, not the text's
        return False

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._height)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, 0)
