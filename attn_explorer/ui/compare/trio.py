"""A, B and B − A of one array side by side: a page of the board beside its seven matrices
and its all-heads grid, for where the three fit the window (the array the weights box or
the grid shows, for the head shown)."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt

from attn_explorer.engine.compare import Comparison
from attn_explorer.ui.compare.diff_plot import show_diff
from attn_explorer.ui.heatmap import MatrixPlot
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.trace_plots import show_array


class TrioPage(pg.GraphicsLayoutWidget):
    """Three plots in a row: A, B, B − A."""

    def __init__(self) -> None:
        super().__init__()
        self.setBackground("w")
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # A, B, then B − A
        self.ci.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.plots = [MatrixPlot(title_points=10) for _side in range(3)]
        for column, plot in enumerate(self.plots):
            self.addItem(plot, row=0, col=column)
            self.ci.layout.setColumnStretchFactor(column, 1)  # three of one width

    def minimumSizeHint(self) -> QSize:
        """Nothing: a page of the board's stack counts even when another is shown, and three
        matrices' least size at a large text size would widen the window past a 1024-pixel
        projector. Where they do not fit, their values are left out, as in the grid."""
        return QSize(0, 0)

    def show_comparison(self, comparison: Comparison, name: str, head: int) -> None:
        for side, trace, plot in (
            ("A", comparison.a, self.plots[0]),
            ("B", comparison.b, self.plots[1]),
        ):
            if name in trace:
                show_array(plot, trace, name, min(head, trace.heads - 1))
                plot.set_title(_tr("<b>{0}</b> · {1}").format(side, plot.title.text))
            else:
                plot.clear()
                plot.set_title(_tr("<b>{0}</b> · not computed").format(side))
        show_diff(self.plots[2], comparison, name, head)

    def release(self) -> None:
        """Let go of the traces' arrays while the page is not shown."""
        for plot in self.plots:
            plot.clear()
