"""The matrix background, hatched across masked cells.

A masked cell is transparent in the cell image: it shows this item, under the image, rather
than a colour that could be read as a value.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from attn_explorer.ui.heatmap.levels import display_grid


class HatchItem(QGraphicsRectItem):
    """The matrix background: light grey, with diagonal lines across the masked cells.

    Masked cells are transparent in the image, so this shows through them. Lines are drawn
    one by one, only inside runs of masked cells, at a fixed screen spacing and phase (so the
    pattern is continuous from row to row): a pattern brush blurs in SVG renderers, a clip
    region costs tens of microseconds per line, and lines under visible cells would peek out
    at their anti-aliased edges.
    """

    SPACING_PX = 7

    def __init__(self) -> None:
        super().__init__()
        self.device_pen = False  # a plain pen, not a cosmetic one (see OutlineItem)
        self.runs: list[QRectF] = []  # masked cells, as one rectangle per run within a row
        self._hidden: np.ndarray | None = None
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setBrush(QBrush(QColor("#e8e8e8")))

    @property
    def hatched(self) -> bool:
        return bool(self.runs)

    RUNS_MAX = 128  # the hatching of a long sequence is laid out on at most 128 × 128 blocks

    def set_hidden(self, hidden: np.ndarray | None) -> None:
        if hidden is None and self._hidden is None:
            return
        if hidden is not None and self._hidden is not None and np.array_equal(hidden, self._hidden):
            return
        self._hidden = hidden
        self.runs = []
        if hidden is not None:
            # Blocks with any masked cell are hatched: a superset of the masked cells is
            # enough, the opaque visible cells cover the rest.
            blocks = display_grid(hidden, "mask", self.RUNS_MAX)
            fr, fc = hidden.shape[0] / blocks.shape[0], hidden.shape[1] / blocks.shape[1]
            for r, row in enumerate(blocks):
                edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(np.int8), [0]))))
                for c0, c1 in zip(edges[::2], edges[1::2], strict=True):
                    self.runs.append(QRectF(c0 * fc, r * fr, (c1 - c0) * fc, fr))
        self.update()

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        painter.fillRect(self.rect(), self.brush())
        if not self.runs:
            return
        transform = painter.transform()
        painter.save()
        painter.resetTransform()
        pen = QPen(QColor("#9a9a9a"), 1)
        pen.setCosmetic(not self.device_pen)
        painter.setPen(pen)
        step = self.SPACING_PX
        lines: list[QLineF] = []
        for run in self.runs:
            # Each run gets its own lines, cut to it by hand (SVG ignores clipping). The item
            # is cached on screen, so this runs when the mask changes or the cells' box is
            # resized (a colour bar widened for new labels), not on every move.
            self._lines(lines, transform.mapRect(run), step)
        # In one call: Qt draws each line of it as a drawLine of its own would (the same
        # pixels, the same SVG), without a call from Python per line (a hundred and more
        # in a causal 6 × 6, 2 ms of the paint that holds a re-laid-out view).
        painter.drawLines(lines)
        painter.restore()

    @staticmethod
    def _lines(lines: list[QLineF], area: QRectF, step: float) -> None:
        """Add to `lines` the lines x + y = k·step (rising at 45°, the same phase
        everywhere) within `area`."""
        left, right, top, bottom = area.left(), area.right(), area.top(), area.bottom()
        k = math.ceil((left + top) / step)
        while k * step <= right + bottom:
            c = k * step
            x0, x1 = max(left, c - bottom), min(right, c - top)
            if x0 < x1:
                lines.append(QLineF(x0, c - x0, x1, c - x1))
            k += 1
