"""The mask stage's two methods as one followed row, where a row has too many keys for a
heatmap's cells to be read (256 or 1,024 keys): the weights of method 1 as an area, those of
method 2 as a line over it, the followed token's key marked and the masked keys said once."""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import QApplication

from attn_explorer.engine import Trace
from attn_explorer.ui.heatmap import display_token, left_to_right
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.text_size import text_size

MANY_KEYS = 48  # above this many keys the two methods are one row's curves (as SoftmaxPanel)
METHOD1_COLOR, METHOD2_COLOR, FOLLOWED_COLOR = "#2171b5", "#b2182b", "#ff8c00"


class MaskRowsPlot(pg.PlotWidget):
    """One query's weights by both methods, over its keys: they agree, so the line of
    method 2 lies on the edge of method 1's area."""

    def __init__(self) -> None:
        super().__init__(background="w", enableMenu=False)
        self.setMouseEnabled(False, False)
        self.hideButtons()
        fill = QColor(METHOD1_COLOR)
        fill.setAlpha(90)
        self.method1 = pg.PlotDataItem(
            [], [], fillLevel=0, fillBrush=fill, pen=pg.mkPen(METHOD1_COLOR, width=1.5)
        )
        self.method2 = pg.PlotDataItem([], [], pen=pg.mkPen(METHOD2_COLOR, width=1.5, dash=[4, 3]))
        self.addItem(self.method1)
        self.addItem(self.method2)
        self.followed = pg.InfiniteLine(angle=90, pen=pg.mkPen(FOLLOWED_COLOR, width=2))
        self.addItem(self.followed)
        self.note = pg.TextItem(anchor=(0.0, 1.0))  # the masked keys, said once
        self.addItem(self.note)
        left_to_right(self.getPlotItem())  # the value axis on the left, in every language
        self.title = ""
        self.note_text = ""

    def show_row(self, trace: Trace, head: int, i: int) -> None:
        """Row `i` of head `head`: both methods' weights, key i marked, masked keys noted."""
        a = trace.weights_renormalize[head, i].astype(np.float64)
        b = trace.weights_neg_inf[head, i].astype(np.float64)
        keys = len(b)
        x = np.arange(keys)
        # A row method 1 broke (0/0) has no area: its NaN would hide the whole curve.
        self.method1.setData(x, np.nan_to_num(a, nan=0.0))
        self.method2.setData(x, b)
        token = display_token(trace.q_tokens[i], 12)
        self.title = _tr(
            "Query {0} “{1}”: <b>method 1</b> (area) and <b>method 2</b> (dashed line) over "
            "its {2} keys"
        ).format(i + 1, token, keys)
        self.setTitle(self.title, size=f"{text_size.points(10):g}pt")
        own = i if i < keys else None
        self.followed.setVisible(own is not None)
        if own is not None:
            self.followed.setPos(own)
        hidden = np.flatnonzero(trace.mask[i]) if trace.config.has_mask else np.array([], int)
        self.note_text = ""
        if hidden.size:
            self.note_text = _tr("{0} masked keys: weight 0 by both methods").format(hidden.size)
            font = QFont(QApplication.font())  # the window's text size, as the tick labels
            font.setBold(True)
            self.note.setFont(font)
            self.note.setText(self.note_text, color="#555555")
            self.note.setPos(int(hidden[0]), 0)
        self.note.setVisible(bool(hidden.size))
        top = float(np.fmax.reduce(np.concatenate([a, b]))) if keys else 1.0
        self.setYRange(0, top if np.isfinite(top) and top > 0 else 1.0, padding=0.08)
        self.setXRange(-0.6, keys - 0.4, padding=0)
        step = max(1, keys // 8)
        self.getAxis("bottom").setTicks(
            [[(k, display_token(trace.k_tokens[k], 8)) for k in range(0, keys, step)]]
        )
