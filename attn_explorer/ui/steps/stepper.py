"""Step through the computation: one stage at a time, on the live configuration.

The learner's path through the tutorials: each stage shows its formula, its input and output
matrices, and the followed query token's numbers written out (like the tutorials' worked example
for x^(2) "journey"). The softmax stage adds tutorial 004's lesson (softmax sharpening as its
inputs grow); the mask stage puts the two masking methods side by side.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TR_NOOP, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QColor,
    QFont,
    QFontMetrics,
    QFontMetricsF,
    QKeySequence,
    QTransform,
)
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QTabBar,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.engine import ARRAY_INFO, STEP_KEYS, Trace, step_keys
from attn_explorer.engine.softmax_lab import entropy, sweep
from attn_explorer.text.explain import explain
from attn_explorer.text.numbers import num
from attn_explorer.text.steps import step_text
from attn_explorer.ui.heatmap import CellHover, MatrixPlot, display_token, left_to_right
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.keys import keep_own_keys, send_undo_to_document
from attn_explorer.ui.matrices.trace_plots import HeadChoice, joint_levels, show_array
from attn_explorer.ui.steps.stage_figure import MatrixRow, StageFigure
from attn_explorer.ui.steps.worked_lines import followed_text
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import (
    FormulaText,
    HeadBox,
    ShrinkButton,
    SliderSpin,
    elide_words,
    formula_font,
)

PLAY_MS = 2500
EXTRAS_MAX_HEIGHT = 330  # the softmax and mask panels under a stage's matrices
FIGURE_MIN_HEIGHT = 200  # the stage figure's view, at the least
# A row of a stage's matrices at 100 % text, before the panel under them gives way: six
# tokens' values, their labels and a title (times the text size).
MATRIX_ROW_MIN_HEIGHT = 150
STAGE_LABELS = (
    QT_TR_NOOP("X"),
    QT_TR_NOOP("Q, K, V"),
    QT_TR_NOOP("Q·Kᵀ"),
    QT_TR_NOOP("Scale"),
    QT_TR_NOOP("Mask"),
    QT_TR_NOOP("Softmax"),
    QT_TR_NOOP("Dropout"),
    QT_TR_NOOP("α·V"),
    QT_TR_NOOP("Concat"),
    QT_TR_NOOP("Out"),
)

STAGE_LABEL = dict(zip(STEP_KEYS, STAGE_LABELS, strict=True))


def _title_size() -> str:
    return f"{text_size.points(10):g}pt"


class StageTabs(QTabBar):
    """The ten stages as a row of tabs, all in sight: in a narrow window the longest names
    shorten first ("5 Soft…"), then names give way to their numbers ("5"), the whole name
    staying in the tab's tooltip. Qt's own eliding shortened every tab alike, short names
    too, and to "3 ..." and "8 ...": as long as "3 Q·Kᵀ" and "8 α·V", and unreadable."""

    def __init__(self, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setExpanding(False)
        self.setDrawBase(False)
        self.setUsesScrollButtons(False)
        self.setElideMode(Qt.TextElideMode.ElideNone)  # the texts set always fit
        self.names = names
        for number, name in enumerate(names, start=1):
            self.addTab(f"{number} {name}")

    def choices(self, index: int) -> list[str]:
        """The tab's texts, longest first: its name, a shortened name, its number."""
        number, name = index + 1, self.names[index]
        texts = [f"{number} {name}"]
        if len(name) >= 7:
            texts.append(f"{number} {name[:4].rstrip(' ,')}…")
        texts.append(str(number))
        return texts

    def set_names(self, names: list[str]) -> None:
        """Name the tabs anew (the stages in another order), fitted as before."""
        if names == self.names:
            return
        self.names = names
        for index, name in enumerate(names):
            self.setTabText(index, f"{index + 1} {name}")
        self.fit()

    def _width(self, index: int, text: str) -> int:
        metrics = self.fontMetrics()
        frame = super().tabSizeHint(index).width() - metrics.horizontalAdvance(self.tabText(index))
        return frame + metrics.horizontalAdvance(text) + 1

    def fit(self) -> None:
        """Texts that fit the bar's width; called by the step-through on a resize and a new
        text size. (No Python overrides of the bar's virtual functions here: one of
        minimumTabSizeHint, or of resizeEvent, crashed a later QApplication.allWidgets()
        in the test suite.)"""
        least = sum(self._width(i, str(i + 1)) for i in range(self.count()))
        if least != self.minimumWidth():
            self.setMinimumWidth(least)  # the numbers alone
        if not self.isVisible():
            return  # its width is not the one it will be shown at: fitted when shown
        count = self.count()
        level = [0] * count
        widths = [self._width(i, self.choices(i)[0]) for i in range(count)]
        room = self.width()
        while sum(widths) > room:
            shorter = [i for i in range(count) if level[i] < len(self.choices(i)) - 1]
            if not shorter:
                break
            widest = max(shorter, key=lambda i: widths[i])
            level[widest] += 1
            widths[widest] = self._width(widest, self.choices(widest)[level[widest]])
        for i in range(count):
            text = self.choices(i)[level[i]]
            if text != self.tabText(i):
                self.setTabText(i, text)


