"""A push button that gives up its long text for a short one where the window is narrow."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QPushButton, QSizePolicy, QWidget


class ShrinkButton(QPushButton):
    """A push button that shows its whole text where it has the room, and a short one (a
    symbol, a word) where the window is narrow: its least width is the short text's, so
    a row of buttons at a large text size does not make the window wider than the screen.
    The whole text stays in the tooltip's first line."""

    def __init__(self, text: str, short: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self._texts = (text, short)
        # (A push button's usual policy never gives it less than its whole text; one wider
        # than its whole text would show its short one with room to spare.)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)

    def set_texts(self, text: str, short: str) -> None:
        # Unchanged texts ask for no new layout: an updateGeometry() re-lays out every
        # widget up to the window, and the tab widget on the way repaints its whole page
        # (the pin button's texts are set again on every new trace).
        if (text, short) == self._texts:
            return
        self._texts = (text, short)
        self._fit()
        self.updateGeometry()

    def _width_for(self, text: str) -> int:
        extra = QPushButton.sizeHint(self).width() - self.fontMetrics().horizontalAdvance(
            self.text()
        )
        return self.fontMetrics().horizontalAdvance(text) + extra

    def sizeHint(self) -> QSize:
        return QSize(self._width_for(self._texts[0]), QPushButton.sizeHint(self).height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self._width_for(self._texts[1]), QPushButton.sizeHint(self).height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()

    def _fit(self) -> None:
        text, short = self._texts
        shown = text if self._width_for(text) <= self.width() else short
        if shown != self.text():
            self.setText(shown)
