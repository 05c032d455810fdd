"""The column axis of token labels, and how token labels are measured for the axes.

`left_to_right` lives here as well: the axes are what a right-to-left application would lay
out mirrored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPointF, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget

from attn_explorer.ui.heatmap.labels import display_token

_NO_SPECS = (None, [], [])  # what TokenAxis.drawPicture is given: it reads none of it


class RowAxis(pg.AxisItem):
    """pyqtgraph's axis with its bounds answered by Qt, not in Python: Qt asks for them
    several times in each paint of each view (nine calls into Python a view, with the
    column axis). The room pyqtgraph's bounds leave around the axis for labels reaching
    past its ends is held as the widget's frame margins, which Qt's bounds add; `_right`
    more on the right."""

    boundingRect = QGraphicsWidget.boundingRect
    _right = 0.0

    def hold_bounds(self) -> None:
        """Margins from pyqtgraph's own bounds, which depend on the style alone (not on a
        grid: these axes draw none)."""
        rect, theirs = self.rect(), pg.AxisItem.boundingRect(self)
        self.setWindowFrameMargins(
            rect.left() - theirs.left(),
            rect.top() - theirs.top(),
            theirs.right() - rect.right() + self._right,
            theirs.bottom() - rect.bottom(),
        )

    def setStyle(self, **options: object) -> None:
        super().setStyle(**options)
        self.hold_bounds()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)  # a new style takes the margins away
        if event.type() == QEvent.Type.StyleChange:
            self.hold_bounds()

    def setRange(self, mn: float, mx: float) -> None:
        """As pyqtgraph's, but the same range keeps the picture: the view box tells its axes
        its range again whenever it is resized, and a colour bar that widens for new labels
        resizes the cells' box, where the row labels stay where they were. Their picture
        (and Qt's cache of it) would be made again, label by label in Python, in the paint
        that holds the whole view. A new size of the axis itself drops the picture in
        `resizeEvent`, and Qt its cache."""
        if getattr(self, "range", None) == [mn, mx] and math.isfinite(mn) and math.isfinite(mx):
            return
        super().setRange(mn, mx)


class TokenAxis(RowAxis):
    """The column axis: token labels horizontal when they fit, else slanted or vertical.

    pyqtgraph's axis only writes horizontal text, which forces thinning the moment a word is
    wider than its column; slanting keeps every label of a tutorial-sized matrix readable.
    """

    def __init__(self, orientation: str = "top") -> None:
        super().__init__(orientation)
        self.labels: list[tuple[float, str]] = []
        self.angle = 0
        self._right = 0.0  # its own from the start: a view used again reads as a new one
        self.hold_bounds()

    def set_labels(
        self, labels: list[tuple[float, str]], angle: int, widest: float | None = None
    ) -> None:
        """`widest`: the width to make room for, when it is not the widest shown label's."""
        self.labels, self.angle = labels, angle
        metrics = QFontMetricsF(self.font())
        if widest is None:
            widest = max((metrics.horizontalAdvance(t) for _, t in labels), default=0)
        if angle == 0:
            height = metrics.height() + 6
        else:
            radians = math.radians(angle)
            height = widest * math.sin(radians) + metrics.height() * math.cos(radians) + 8
        self.setHeight(min(int(height), 140))
        overhang = widest * math.cos(math.radians(angle)) + metrics.height() if angle else 0
        # A slanted label leans right, past the last column: its end is part of the axis,
        # or a repaint of the axis's own rectangle alone would cut it off ("ste" for "step").
        if overhang != self._right:
            self._right = overhang  # how far slanted labels reach right of the axis (pixels)
            self.hold_bounds()
        self.picture = None
        self.update()

    def generateDrawSpecs(self, p: QPainter) -> tuple | None:
        """`drawPicture` writes `labels` and reads none of pyqtgraph's specs, which measure
        each tick's text in Python: once `set_labels` has fixed the axis's height, what
        pyqtgraph decides that matters here is whether anything is drawn at all (not
        without a device to map to, pyqtgraph's `mapToDevice` gives none)."""
        if self.fixedHeight is None:  # not labelled yet: pyqtgraph sizes the axis
            return super().generateDrawSpecs(p)
        return None if self.deviceTransform_() is None else _NO_SPECS

    def drawPicture(
        self, p: QPainter, axisSpec: object, tickSpecs: object, textSpecs: object
    ) -> None:
        view = self.linkedView()
        if view is None or not self.labels:
            return
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        p.setFont(self.font())
        p.setPen(self.textPen())
        metrics = QFontMetricsF(self.font())
        bottom = self.boundingRect().bottom() - 3
        for position, text in self.labels:
            x = self.mapFromScene(view.mapViewToScene(QPointF(position, 0))).x()
            width = metrics.horizontalAdvance(text)
            if self.angle == 0:
                p.drawText(
                    QRectF(
                        x - width / 2 - 2, bottom - metrics.height(), width + 4, metrics.height()
                    ),
                    Qt.AlignmentFlag.AlignCenter,
                    text,
                )
                continue
            p.save()
            p.translate(x, bottom)
            p.rotate(-self.angle)
            p.drawText(
                QRectF(0, -metrics.height() / 2, width + 4, metrics.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                text,
            )
            p.restore()


def _slanted_fits(last: str, cell_width: float, font: QFont) -> bool:
    """Whether the last column's label, slanted at 45°, stays above the matrix: it leans right
    from its cell's centre, and what passes the matrix's right edge would be cut off."""
    reach = QFontMetricsF(font).horizontalAdvance(display_token(last)) * math.cos(math.pi / 4)
    return reach <= cell_width / 2 + 6


_WIDEST: dict[tuple[str, tuple[str, ...]], float] = {}
WIDEST_KEPT = 64  # fonts × label sets measured; a window holds a few of each


def _widest(labels: Sequence[str], font: QFont) -> float:
    """The widest label's advance in `font`, plus its margin.

    Asked for every matrix on every move to share the row's width, while a seed or
    temperature move leaves the tokens and the font as they were: measured once per font and
    label set (at 64 tokens the measuring was 3.5 ms of a move's 20 ms on the window thread).
    Each distinct token is measured once: a real model's 512 tokens repeat a few hundred
    words, over thousands of labels across the matrices.
    """
    key = (font.key(), tuple(labels))
    width = _WIDEST.get(key)
    if width is None:
        metrics = QFontMetricsF(font)
        texts = set(map(display_token, set(labels)))
        width = max(map(metrics.horizontalAdvance, texts), default=0) + 6
        if len(_WIDEST) >= WIDEST_KEPT:
            _WIDEST.clear()
        _WIDEST[key] = width
    return width


def left_to_right(item: QGraphicsItem) -> None:
    """Lay `item` and every graphics widget in it out left to right, in every language: a
    matrix's columns are 1, 2, 3, its row labels on its left, its colour bar on its right.

    Set on each one: pyqtgraph builds a plot's axes before the plot has a parent, so they
    would take the application's right-to-left direction and keep it (row labels on the
    right).
    """
    if isinstance(item, QGraphicsWidget):
        item.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
    for child in item.childItems():
        left_to_right(child)
