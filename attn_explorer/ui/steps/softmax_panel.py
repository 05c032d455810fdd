"""The softmax stage's panel: one row's scores beside its weights, and softmax(k × scores).

Tutorial 004's lesson: softmax sharpens toward one-hot as its inputs grow, flattens toward
uniform as they shrink; the "Why √d_k?" button loads the demo of it.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QFontMetricsF
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from attn_explorer.engine import Trace
from attn_explorer.engine.softmax_lab import entropy, sweep
from attn_explorer.text.numbers import num
from attn_explorer.ui.heatmap import display_token, left_to_right
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import ShrinkButton, SliderSpin, elide_words

TITLE_MARGIN = 2  # px of a title's text item that hold no ink (its document margin)


def _title_size() -> str:
    return f"{text_size.points(10):g}pt"


class SoftmaxPanel(QWidget):
    """Bars of one row's scores beside its weights, and a sweep of softmax(k × scores)."""

    FACTOR_MIN, FACTOR_MAX = 0.05, 100.0

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key: int | None = None  # the followed token's own key, marked above MANY_KEYS
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # scores → weights → sweep
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        plots = QHBoxLayout()
        self.score_plot = self._bars(_tr("Scores fed to softmax"), _tr("Scores"))
        self.weight_plot = self._bars(_tr("Weights = softmax(scores)"), _tr("Weights"))
        self.sweep_plot = self._bars(_tr("softmax(k × scores)"), _tr("softmax(k ×)"))
        self.sweep_plot.setYRange(0, 1)
        self.weight_plot.setYRange(0, 1)
        for plot in (self.score_plot, self.weight_plot, self.sweep_plot):
            plots.addWidget(plot)
        text_size.changed.connect(self._retitle)
        layout.addLayout(plots, 1)
        # Under the bars while the followed row has masked keys: they have no bar, and a
        # missing bar reads as a score of 0, the very idea the tutorial argues against.
        self.masked_note = QLabel()
        self.masked_note.setWordWrap(True)
        self.masked_note.hide()
        layout.addWidget(self.masked_note)
        controls = QHBoxLayout()
        self.factor_label = QLabel()
        controls.addWidget(self.factor_label)
        self.factor = SliderSpin(self.FACTOR_MIN, self.FACTOR_MAX, step=0.01, decimals=2, log=True)
        self.factor.setValue(1.0)
        controls.addWidget(self.factor, 1)
        # Its question alone where the row is narrow (a large text size, a longer language).
        self.why = ShrinkButton("", "√dₖ?")
        controls.addWidget(self.why)
        layout.addLayout(controls)
        self.entropy_text = QLabel()
        self.entropy_text.setWordWrap(True)
        layout.addWidget(self.entropy_text)
        self.factor.valueChanged.connect(lambda _v: self._draw_sweep())
        self.row: np.ndarray = np.zeros(0)
        self.hidden: np.ndarray | None = None  # method 1's hidden keys
        self.masked: np.ndarray | None = None  # the keys the mask hides, by either method
        self.labels: tuple[str, ...] = ()
        self.sweep_weights: np.ndarray = np.zeros(0)
        self.sweep_entropy = 0.0
        self._retranslate()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # the user chose another language
            self._retranslate()

    def _retranslate(self) -> None:
        """The panel's words in the language of now (its titles and the entropy are written
        with each row the step-through shows)."""
        self.masked_note.setText(
            _tr(
                "−∞: a masked key, not a score of 0. exp(−∞) = 0, so softmax gives it weight "
                "0; a score of 0 would get exp(0) = 1 before dividing by the sum."
            )
        )
        self.factor_label.setText(_tr("Multiply the scores by k:"))
        self.factor.setToolTip(
            _tr(
                "Scale this row's scores before softmax: large k sharpens the weights toward "
                "one-hot, small k flattens them toward uniform, as figure 5 of {tutorial} shows."
            ).format(tutorial=_tr("Self-Attention (blog)"))
        )
        self.why.set_texts(_tr("Why √dₖ? Show me"), "√dₖ?")
        self.why.setToolTip(
            _tr(
                "Loads 8 tokens with random 16-dimensional unit-variance embeddings, sets d_out "
                "to 64 and switches √d_k scaling off: the scores grow like √d_k and softmax "
                "saturates toward one-hot. Tick “Divide by √d_k” to see the weights spread "
                "again. Ctrl+Z restores your work."
            )
        )

    BARS_MIN_HEIGHT = 150  # at 100 % text; the titles and tick labels grow with the size

    def _retitle(self) -> None:
        for plot in (self.score_plot, self.weight_plot, self.sweep_plot):
            self._fit_title(plot)
            plot.setMinimumHeight(round(self.BARS_MIN_HEIGHT * text_size.factor))

    def _title(self, plot: pg.PlotWidget, title: str, short: str) -> None:
        plot.titles = (title, short)
        self._fit_title(plot)

    @staticmethod
    def _fit_title(plot: pg.PlotWidget) -> None:
        """The title, or its short form, or the short form cut between words with "…",
        whichever fits: Qt's own cut would leave "Scores fed to softmax (row" in a narrow
        window."""
        title, short = plot.titles
        item = plot.getPlotItem()
        label = item.titleLabel
        # The title's cell is the plot's width less the value axis beside it; a wider title
        # widens the plot past its view, which cuts its end ("softmax(1 × attention scor").
        # Its text item's margin may pass the cell: no ink is there.
        beside = item.geometry().width() - label.geometry().width()
        room = plot.width() - beside + TITLE_MARGIN
        for text in (title, short):
            plot.setTitle(text, size=_title_size())
            if label.item.boundingRect().width() <= room:
                return
        font = QFont(label.item.font())
        font.setPointSizeF(text_size.points(10))  # the size _title_size() writes
        plot.setTitle(elide_words(short, QFontMetrics(font), room), size=_title_size())

    def _fit_axis(self, plot: pg.PlotWidget) -> None:
        """Every key's label where the bars are wide enough, else every k-th, so that
        neighbouring labels never run together ("Yourjourney")."""
        count = len(self.labels)
        if not count:
            return
        axis = plot.getAxis("bottom")
        metrics = QFontMetricsF(axis.style["tickFont"] or axis.font())
        labels = [display_token(label, 8) for label in self.labels]
        widest = max(metrics.horizontalAdvance(label) for label in labels) + 6
        per_bar = plot.getViewBox().width() / count
        step = max(1, math.ceil(widest / per_bar)) if per_bar > 0 else count
        ticks = [(k, labels[k]) for k in range(0, count, step)]
        if ticks != getattr(plot, "shown_ticks", None):
            plot.shown_ticks = ticks
            axis.setTicks([ticks])

    def _refit(self, plot: pg.PlotWidget) -> None:
        self._fit_axis(plot)
        self._fit_title(plot)

    def _bars(self, title: str, short: str) -> pg.PlotWidget:
        plot = pg.PlotWidget(background="w", enableMenu=False)
        plot.titles = (title, short)
        plot.setTitle(title, size=_title_size())
        plot.setMouseEnabled(False, False)
        plot.hideButtons()
        plot.setMinimumHeight(round(self.BARS_MIN_HEIGHT * text_size.factor))
        plot.bars = pg.BarGraphItem(x=[], height=[], width=0.7, brush="#2171b5")
        plot.addItem(plot.bars)
        # Above MANY_KEYS keys: the row as an area, the followed key a line (see `_set_bars`).
        plot.area = pg.PlotDataItem([], [], fillLevel=0)
        plot.addItem(plot.area)
        plot.followed = pg.InfiniteLine(angle=90, pen=pg.mkPen("#ff8c00", width=2))
        plot.followed.hide()
        plot.addItem(plot.followed)
        plot.marks = []  # text at the place of keys without a bar of their own ("−∞", "0")
        left_to_right(plot.getPlotItem())  # the value axis on the left, in every language
        plot.getViewBox().sigResized.connect(lambda _box, p=plot: self._refit(p))
        return plot

    HIDDEN_COLOR = "#bdbdbd"  # method 1's hidden keys: fed to softmax, zeroed after it

    def show_row(self, trace: Trace, head: int, i: int) -> None:
        self.row = trace[trace.softmax_input][head, i].astype(np.float64)
        # Method 1 feeds softmax every score, hidden or not, and zeroes the hidden weights
        # after it; method 2's hidden scores are −∞ and have no bar.
        self.hidden = trace.mask[i] if trace.config.method_1 else None
        # Keys the mask hides from this row, by either method: their weights are 0.
        self.masked = trace.mask[i] if trace.config.has_mask else None
        self.labels = trace.k_tokens
        self.weights = trace.weights[head, i]
        self.key = i if i < len(self.labels) else None  # the followed token's own key
        self._set_bars(self.score_plot, self.row, "#b2182b", self.hidden)
        self._set_bars(self.weight_plot, self.weights, "#2171b5", zero=self.masked)
        self.masked_note.setVisible(bool(np.isneginf(self.row).any()))
        if self.hidden is None:
            scores_title = _tr("Scores fed to softmax (row {0})")
            weights_title = _tr("Weights = softmax(scores)")
        else:
            scores_title = _tr("Scores fed to softmax (row {0}, grey: hidden)")
            weights_title = _tr("Weights: softmax, hidden zeroed, ÷ visible sum")
        self._title(
            self.score_plot, scores_title.format(i + 1), _tr("Scores (row {0})").format(i + 1)
        )
        self._title(self.weight_plot, weights_title, _tr("Weights"))
        self._draw_sweep()

    def _set_bars(
        self,
        plot: pg.PlotWidget,
        heights: np.ndarray,
        color: str,
        hidden: np.ndarray | None = None,
        zero: np.ndarray | None = None,
    ) -> None:
        """Bars per key; hidden keys (−∞ scores) get no bar at all rather than a fake 0, but
        "−∞" written at their place: a missing bar looks exactly like a score of 0. Keys
        `hidden` marks (method 1's, whose finite scores softmax sees) are grey; keys `zero`
        marks (masked: weight 0, a bar of no height) are written "0"."""
        visible = np.isfinite(heights)
        x = np.arange(len(heights))
        if self._as_area(plot, heights, color, visible, x, zero):
            return
        plot.area.setData([], [])
        plot.followed.hide()
        brushes = None
        if hidden is not None:
            grey, own = QColor(self.HIDDEN_COLOR), QColor(color)
            brushes = [grey if h else own for h in hidden[visible].tolist()]
        plot.bars.setOpts(
            x=x[visible], height=heights[visible], width=0.7, brush=QColor(color), brushes=brushes
        )
        marks = {int(k): "−∞" for k in np.flatnonzero(np.isneginf(heights))}
        if zero is not None:
            marks.update({int(k): "0" for k in np.flatnonzero(zero & (heights == 0))})
        # At the bar's foot: above the zero line, or under it where every bar hangs below.
        above = not visible.any() or heights[visible].max() > 0
        self._set_marks(plot, marks, color, above)
        plot.setXRange(-0.6, len(heights) - 0.4, padding=0)
        self._fit_axis(plot)

    MANY_KEYS = 48  # above this many keys a row is drawn as an area, not bars

    def _as_area(
        self,
        plot: pg.PlotWidget,
        heights: np.ndarray,
        color: str,
        visible: np.ndarray,
        x: np.ndarray,
        zero: np.ndarray | None,
    ) -> bool:
        """A row of more than MANY_KEYS keys as a line over its filled area, the followed
        token's key marked, the masked keys said once ("250 masked keys: −∞ → weight 0"),
        never a label per key: at 256 keys the bars were a band of "−∞" labels with the
        real bars squeezed to the left. Whether it drew so."""
        if len(heights) <= self.MANY_KEYS:
            return False
        plot.bars.setOpts(x=[], height=[], width=0.7)
        fill = QColor(color)
        fill.setAlpha(90)
        plot.area.setData(x[visible], heights[visible], pen=pg.mkPen(color, width=1.5))
        plot.area.setFillBrush(fill)
        hidden = ~visible if zero is None else (~visible | (zero & (heights == 0)))
        count = int(hidden.sum())
        marks = {}
        if count:
            first = int(np.flatnonzero(hidden)[0])
            marks[first] = _tr("{0} masked keys: −∞ → weight 0").format(count)
        self._set_marks(plot, marks, color, True)
        for item in plot.marks[:1]:
            item.setAnchor((0.0, 1.0))  # from the first masked key rightwards
        if self.key is not None:
            plot.followed.setPos(self.key)
            plot.followed.show()
        plot.setXRange(-0.6, len(heights) - 0.4, padding=0)
        self._fit_axis(plot)
        return True

    @staticmethod
    def _set_marks(plot: pg.PlotWidget, marks: dict[int, str], color: str, above: bool) -> None:
        """`marks` (key → text) written at their keys' places in `plot`, in the window's
        text size; the text items are reused from one row to the next."""
        while len(plot.marks) < len(marks):
            item = pg.TextItem()
            plot.addItem(item)
            plot.marks.append(item)
        font = QFont(QApplication.font())  # the window's text size, as the tick labels
        font.setPointSizeF(font.pointSizeF() * 1.25)  # "−∞" is small in most fonts
        font.setBold(True)
        for item, (key, text) in zip(plot.marks, sorted(marks.items()), strict=False):
            item.setText(text, color=color)
            item.setFont(font)
            item.setAnchor((0.5, 1.0) if above else (0.5, 0.0))
            item.setPos(key, 0)
            item.show()
        for item in plot.marks[len(marks) :]:
            item.hide()

    def _draw_sweep(self) -> None:
        if self.row.size == 0:
            return
        k = float(self.factor.value())
        rows, entropies = sweep(self.row, np.array([k]), self.hidden)
        self.sweep_weights, self.sweep_entropy = rows[0], float(entropies[0])
        self._set_bars(self.sweep_plot, self.sweep_weights, "#6a51a3", zero=self.masked)
        if self.hidden is None:
            title = _tr("softmax({0} × scores)")
            visible = int(np.isfinite(self.row).sum())
        else:
            title = _tr("softmax({0} × scores), zeroed, ÷ sum")
            visible = int((~self.hidden).sum())
        self._title(self.sweep_plot, title.format(f"{k:g}"), _tr("k = {0}").format(f"{k:g}"))
        uniform = math.log(visible) if visible else 0.0
        at_one = entropy(sweep(self.row, np.ones(1), self.hidden)[0][0])
        self.entropy_text.setText(
            _tr(
                "Entropy at k = {0}: H = {1} nats (the row's weights: {2}; uniform over the {3} "
                "visible keys: ln {3} = {4}; one-hot: 0). Largest weight: {5}."
            ).format(
                f"{k:g}",
                num(self.sweep_entropy),
                num(at_one),
                visible,
                num(uniform),
                num(float(self.sweep_weights.max())),
            )
        )
