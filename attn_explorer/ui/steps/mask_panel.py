"""The mask stage's panel: the two masking methods of tutorial 000 side by side."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from attn_explorer.engine import Trace
from attn_explorer.ui.heatmap import MatrixPlot
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.trace_plots import joint_levels, show_array
from attn_explorer.ui.steps.mask_rows import MANY_KEYS, MaskRowsPlot
from attn_explorer.ui.steps.matrix_row import MatrixRow
from attn_explorer.ui.text_size import text_size


class MaskMethodsPanel(QWidget):
    """Method 1 (softmax, zero, renormalize) beside method 2 (−∞, softmax): they agree."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.view.setBackground("w")
        # Above MANY_KEYS keys a heatmap's cells are too small to read: one row's curves.
        self.rows = MaskRowsPlot()
        self.rows.hide()
        self.method1 = MatrixPlot(title_points=10)
        self.method2 = MatrixPlot(title_points=10)
        # Side by side at one width, whatever their titles' lengths (see MatrixRow).
        self.row = MatrixRow()
        self.view.addItem(self.row, row=0, col=0)
        self.row.set_items([self.method1, self.method2])
        self._fit_text_size()
        text_size.changed.connect(self._fit_text_size)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.rows, 1)
        self.difference = QLabel()
        # Wrapped: the sentence of a method that breaks down is wider than a small window.
        self.difference.setWordWrap(True)
        layout.addWidget(self.difference)
        self.largest = 0.0

    VIEW_MIN_HEIGHT = 220  # at 100 % text

    def _fit_text_size(self) -> None:
        self.view.setMinimumHeight(round(self.VIEW_MIN_HEIGHT * text_size.factor))
        self.rows.setMinimumHeight(round(self.VIEW_MIN_HEIGHT * text_size.factor))

    def show_methods(self, trace: Trace, head: int, query: int | None) -> None:
        many = trace.weights_neg_inf.shape[-1] > MANY_KEYS
        self.view.setVisible(not many)
        self.rows.setVisible(many)
        if many:
            self.rows.show_row(trace, head, query or 0)
        # The same weights computed two ways: one colour scale, and so one colour bar.
        levels = joint_levels(trace, ("weights_renormalize", "weights_neg_inf"), head)
        show_array(
            self.method1,
            trace,
            "weights_renormalize",
            head,
            levels=levels,
            title=_tr("<b>Method 1</b>: softmax, zero hidden, renormalize"),
        )
        show_array(
            self.method2,
            trace,
            "weights_neg_inf",
            head,
            levels=levels,
            title=_tr("<b>Method 2</b>: −∞, then softmax"),
        )
        for plot in (self.method1, self.method2):
            plot.set_highlight(query)
        self.row.arrange()
        a = trace.weights_renormalize[head].astype(np.float64)
        b = trace.weights_neg_inf[head].astype(np.float64)
        broken = np.flatnonzero(np.isnan(a).any(axis=-1))  # rows renormalizing gave 0/0
        # (fmax ignores the NaN of broken rows, and says NaN without a warning when all are)
        self.largest = float(np.fmax.reduce(np.abs(a - b), axis=None)) if a.size else 0.0
        if broken.size:
            rows = ", ".join(str(r + 1) for r in broken[:8])
            where = _tr("row {0}") if broken.size == 1 else _tr("rows {0}")
            self.difference.setText(
                _tr(
                    "Method 1 breaks down on {0}: softmax gave the hidden keys all the weight, "
                    "the visible ones underflow to 0, and renormalizing divides 0 by 0. "
                    "Method 2 still works; a higher temperature saves method 1."
                ).format(where.format(rows))
            )
            return
        self.difference.setText(
            _tr(
                "Largest difference between the two methods: {0} (float32 rounding: they agree)."
            ).format(f"{self.largest:.3g}")
        )
