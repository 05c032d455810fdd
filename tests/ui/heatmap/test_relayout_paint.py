"""A view re-laid out by a colour bar that widens repaints what moved, and no more."""

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF
from PySide6.QtGui import QColor, QImage, QPainter, QPen

from attn_explorer.ui.heatmap import MatrixView
from attn_explorer.ui.heatmap.hatching import HatchItem

TOKENS = ["Your", "journey", "starts", "with", "one", "step"]


def test_a_widened_colour_bar_redraws_the_column_labels_not_the_row_labels(qapp, monkeypatch):
    """The bar widens for labels it had not shown ("-0.125"): the cells' box narrows, the
    column labels move with it; the row labels stay where they were, and their picture (and
    Qt's cache of it) is kept. It was made again in Python, in the paint that holds the
    whole view: the burst's longest stall."""
    view = MatrixView()
    view.resize(400, 400)
    view.show()
    matrix = np.random.default_rng(0).normal(size=(6, 6)).astype(np.float32) / 5
    plot = view.plot
    plot.set_matrix(matrix, rows=TOKENS, cols=TOKENS, levels=(-0.5, 0.5))
    qapp.processEvents()
    view.viewport().repaint()
    painted = []
    paint = pg.AxisItem.paint
    monkeypatch.setattr(
        pg.AxisItem, "paint", lambda axis, *a: painted.append(axis.orientation) or paint(axis, *a)
    )
    width = plot.colorbar.width()
    before = plot.layout_key()
    plot.set_matrix(matrix, rows=TOKENS, cols=TOKENS, levels=(-0.125, 0.125))
    plot.settle_layout()
    view.viewport().repaint()
    assert plot.colorbar.width() > width and plot.layout_key() != before  # re-laid out
    assert painted == ["top"]
    assert plot.tick_labels == (TOKENS, TOKENS)
    view.close()


def test_the_hatching_draws_the_pixels_of_its_lines_drawn_one_by_one(qapp):
    """Its lines go to Qt in one call: the pixels are those of a drawLine per line."""
    hatch = HatchItem()
    hidden = np.triu(np.ones((6, 6), bool), 1)
    hatch.setRect(QRectF(0, 0, 6, 6))
    hatch.set_hidden(hidden)
    scale = 43.3

    def canvas() -> tuple[QImage, QPainter]:
        image = QImage(300, 300, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(0)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.translate(3.25, 2.5)
        painter.scale(scale, scale)
        return image, painter

    drawn, painter = canvas()
    hatch.paint(painter, None)
    transform = painter.transform()
    painter.end()
    expected, painter = canvas()
    painter.fillRect(hatch.rect(), hatch.brush())
    painter.resetTransform()
    pen = QPen(QColor("#9a9a9a"), 1)
    pen.setCosmetic(True)
    painter.setPen(pen)
    for run in hatch.runs:
        lines: list[QLineF] = []
        HatchItem._lines(lines, transform.mapRect(run), HatchItem.SPACING_PX)
        for line in lines:
            painter.drawLine(QPointF(line.p1()), QPointF(line.p2()))
    painter.end()
    assert len(hatch.runs) == 5
    assert drawn == expected
