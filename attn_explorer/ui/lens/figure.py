"""The model view as a figure: every layer × head's map with its labels, in PNG, SVG or PDF.

Painted directly with QPainter from the grid's one image (`attn_explorer.lens.grid`), so a
512-token model's 144 maps are one image operation, not 144 heatmaps.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtCore import QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPageSize, QPainter, QPdfWriter
from PySide6.QtSvg import QSvgGenerator

from attn_explorer.lens.capture import ModelRun
from attn_explorer.lens.grid import Grid, grid
from attn_explorer.ui.i18n import tr as _tr

MARGIN, LEFT, TOP = 16, 44, 56


def to_qimage(image: np.ndarray) -> QImage:
    """An (h, w, 3) uint8 array as a QImage that owns a copy of its pixels."""
    height, width, _ = image.shape
    data = np.ascontiguousarray(image)
    return QImage(data.data, width, height, 3 * width, QImage.Format.Format_RGB888).copy()


def title(run: ModelRun) -> str:
    loaded = run.loaded
    return _tr("{model}: attention of {layers} layers × {heads} heads, {tokens} tokens").format(
        model=loaded.name, layers=loaded.layers, heads=loaded.heads, tokens=run.n
    )


def _title_font() -> QFont:
    font = QFont()
    font.setPixelSize(15)
    return font


def figure_size(run: ModelRun, model_grid: Grid) -> QSize:
    height, width, _ = model_grid.image.shape
    title_width = QFontMetrics(_title_font()).horizontalAdvance(title(run))
    return QSize(max(width + LEFT, title_width) + 2 * MARGIN, height + TOP + 2 * MARGIN)


def paint(painter: QPainter, run: ModelRun, model_grid: Grid) -> None:
    size = figure_size(run, model_grid)
    painter.fillRect(QRectF(0, 0, size.width(), size.height()), QColor("white"))
    painter.setPen(QColor("black"))
    font = _title_font()
    painter.setFont(font)
    painter.drawText(
        QRectF(MARGIN, MARGIN, size.width(), 22), Qt.AlignmentFlag.AlignLeft, title(run)
    )
    font.setPixelSize(11)
    painter.setFont(font)
    left, top = MARGIN + LEFT, MARGIN + TOP
    for head in range(model_grid.heads):
        x, _ = model_grid.origin(0, head)
        label = _tr("H{number}").format(number=head + 1)
        painter.drawText(
            QRectF(left + x, top - 18, model_grid.tile, 16), Qt.AlignmentFlag.AlignCenter, label
        )
    for layer in range(model_grid.layers):
        _, y = model_grid.origin(layer, 0)
        label = _tr("L{number}").format(number=layer + 1)
        painter.drawText(
            QRectF(MARGIN, top + y, LEFT - 6, model_grid.tile),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            label,
        )
    painter.drawImage(left, top, to_qimage(model_grid.image))


def export_model_figure(run: ModelRun, path: Path, fmt: str) -> Path:
    """Write the model view of `run` to `path` as png, svg or pdf."""
    model_grid = grid(run.weights)
    size = figure_size(run, model_grid)
    if fmt == "png":
        image = QImage(size, QImage.Format.Format_RGB32)
        painter = QPainter(image)
        paint(painter, run, model_grid)
        painter.end()
        if not image.save(str(path), "PNG"):
            raise OSError(_tr("cannot write {path}").format(path=path))
        return path
    if fmt == "svg":
        device = QSvgGenerator()
        device.setFileName(str(path))
        device.setSize(size)
        device.setViewBox(QRectF(0, 0, size.width(), size.height()))
    else:
        device = QPdfWriter(str(path))
        device.setPageSize(QPageSize(QSizeF(size.width(), size.height()), QPageSize.Unit.Point))
        device.setResolution(72)
    painter = QPainter(device)
    paint(painter, run, model_grid)
    painter.end()
    return path
