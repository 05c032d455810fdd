"""The coloured cells of a matrix, and the mouse over them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, SignalInstance
from PySide6.QtGui import QColor, QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem


class CellOwner(Protocol):
    """What the cells use of the matrix plot that owns them (a `MatrixPlot`): named here so
    the plot imports the cells and not the other way round."""

    matrix: np.ndarray | None
    cellClicked: SignalInstance

    def _hover(self, cell: tuple[int, int] | None, screen_pos: QPointF | None) -> None: ...


@dataclass(frozen=True)
class CellHover:
    """The cell under the mouse, and where the mouse is on screen (for a tooltip)."""

    row: int
    col: int
    screen_pos: QPointF


class CellImage(QGraphicsItem):
    """The coloured cells: one premultiplied ARGB bitmap drawn over the matrix's cell rect.

    It also reports the cell under the mouse and clicks on cells (pyqtgraph's scene calls
    `hoverEvent` / `mouseClickEvent` on any item that has them). pyqtgraph's ImageItem would
    map levels and convert formats on every paint; the colours are already computed once per
    update, so this item only blits. With `vector_cells` on (SVG and PDF export) it paints one
    rectangle per cell instead: viewers smooth an upscaled 6×6 bitmap into a blur.
    """

    VECTOR_LIMIT = 128 * 128  # beyond this many cells a bitmap is the better file

    def __init__(self, owner: CellOwner) -> None:
        super().__init__()
        self._owner = owner
        self.vector_cells = False
        self.image: np.ndarray | None = None  # (h, w) uint32 premultiplied ARGB, 0 where masked
        self._qimage: QImage | None = None
        self._rect = QRectF()
        self.setAcceptHoverEvents(True)

    def set_cells(self, argb: np.ndarray, rect: QRectF) -> None:
        """Show `argb` (h, w) uint32 premultiplied ARGB (the raster engine's own format, drawn
        without conversion), stretched over `rect` in cell units (h, w may be pooled)."""
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect
        argb = np.ascontiguousarray(argb, dtype=np.uint32)
        self.image = argb
        height, width = argb.shape
        premultiplied = QImage.Format.Format_ARGB32_Premultiplied
        self._qimage = QImage(argb.data, width, height, 4 * width, premultiplied)
        self.update()

    def clear(self) -> None:
        self.image = None
        self._qimage = None
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        if self._qimage is None:
            return
        if not self.vector_cells or self.image.size > self.VECTOR_LIMIT:
            # Cells are blocks: nearest-neighbour scaling, sharper and cheaper than smoothing.
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            painter.drawImage(self._rect, self._qimage)
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        rows, cols = self.image.shape
        cell_w, cell_h = self._rect.width() / cols, self._rect.height() / rows
        for r in range(rows):
            for c in range(cols):
                word = int(self.image[r, c])
                if word >> 24:  # not transparent
                    red, green, blue = (word >> 16) & 0xFF, (word >> 8) & 0xFF, word & 0xFF
                    # A hair of overlap keeps viewers from drawing seams between cells.
                    w = cell_w * (1.02 if c < cols - 1 else 1.0)
                    h = cell_h * (1.02 if r < rows - 1 else 1.0)
                    rect = QRectF(c * cell_w, r * cell_h, w, h)
                    painter.fillRect(rect, QColor(red, green, blue))
        painter.restore()

    def _cell(self, pos: QPointF) -> tuple[int, int] | None:
        matrix = self._owner.matrix
        if self.image is None or matrix is None:
            return None
        row, col = math.floor(pos.y()), math.floor(pos.x())
        rows, cols = matrix.shape
        return (row, col) if 0 <= row < rows and 0 <= col < cols else None

    def hoverEvent(self, ev: object) -> None:
        cell = None if ev.isExit() else self._cell(ev.pos())
        self._owner._hover(cell, None if ev.isExit() else ev.screenPos())

    def mouseClickEvent(self, ev: object) -> None:
        cell = self._cell(ev.pos())
        if cell is not None and ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self._owner.cellClicked.emit(*cell)
