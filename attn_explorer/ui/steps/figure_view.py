"""The view that shows the stage figure whole, drawn smaller where it cannot be laid out
as small as the view."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QTransform

from attn_explorer.ui.steps.stage_figure import StageFigure


class FigureView(pg.GraphicsView):
    """Shows the stage figure whole: as large as the view, or, where the figure cannot be
    laid out that small (a large text size in a small window), laid out at its least size
    and drawn smaller to fit.

    pyqtgraph's view sizes its figure to itself on a resize only, and Qt grows a figure to a
    larger least size but never shrinks it back, so a figure wider than its view (many heads
    at the concat stage, a large text size) would be cut off at the right without a sign.
    Drawn smaller, every matrix and its labels stay in sight."""

    def __init__(self, figure: StageFigure) -> None:
        super().__init__(background="w")
        self.autoPixelRange = False  # the range is set here (see `fit`)
        self.setCentralItem(figure)
        # On the next turn: the figure's least size is settled by then.
        figure.leastChanged.connect(self.fit, Qt.ConnectionType.QueuedConnection)

    def resizeEvent(self, event: object) -> None:
        if not self.closed:
            self.fit()

    def drawn_scale(self) -> float:
        """How much smaller than laid out the figure is drawn: 1 where it fits the view."""
        return self.transform().m11()

    def fit(self) -> None:
        figure = self.centralWidget
        if self.closed or figure is None:
            return
        width, height = max(self.width(), 1), max(self.height(), 1)
        least = figure.effectiveSizeHint(Qt.SizeHint.MinimumSize)
        scale = min(1.0, width / max(least.width(), 1.0), height / max(least.height(), 1.0))
        area = QRectF(0, 0, width / scale, height / scale)
        if area != self.range or figure.geometry() != area:
            self.range = area
            figure.setGeometry(area)
            self.setSceneRect(area)
            self.setTransform(QTransform.fromScale(scale, scale))
            self.sigDeviceRangeChanged.emit(self, self.range)
            self.sigDeviceTransformChanged.emit(self)
