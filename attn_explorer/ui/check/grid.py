"""The grid of "Check my numbers": one array's cells, labelled by tokens, where the learner
types or pastes their numbers, and where each cell's verdict is drawn.

A verdict is a colour and a symbol (✓ ↳ ✗ ·, from `text.check_words`), so the grid reads
without colour; the cell's text stays what the learner typed. A pasted block (a spreadsheet's
cells, a notebook's `tensor([[…]])`) fills the grid from the current cell, or from the first
cell when it is the whole array.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QKeySequence, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from attn_explorer.text.check_words import VERDICT_SYMBOLS

VERDICT_ROLE = Qt.ItemDataRole.UserRole + 1  # "right", "follows", "wrong", "missing", "bad"
# Light backgrounds that black text reads on; the symbol carries the verdict without them.
COLOURS = {
    "right": "#d8f0d8",
    "follows": "#fff1c4",
    "wrong": "#f7c9cf",
    "missing": "#eeeeee",
    "bad": "#f7c9cf",
}
SYMBOLS = {**VERDICT_SYMBOLS, "bad": "?"}


def _numbered(index: int, label: str) -> str:
    """ "2 am": a token with its number, as the check's sentences count; a dimension's label
    is its number already."""
    number = str(index + 1)
    return number if label in ("", number) else f"{number} {label}"


class _VerdictDelegate(QStyledItemDelegate):
    """Draws the cell as usual, then its verdict's symbol at its right edge."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:  # type: ignore[override]
        super().paint(painter, option, index)
        verdict = index.data(VERDICT_ROLE)
        if not verdict:
            return
        painter.save()
        rect = QRect(option.rect).adjusted(2, 0, -4, 0)
        painter.setPen(QColor("#000000"))
        painter.drawText(
            rect, int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter), SYMBOLS[verdict]
        )
        painter.restore()


class _Cell(QTableWidgetItem):
    """A grid cell whose tooltip is written when it is asked for: the sentences of a whole
    pasted array, each with its derivation, would take seconds to write at once."""

    def __init__(self, text: str = "") -> None:
        super().__init__(text)
        self.tip: Callable[[], str] | None = None

    def data(self, role: int) -> object:  # type: ignore[override]
        if role == Qt.ItemDataRole.ToolTipRole and self.tip is not None:
            return self.tip()
        return super().data(role)


class CheckGrid(QTableWidget):
    """One array's grid: `texts()` reads what is typed, `set_texts` puts it back, `mark`
    draws verdicts. Ctrl+V hands the clipboard's text to whoever reads it (`pasted`)."""

    pasted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setItemDelegate(_VerdictDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.horizontalHeader().setDefaultSectionSize(84)

    def set_shape(self, rows: tuple[str, ...], cols: tuple[str, ...]) -> None:
        self.setRowCount(len(rows))
        self.setColumnCount(len(cols))
        self.setVerticalHeaderLabels([_numbered(r, label) for r, label in enumerate(rows)])
        self.setHorizontalHeaderLabels([_numbered(c, label) for c, label in enumerate(cols)])
        for r in range(len(rows)):
            for c in range(len(cols)):
                if self.item(r, c) is None:
                    self.setItem(r, c, _Cell())

    def texts(self) -> list[list[str]]:
        return [
            [self.item(r, c).text() for c in range(self.columnCount())]
            for r in range(self.rowCount())
        ]

    def set_texts(self, texts: list[list[str]]) -> None:
        """Put `texts` back at the top left, as far as the grid reaches."""
        for r, row in enumerate(texts[: self.rowCount()]):
            for c, text in enumerate(row[: self.columnCount()]):
                self.item(r, c).setText(text)

    def clear_marks(self) -> None:
        for r in range(self.rowCount()):
            for c in range(self.columnCount()):
                item = self.item(r, c)
                item.setData(VERDICT_ROLE, None)
                item.setBackground(QBrush())
                item.tip = None

    def mark(self, row: int, col: int, verdict: str, tip: Callable[[], str]) -> None:
        """Draw `verdict` on a cell; `tip` writes its tooltip when it is shown."""
        item = self.item(row, col)
        item.setData(VERDICT_ROLE, verdict)
        item.setBackground(QBrush(QColor(COLOURS[verdict])))
        item.tip = tip

    def paste_block(self, cells: list[list[str]]) -> None:
        """Fill from the current cell; a block the size of the whole grid fills it from the
        first cell wherever the cursor is. What reaches past the grid is left out."""
        whole = (
            len(cells) == self.rowCount() and max(map(len, cells), default=0) == self.columnCount()
        )
        top = 0 if whole or self.currentRow() < 0 else self.currentRow()
        left = 0 if whole or self.currentColumn() < 0 else self.currentColumn()
        for r, row in enumerate(cells):
            for c, text in enumerate(row):
                if top + r < self.rowCount() and left + c < self.columnCount():
                    self.item(top + r, left + c).setText(text)

    def keyPressEvent(self, event) -> None:  # type: ignore[override]
        if event.matches(QKeySequence.StandardKey.Paste):
            self.pasted.emit(QGuiApplication.clipboard().text())
            return
        if event.matches(QKeySequence.StandardKey.Delete) or event.key() == Qt.Key.Key_Backspace:
            for item in self.selectedItems():
                item.setText("")
            return
        super().keyPressEvent(event)
