"""The font formulas are written in and the fixed-height panel that shows them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QApplication, QFrame, QLabel, QScrollArea, QWidget

from attn_explorer.ui.text_size import text_size


def formula_font(point_size: float = 10.5) -> QFont:
    """The font formulas and their numbers are written in: the application's own.

    Not a monospace font: the notation puts a combining tilde on ω (ω̃, the scaled scores),
    and DejaVu Sans Mono, the usual monospace font on Linux, draws that tilde over the next
    character instead ("ω[̃2,1]"); the default monospace font of other systems may lack ω
    altogether, and a fallback font for ω cannot carry another font's tilde. Interface
    fonts place combining marks, and their digits share one width, so a number's width
    does not jump as its digits change under the mouse.
    """
    font = QFont(QApplication.font())
    font.setPointSizeF(point_size)
    return font


class FormulaText(QScrollArea):
    """A panel of formulas with a fixed height of `lines` lines; longer text scrolls.

    Fixed, because the text changes on every hover: a panel that grew with it would shrink
    the matrices above it and move the cell under the mouse.
    """

    def __init__(
        self, text: str = "", lines: int = 4, parent: QWidget | None = None, least: int = 0
    ) -> None:
        """`least` lines (if fewer than `lines`): where `fit_to` says room is short."""
        super().__init__(parent)
        self.label = QLabel(text)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.label.setStyleSheet("background: #fafafa; padding: 4px;")
        self.setWidget(self.label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setStyleSheet("QScrollArea { background: #fafafa; border-top: 1px solid #ddd; }")
        self._lines = self._most = lines
        self._least = min(least, lines) if least else lines
        self._heights: dict[tuple[str, int], int] = {}
        self._size_to_text()
        text_size.changed.connect(self._size_to_text)

    def _height_for(self, lines: int) -> int:
        """As tall as the label is with `lines` lines, its padding included (a sum guessed
        from the line spacing can leave the last line half under a scroll bar)."""
        key = (self.label.font().key(), lines)
        if key not in self._heights:
            text = self.label.text()
            self.label.setText("\n".join(["Xg"] * lines))
            self._heights[key] = self.label.sizeHint().height() + 2 * self.frameWidth()
            self.label.setText(text)
        return self._heights[key]

    def _size_to_text(self) -> None:
        self.label.setFont(formula_font(text_size.points(10.5)))
        self.setFixedHeight(self._height_for(self._lines))

    def fit_to(self, room: int) -> None:
        """As many lines as fit `room` pixels, from `least` to `lines`. Called when the
        window is resized or the text size changes, never on a new text."""
        lines = self._most
        while lines > self._least and self._height_for(lines) > room:
            lines -= 1
        if lines != self._lines:
            self._lines = lines
            self._size_to_text()

    def text(self) -> str:
        return self.label.text()

    def setText(self, text: str) -> None:
        if text != self.label.text():
            self.label.setText(text)
            self.verticalScrollBar().setValue(0)