class SoftmaxPanel(QWidget):
    """Bars of one row's scores beside its weights, and a sweep of softmax(k × scores)."""

    FACTOR_MIN, FACTOR_MAX = 0.05, 100.0

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        # missing bar read as a score of 0, the very idea the tutorial argues against.
        self.masked_note = QLabel(
            _tr(
                "−∞: a masked key, not a score of 0. exp(−∞) = 0, so softmax gives it weight "
                "0; a score of 0 would get exp(0) = 1 before dividing by the sum."
            )
        )
        self.masked_note.setWordWrap(True)
        self.masked_note.hide()
        layout.addWidget(self.masked_note)
        controls = QHBoxLayout()
        controls.addWidget(QLabel(_tr("Multiply the scores by k:")))
        self.factor = SliderSpin(self.FACTOR_MIN, self.FACTOR_MAX, step=0.01, decimals=2, log=True)
        self.factor.setValue(1.0)
        self.factor.setToolTip(
            _tr(
                "Scale this row's scores before softmax: large k sharpens the weights toward "
                "one-hot, small k flattens them toward uniform (tutorial 004, figure 5)."
            )
        )
        controls.addWidget(self.factor, 1)
        self.why = QPushButton(_tr("Why √dₖ? Show me"))
        self.why.setToolTip(
            _tr(
                "Loads 8 tokens with random 16-dimensional unit-variance embeddings, sets d_out "
                "to 64 and switches √d_k scaling off: the scores grow like √d_k and softmax "
                "saturates toward one-hot. Tick “Divide by √d_k” to see the weights spread "
                "again. Ctrl+Z restores your work."
            )
        )
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
        whichever fits: at 1024 px "Scores fed to softmax (row 2)" was cut at "(row"."""
        title, short = plot.titles
        label = plot.getPlotItem().titleLabel
        room = plot.width() - 8
        for text in (title, short):
            plot.setTitle(text, size=_title_size())
            if label.item.boundingRect().width() <= room:
                return
        font = QFont(label.item.font())
        font.setPointSizeF(text_size.points(10))  # the size _title_size() writes
        plot.setTitle(elide_words(short, QFontMetrics(font), room), size=_title_size())

    def _fit_axis(self, plot: pg.PlotWidget) -> None:
        """Every key's label where the bars are wide enough, else every k-th: at 1024 px the
        labels ran together ("Yourjourney")."""
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
        "−∞" written at their place: a missing bar looked exactly like a score of 0. Keys
        `hidden` marks (method 1's, whose finite scores softmax sees) are grey; keys `zero`
        marks (masked: weight 0, a bar of no height) are written "0"."""
        visible = np.isfinite(heights)
        x = np.arange(len(heights))
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


