"""The coloured cells of a matrix, and the mouse over them."""

from __future__ import annotations

import math
import weakref
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, SignalInstance
from PySide6.QtGui import QColor, QImage, QPaintEngine, QPainter, QTransform
from PySide6.QtWidgets import QGraphicsItem

# Transforms under which the cells are drawn at device resolution (see `device_cells`).
_SCALING = (
    QTransform.TransformationType.TxNone,
    QTransform.TransformationType.TxTranslate,
    QTransform.TransformationType.TxScale,
)
_DEVICE_MAX = 4096 * 4096  # pixels; a larger picture is left to Qt's scaling
# Looked up once: an enum member fetched, or a flag tested in Python, on every paint of every
# view costs more than the test itself.
_RASTER = QPaintEngine.Type.Raster
_ANTIALIASING = QPainter.RenderHint.Antialiasing


def device_grid(
    shape: tuple[int, int],
    rect: QRectF,
    transform: QTransform,
    antialiased: bool,
    clip: QRectF | None = None,
) -> tuple[QPoint, np.ndarray, np.ndarray] | None:
    """Where Qt's raster engine puts the cells of an image of `shape` (h, w) drawn over
    `rect` under `transform` (a scaling with positive factors) by `drawImage(rect, image)`,
    nearest-neighbour, by a painter `antialiased` or not, within `clip` (the painter's clip
    in device coordinates, None for none): the first device pixel, and for each column and
    row of device pixels the image's column and row it shows; None where that is not worked
    out here.

    Qt's scaling (qt_scale_image_32bit) walks each row in 16.16 fixed point from the first
    pixel's centre; the same sums give the same source cell for every pixel, so the picture
    can be made once per set of cells and blitted without scaling on every repaint. Blitting
    it costs a copy of its rows; scaling it, a blend of every pixel.
    """
    src_h, src_w = shape
    m11, m22, dx, dy = transform.m11(), transform.m22(), transform.dx(), transform.dy()
    # The corners mapped as QTransform maps a point under a scaling.
    left, top = m11 * rect.left() + dx, m22 * rect.top() + dy
    right, bottom = m11 * rect.right() + dx, m22 * rect.bottom() + dy
    if not antialiased:  # an aliased painter first rounds the edges to whole pixels
        x1, y1 = math.floor(left + 0.5), math.floor(top + 0.5)  # qRound
        x2, y2 = math.floor(right + 0.5), math.floor(bottom + 0.5)
        left, top, right, bottom = float(x1), float(y1), float(x2), float(y2)
    width, height = right - left, bottom - top
    # The pixels covered: the rectangle rounded as QRectF.toRect() rounds it, cut to the
    # clip as the raster engine keeps it (its corners rounded, qt_mapFillRect). Qt starts its
    # sums at the first pixel inside the clip.
    target = QRectF(left, top, width, height).toRect()
    if clip is not None:
        x1, y1 = math.floor(clip.left() + 0.5), math.floor(clip.top() + 0.5)
        x2, y2 = math.floor(clip.right() + 0.5), math.floor(clip.bottom() + 0.5)
        target = target.intersected(QRect(x1, y1, x2 - x1, y2 - y1))
    x0, y0, w, h = target.x(), target.y(), target.width(), target.height()
    none = np.zeros(0, np.int64)
    if w <= 0 or h <= 0:
        return QPoint(x0, y0), none, none
    sx, sy = src_w / width, src_h / height
    ix, iy = int(0x10000 * sx), int(0x10000 * sy)
    basex = math.ceil((x0 + 0.5 - left) * sx * 65536) - 1
    basey = math.ceil((y0 + 0.5 - top) * sy * 65536) - 1
    if basex < 0 or basey < 0:  # left or top at a negative half pixel: Qt's own case
        return None
    # Qt leaves out a last column or row whose source falls outside the image.
    if (basex + ix * (w - 1)) >> 16 >= src_w:
        w -= 1
    if (basey + iy * (h - 1)) >> 16 >= src_h:
        h -= 1
    cols = (basex + ix * np.arange(max(w, 0), dtype=np.int64)) >> 16
    rows = (basey + iy * np.arange(max(h, 0), dtype=np.int64)) >> 16
    return QPoint(x0, y0), cols, rows


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
    _PREMULTIPLIED = QImage.Format.Format_ARGB32_Premultiplied

    def __init__(self, owner: CellOwner) -> None:
        super().__init__()
        # Weak: this item lies inside its owner's tree. A strong reference from a descendant
        # can hold the last reference to a parentless owner (an exported figure's plot), and
        # the descendant's deletion (pyqtgraph's view group, which Python owns although it
        # has a parent) would then delete the owner while the owner's tree is being deleted.
        self._owner = weakref.ref(owner)
        self.vector_cells = False
        self.image: np.ndarray | None = None  # (h, w) uint32 premultiplied ARGB, 0 where masked
        self._qimage: QImage | None = None
        self._opaque = False  # no transparent cell: blitted as a copy of rows
        # Where the cells' device pixels come from under the last transform painted under,
        # and those pixels (see `_blit`).
        self._grid: tuple | None = None
        self._device: tuple[np.ndarray, QImage] | None = None
        self._rect = QRectF()
        self.setAcceptHoverEvents(True)

    def set_cells(self, argb: np.ndarray, rect: QRectF, opaque: bool | None = None) -> None:
        """Show `argb` (h, w) uint32 premultiplied ARGB (the raster engine's own format, drawn
        without conversion), stretched over `rect` in cell units (h, w may be pooled).
        `opaque`: whether every cell is (None: found out here)."""
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect
        argb = np.ascontiguousarray(argb, dtype=np.uint32)
        self.image = argb
        height, width = argb.shape
        self._qimage = QImage(argb.data, width, height, 4 * width, self._PREMULTIPLIED)
        if opaque is None:
            opaque = bool(argb.size) and bool(np.all(argb >= 0xFF000000))
        self._opaque = opaque
        self._device = None
        self.update()

    def clear(self) -> None:
        self.image = None
        self._qimage = None
        self._device = None
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        if self._qimage is None:
            return
        if not self.vector_cells or self.image.size > self.VECTOR_LIMIT:
            transform = painter.transform()
            # The grid is worked out in the device's pixels, where Qt's scaling sums: on a
            # scaled screen (200 %) the device has more than the painter, and a blit of the
            # logical picture would put cell edges a device pixel apart from Qt's, so only a
            # device transform of the painter's own scale blits. It differs from the
            # painter's by where the view sits in its window (Qt paints every widget into
            # the window's one backing store), a whole number of pixels.
            device = painter.deviceTransform()
            if (
                widget is not None
                and transform.type() in _SCALING
                and device.type() in _SCALING
                and transform.m11() > 0
                and transform.m22() > 0
                and device.m11() == transform.m11()
                and device.m22() == transform.m22()
                and painter.paintEngine().type() == _RASTER
                and self._blit(painter, transform, device)
            ):
                return
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

    def _blit(self, painter: QPainter, transform: QTransform, device: QTransform) -> bool:
        """On screen: the cells as the device pixels that Qt's scaling would write, made once
        per set of cells (their place worked out once per device transform), copied on each
        repaint (a seed move repaints six views); False where they would be too large to
        keep. `transform` is the painter's, `device` its device transform (the same scale,
        moved by the view's place in its window)."""
        moved_x, moved_y = device.dx() - transform.dx(), device.dy() - transform.dy()
        if abs(moved_x - round(moved_x)) > 1e-6 or abs(moved_y - round(moved_y)) > 1e-6:
            return False  # not a widget's place in its window: left to Qt's scaling
        antialiased = painter.testRenderHint(_ANTIALIASING)
        key = (device.m11(), device.m22(), device.dx(), device.dy(), antialiased)
        grid = self._grid
        where = (key, self.image.shape, self._rect.getRect())
        if grid is None or grid[0] != where:
            # The clip is the view box's, whose edges are the cells' own: it cuts nothing on
            # screen, but where it would, Qt starts its sums at its edge.
            clip = device.mapRect(painter.clipBoundingRect()) if painter.hasClipping() else None
            found = device_grid(self.image.shape, self._rect, device, antialiased, clip)
            if found is None or found[1].size * found[2].size > _DEVICE_MAX:
                return False
            self._grid = grid = (where, *found)
            self._device = None
        _, place, cols, rows = grid
        if not cols.size or not rows.size:
            return True
        if self._device is None:
            pixels = self.image.take(cols, axis=1).take(rows, axis=0)
            height, width = pixels.shape
            kind = QImage.Format.Format_RGB32 if self._opaque else self._PREMULTIPLIED
            self._device = (pixels, QImage(pixels.data, width, height, 4 * width, kind))
        # Drawn in device pixels: the painter's transform undoes the view's place in its
        # window, which the painter adds (whole pixels: the blit lands where `place` says).
        painter.setWorldTransform(QTransform.fromTranslate(-round(moved_x), -round(moved_y)))
        painter.drawImage(place, self._device[1])
        painter.setWorldTransform(transform)
        return True

    def _cell(self, pos: QPointF) -> tuple[int, int] | None:
        owner = self._owner()
        matrix = None if owner is None else owner.matrix
        if self.image is None or matrix is None:
            return None
        row, col = math.floor(pos.y()), math.floor(pos.x())
        rows, cols = matrix.shape
        return (row, col) if 0 <= row < rows and 0 <= col < cols else None

    def hoverEvent(self, ev: object) -> None:
        owner = self._owner()
        if owner is not None:
            cell = None if ev.isExit() else self._cell(ev.pos())
            owner._hover(cell, None if ev.isExit() else ev.screenPos())

    def mouseClickEvent(self, ev: object) -> None:
        cell = self._cell(ev.pos())
        owner = self._owner()
        if cell is not None and owner is not None and ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            owner.cellClicked.emit(*cell)
