"""A token as a label, and a title that shrinks, then cuts, to the room it is given.

The step-through and the exported figures use these for their own titles and labels too,
so that every matrix names its tokens and shortens its titles the same way.
"""

from __future__ import annotations

import re

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget

from attn_explorer.text.tokens import label_token


def display_token(token: str, limit: int = 14) -> str:
    """A token as a tick label: control characters made visible, names longer than `limit`
    characters shortened."""
    shown = label_token(token)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


class ShrinkingLabel(pg.LabelItem):
    """A label that does not force its text width on the layout: with many matrices side by
    side a long title is written smaller, down to `LEAST_SCALE`, then cut, instead of pushing
    the last matrix off the figure. Cut at its own edge, or a stage's "Query weights W_q ·
    head 1 3×1" runs into "Key weights W_k"; shrunk before it is cut, and cut between words,
    so that "Masked scores · head 1 6×6" does not read "… head 1 6×", a shape that is not
    the matrix's."""

    LEAST_SCALE = 0.75

    # Qt's own bounds and shape: the item has no transform, so pyqtgraph's (its geometry
    # mapped from the parent) are the same rectangle, computed in Python on every repaint.
    boundingRect = QGraphicsWidget.boundingRect
    shape = QGraphicsWidget.shape

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._cut = False  # words left out of the text shown (see `_cut_to`)
        super().__init__(*args, **kwargs)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape, True)

    def setText(self, text: str, **args: object) -> None:
        self._cut = False
        self.item.setToolTip("")  # (the whole of a text cut before)
        super().setText(text, **args)

    def updateMin(self) -> None:
        # The text's own height, not its shrunk one: a row that followed the shrinking
        # would re-lay out the figure, resize the label and shrink it again.
        bounds = self.item.boundingRect()
        self.setMinimumWidth(0)
        self.setMinimumHeight(bounds.height())
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (0, bounds.height()),
            Qt.SizeHint.PreferredSize: (bounds.width(), bounds.height()),
            Qt.SizeHint.MaximumSize: (-1, -1),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        self.updateGeometry()

    def resizeEvent(self, ev: object) -> None:
        if self._cut:  # the whole text again, measured afresh
            self._cut = False
            self.item.document().undo()
            self.item.setToolTip("")
        natural = self.item.boundingRect().width()
        room = self.rect().width()
        if room <= 0:  # not laid out yet (a new text): cut once the layout gives it room
            super().resizeEvent(ev)
            return
        scale = 1.0 if natural <= room else max(self.LEAST_SCALE, room / natural)
        if scale != self.item.scale():
            self.item.setScale(scale)
        if natural * scale > room + 0.5:
            self._cut_to(room / scale)
        super().resizeEvent(ev)
        # A title wider than its room keeps its beginning, the matrix's name, and loses its
        # end: centred, it would lose both ends ("cores ω = Q·Kᵀ · … · seed").
        left = self.item.mapToParent(self.item.boundingRect().topLeft()).x()
        if left < 0 or (self._cut and left > 0):  # a cut title starts at the left as well
            self.item.moveBy(-left, 0)

    def _cut_to(self, width: float) -> None:
        """Leave out the text's last words until it fits `width` (unscaled pixels), and end
        it with "…", whole in its tooltip: cut at the label's edge, a stage's "· seed 123"
        would read "· seed", a shape "6×6" would read "6×"."""
        document = self.item.document()
        plain = document.toPlainText()
        # After a word, not after a separator ("· …"): the ends of the words that may stay.
        ends = [
            m.start()
            for m in re.finditer(r" ", plain)
            if plain[: m.start()].rsplit(" ", 1)[-1] not in ("", "·", "→", "|", "—", "-")
        ]
        self.item.setToolTip(plain)
        self._cut = True
        for end in reversed(ends):
            cursor = QTextCursor(document)
            cursor.beginEditBlock()  # one step, which `resizeEvent` undoes
            cursor.setPosition(end)
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(" …")
            cursor.endEditBlock()
            if self.item.boundingRect().width() <= width or end == ends[0]:
                return
            document.undo()
        self._cut = False  # a single word: left whole, for the label's edge to cut
        self.item.setToolTip("")