class MaskMethodsPanel(QWidget):
    """Method 1 (softmax, zero, renormalize) beside method 2 (−∞, softmax): they agree."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.view.setBackground("w")
        self.method1 = MatrixPlot(title_points=10)
        self.method2 = MatrixPlot(title_points=10)
        # Side by side at one width, whatever their titles' lengths (see MatrixRow).
        self.row = MatrixRow()
        self.view.addItem(self.row, row=0, col=0)
        self.row.set_items([self.method1, self.method2])
        self._fit_text_size()
        text_size.changed.connect(self._fit_text_size)
        layout.addWidget(self.view, 1)
        self.difference = QLabel()
        layout.addWidget(self.difference)
        self.largest = 0.0

    VIEW_MIN_HEIGHT = 220  # at 100 % text

    def _fit_text_size(self) -> None:
        self.view.setMinimumHeight(round(self.VIEW_MIN_HEIGHT * text_size.factor))

    def show_methods(self, trace: Trace, head: int, query: int | None) -> None:
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


class LessonLabel(QLabel):
    """The example's lesson under a stage: as tall as `fit_height` says, and no part of the
    window's least size (at 200 % a fixed height kept the window from a 720-pixel screen):
    the step-through gives it the room the matrices and the panel leave, or none."""

    def __init__(self) -> None:
        super().__init__()
        self._height = 0

    def wrapped_height(self, width: int) -> int:
        """Its height at `width` with the text it holds (wrapped or not)."""
        if self.wordWrap():
            return super().heightForWidth(width)
        return super().sizeHint().height()

    def fit_height(self, height: int) -> None:
        if height != self._height:
            self._height = height
            self.setMaximumHeight(height)
            self.updateGeometry()

    def hasHeightForWidth(self) -> bool:  # the height is the one fitted, not the text's
        return False

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self._height)

    def minimumSizeHint(self) -> QSize:
        return QSize(0, 0)


class FigureView(pg.GraphicsView):
    """Shows the stage figure whole: as large as the view, or, where the figure cannot be
    laid out that small (a large text size in a small window), laid out at its least size
    and drawn smaller to fit.

    pyqtgraph's view sizes its figure to itself on a resize only, and Qt grows a figure to a
    larger least size but never shrinks it back: sixteen heads opened at the concat stage at
    1024 × 768 measured 830 px wide while their labels were laid out, and stayed so in a
    636 px view, their title, reason, eighth head and Z_cat cut off at the right. At 250 %
    the output projection's 761 px stood in a 701 px view. Drawn smaller, every matrix and
    its labels stay in sight; cut, the right of a figure was lost without a sign."""

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


class StepThrough(HeadChoice, QWidget):
    """The step-through tab: stage list, navigation, stage figure, followed token, panels."""

    querySelected = Signal(int)
    stageChanged = Signal(str)
    headChanged = Signal(int)
    whyScaling = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trace: Trace | None = None
        self.stage = STEP_KEYS[0]
        # The stages in the order the trace computed them (tutorial 000's masks first).
        self.keys = STEP_KEYS
        self.query: int | None = 1
        self.summary = ""
        text_size.changed.connect(self._text_size_changed)

        # The stages as a row of tabs: it costs a line of height, not a column of width.
        self.stages = StageTabs([_tr(label) for label in STAGE_LABELS])

        # At a large text size on a small screen the buttons keep their arrows only.
        self.prev_button = ShrinkButton(_tr("◀ Previous"), "◀")
        self.play_button = ShrinkButton(_tr("▶ Play"), "▶")
        self.play_button.setCheckable(True)
        self.next_button = ShrinkButton(_tr("Next ▶"), "▶")
        self.prev_button.setToolTip(_tr("Previous stage (←)"))
        self.next_button.setToolTip(_tr("Next stage (→)"))
        self.play_button.setToolTip(
            _tr("Walk through the stages that apply to this configuration (Space)")
        )
        self.head_box = HeadBox(_tr("Which head the per-head matrices show"))

        self.figure = StageFigure()
        self.figure_view = FigureView(self.figure)
        # Matrices and numbers read left to right in every language ("-0.15", not "0.15-").
        self.figure_view.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.figure_view.setMinimumHeight(FIGURE_MIN_HEIGHT)
        # The followed query's header and up to four lines (q, k, v and a sum with biases).
        self.followed = FormulaText(lines=5)
        # The two panels (five plots) are built when first shown: most sessions start on the
        # matrices tab, and every plot costs startup time.
        self._softmax_panel: SoftmaxPanel | None = None
        self._mask_panel: MaskMethodsPanel | None = None
        self.extras = QStackedWidget()
        self.extras.addWidget(QWidget())
        # Says what a window too short for the panel leaves out, and how to get it back.
        self.extras_left_out = QLabel()
        self.extras_left_out.setObjectName("extrasLeftOut")
        self.extras_left_out.setWordWrap(True)
        self.extras_left_out.setIndent(6)  # the followed query's text starts there too
        self.extras_left_out.hide()
        # The loaded example's lesson, as the matrices tab writes it under its matrices: the
        # step-through said nothing of which tutorial's numbers it walks through.
        self.lesson = LessonLabel()
        self.lesson.setObjectName("lesson")
        self.lesson.setWordWrap(True)
        self.lesson.setTextFormat(Qt.TextFormat.PlainText)
        self.lesson.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.lesson.setStyleSheet(
            "QLabel#lesson { background: #fafafa; padding: 4px; border-top: 1px solid #ddd; }"
        )
        self.lesson.setFont(formula_font(text_size.points(10.5)))
        self.lesson.hide()
        self._lesson_text = ""

        # The stages get a row of their own, so that all ten names fit a laptop's window.
        nav = QHBoxLayout()
        for widget in (self.prev_button, self.play_button, self.next_button):
            nav.addWidget(widget)
        nav.addStretch(1)
        nav.addWidget(QLabel(_tr("Head")))
        nav.addWidget(self.head_box)
        right = QVBoxLayout()
        right.addWidget(self.stages)
        right.addLayout(nav)
        right.addWidget(self.figure_view, 3)
        right.addWidget(self.followed)
        right.addWidget(self.extras, 1)  # its height is bounded in resizeEvent
        right.addWidget(self.extras_left_out)
        right.addWidget(self.lesson)
        self._right = right
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(right, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_MS)
        self.timer.timeout.connect(self._play_step)
        self.stages.currentChanged.connect(self._stage_row_chosen)
        self.prev_button.clicked.connect(lambda: self.step_by(-1))
        self.next_button.clicked.connect(lambda: self.step_by(1))
        self.play_button.toggled.connect(self._play)
        self.head_box.headChosen.connect(self._head_chosen)
        self.figure.cellClicked.connect(self._clicked)
        self.figure.cellHovered.connect(self._hovered)
        # Keys of this tab only (named: Help > Keyboard Shortcuts lists them).
        self.key_actions: list[QAction] = []
        for text, key, slot in (
            (_tr("Previous stage"), Qt.Key.Key_Left, lambda: self.step_by(-1)),
            (_tr("Next stage"), Qt.Key.Key_Right, lambda: self.step_by(1)),
            (
                _tr("Play or pause the walk through the stages"),
                Qt.Key.Key_Space,
                self.play_button.toggle,
            ),
        ):
            action = QAction(text, self)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
            self.key_actions.append(action)
        self._stage_row_chosen(0)
        self._fit_stages()

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)
        self._fit_stages()
        self._fit_extras()

    def _fit_stages(self) -> None:
        least = self.stages.minimumWidth()
        self.stages.fit()
        if self.stages.minimumWidth() != least:
            self._right.invalidate()  # (a sub-layout keeps its old least width otherwise)

    def figure_need(self) -> float:
        """The least height of the stage figure's view: its title, formula and reason, and
        MATRIX_ROW_MIN_HEIGHT per row of matrices, both in the window's text size."""
        rows = self.figure.panel_rows * MATRIX_ROW_MIN_HEIGHT * text_size.factor
        margins = 12  # the figure's own
        return max(FIGURE_MIN_HEIGHT, self.figure.header_height() + rows + margins)

    def _fit_extras(self) -> None:
        """The stage's matrices come first. The panel below them (softmax bars, the mask
        methods) gets at most a third of the height (330 px in a tall window) and never less
        than it needs; where that would leave the matrices less than `figure_need` it is
        left out. A fixed 200 px for the whole figure was not enough: at 1024 × 700, or at
        200 % on a 1080p projector, the title and formula took most of it and the matrices
        were strips 8–40 px tall without numbers, beside a full-size panel.
        Decided on screen only: a page laid out before the window has its size would have
        grown the window past a small screen."""
        need = self.extras.currentWidget().minimumSizeHint().height()
        above = (
            self.stages.sizeHint().height()
            + self.prev_button.sizeHint().height()
            + self.followed.height()
            + math.ceil(self.figure_need())
            + 4 * max(self.layout().spacing(), 6)
        )
        room = self.height() - above  # what the panel may take and leave the figure its need
        wanted = self.extras.currentIndex() != 0 and self.isVisible()
        # The lesson takes what the panel leaves (all of it where the panel is left out).
        room -= self._fit_lesson(room - (need if wanted and room >= need else 0))
        cap = min(EXTRAS_MAX_HEIGHT, self.height() // 3, room)
        self.extras.setMaximumHeight(max(need, cap, 0))
        self.extras.setVisible(wanted and room >= need)
        left_out = wanted and room < need
        if left_out:
            self.extras_left_out.setText(self._left_out_text())
        self.extras_left_out.setVisible(left_out)

    def _left_out_text(self) -> str:
        """At 150 % text the mask stage lost its comparison of the methods, and the softmax
        stage its bars and the √d_k demo, without a word."""
        if self.extras.currentWidget() is self._softmax_panel:
            return _tr(
                "The softmax bars, the sharpening slider and “Why √d_k?” (also in the Examples "
                "menu) need more height: a taller window, or smaller text (Ctrl+-)."
            )
        return _tr(
            "The comparison of the two masking methods needs more height: a taller window, "
            "or smaller text (Ctrl+-)."
        )

    @property
    def softmax_panel(self) -> SoftmaxPanel:
        if self._softmax_panel is None:
            self._softmax_panel = SoftmaxPanel()
            self._softmax_panel.why.clicked.connect(self.whyScaling)
            self.extras.addWidget(self._softmax_panel)
            keep_own_keys(self._softmax_panel)  # built on first use, after the window
            send_undo_to_document(self._softmax_panel)
        return self._softmax_panel

    @property
    def mask_panel(self) -> MaskMethodsPanel:
        if self._mask_panel is None:
            self._mask_panel = MaskMethodsPanel()
            self.extras.addWidget(self._mask_panel)
            keep_own_keys(self._mask_panel)
        return self._mask_panel

    def show_lesson(self, text: str) -> None:
        """The loaded example's lesson under the stage (none: `text` empty)."""
        if text != self._lesson_text:
            self._lesson_text = text
            self._fit_extras()

    def _fit_lesson(self, room: float) -> int:
        """Write the lesson whole where `room` (what the matrices and the panel leave) has
        space for it, else on one line cut with "…" and whole in its tooltip: at 1024 × 768
        its four lines left out the softmax bars. The height it takes, with the spacing."""
        text = self._lesson_text
        if not text:
            self.lesson.hide()
            return 0
        spacing = max(self.layout().spacing(), 6)
        width = max(self.width(), 1)
        self.lesson.setWordWrap(True)
        self.lesson.setText(text)
        whole = self.lesson.wrapped_height(width)
        if whole + spacing <= room:
            self.lesson.setToolTip("")
            self.lesson.fit_height(whole)
            self.lesson.show()
            return whole + spacing
        inner = width - 8 - 2  # the style's padding, a pixel of slack each side
        cut = self.lesson.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, inner)
        self.lesson.setWordWrap(False)
        self.lesson.setText(cut)
        self.lesson.setToolTip(text if cut != text else "")
        one_line = self.lesson.wrapped_height(width)
        self.lesson.fit_height(one_line)
        line = one_line + spacing
        # Not even a line: the matrices and the panel come first (the examples' box and the
        # matrices tab still say it).
        self.lesson.setVisible(line <= room)
        return line if line <= room else 0

    # ------------------------------------------------------------------ state from outside
    def set_trace(self, trace: Trace, summary: str = "") -> None:
        self.trace = trace
        self.summary = summary
        # A followed query beyond the new trace (fewer tokens, or a session opened with
        # them) is brought within it, so that what is drawn and what an export draws agree.
        # The chosen head is kept (see `shown_head`).
        if self.query is not None:
            self.query = min(self.query, trace.config.n_q - 1)
        self.head_box.show_heads(trace.heads)
        self._order_stages(step_keys(trace.config))
        self._label_stages(trace)
        if self.isVisible():
            self.redraw()

    def showEvent(self, event: object) -> None:
        super().showEvent(event)
        self._fit_stages()
        self.redraw()  # traces that arrived while hidden were only stored

    def set_query(self, row: int | None) -> None:
        self.query = row
        if self.isVisible():
            self.redraw()

    def set_stage(self, key: str) -> None:
        self.stages.setCurrentIndex(self.keys.index(key))

    def step_by(self, delta: int) -> None:
        row = min(max(self.stages.currentIndex() + delta, 0), len(self.keys) - 1)
        self.stages.setCurrentIndex(row)

    def _order_stages(self, keys: tuple[str, ...]) -> None:
        """The tabs in the order of `keys`, the stage shown staying the one shown (the mask
        and the scale swap places when the raw scores are masked first)."""
        if keys == self.keys:
            return
        self.keys = keys
        self.stages.blockSignals(True)
        self.stages.set_names([_tr(STAGE_LABEL[key]) for key in keys])
        self.stages.setCurrentIndex(keys.index(self.stage))
        self.stages.blockSignals(False)
        row = self.stages.currentIndex()
        self.prev_button.setEnabled(row > 0)
        self.next_button.setEnabled(row < len(keys) - 1)

    # ------------------------------------------------------------------ drawing
    def _label_stages(self, trace: Trace) -> None:
        for row, step in enumerate(trace.steps):
            self.stages.setTabTextColor(row, QColor("#111111" if step.applies else "#a0a0a0"))
            tip = (
                f"{step_text(step).title}: {step_text(step).formula}"
                if step.applies
                else f"{step_text(step).title}: {step_text(step).reason}"
            )
            self.stages.setTabToolTip(row, tip)

    def _text_size_changed(self) -> None:
        self.lesson.setFont(formula_font(text_size.points(10.5)))
        if self.isVisible():
            self.redraw()  # the stage figure re-lays out for the new text size
            # The panels' new fonts reach them as events: weigh the room once they have.
            QTimer.singleShot(0, self._fit_extras)
        QTimer.singleShot(0, self, self._fit_stages)  # not after the tab is gone

    def redraw(self) -> None:
        if self.trace is None:
            return
        trace = self.trace
        head = self.shown_head
        # The query may be set (a session's view) before the trace of its tokens arrives.
        query = None if self.query is None else min(self.query, trace.config.n_q - 1)
        self.figure.show_stage(trace, self.stage, head, query, self.summary)
        self.followed.setText(followed_text(trace, self.stage, head, query or 0))
        if self.stage == "softmax":
            self.extras.setCurrentWidget(self.softmax_panel)
            self.softmax_panel.show_row(trace, head, query or 0)
        elif self.stage == "mask" and "weights_neg_inf" in trace.arrays:
            self.extras.setCurrentWidget(self.mask_panel)
            self.mask_panel.show_methods(trace, head, query)
        else:
            self.extras.setCurrentIndex(0)
        self._fit_extras()

    def _stage_row_chosen(self, row: int) -> None:
        if 0 <= row < len(self.keys):
            self.stage = self.keys[row]
            self.prev_button.setEnabled(row > 0)
            self.next_button.setEnabled(row < len(self.keys) - 1)
            self.redraw()
            self.stageChanged.emit(self.stage)

    def _head_chosen(self, index: int) -> None:
        self.redraw()
        self.headChanged.emit(index)

    def _play(self, on: bool) -> None:
        if on:
            self.play_button.set_texts(_tr("❚❚ Pause"), "❚❚")
        else:
            self.play_button.set_texts(_tr("▶ Play"), "▶")
        if on:
            if self._next_applying() is None:
                self.stages.setCurrentIndex(0)  # from the end: start again
            self.timer.start()
        else:
            self.timer.stop()

    def _play_step(self) -> None:
        """Move on to the next stage that applies; a stage that does not (no mask, no
        dropout) shows only why, which Next still lands on but Play need not wait for."""
        row = self._next_applying()
        if row is None:
            self.play_button.setChecked(False)
        else:
            self.stages.setCurrentIndex(row)

    def _next_applying(self) -> int | None:
        later = range(self.stages.currentIndex() + 1, len(self.keys))
        if self.trace is None:
            return later[0] if later else None
        return next((row for row in later if self.trace.steps[row].applies), None)

    def _clicked(self, plot: MatrixPlot, row: int, col: int) -> None:
        if plot.shown is not None and ARRAY_INFO[plot.shown.name].rows == "q_tokens":
            self.set_query(row)
            self.querySelected.emit(row)

    def _hovered(self, plot: MatrixPlot, hover: CellHover | None) -> None:
        if hover is None or self.trace is None or plot.shown is None:
            QToolTip.hideText()
            return
        text = explain(self.trace, plot.shown.name, plot.shown.head, hover.row, hover.col)
        if hover.screen_pos is not None:
            QToolTip.showText(hover.screen_pos.toPoint(), text)
