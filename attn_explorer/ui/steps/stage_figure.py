"""One stage of the computation as a figure: title, formula, input and output matrices.

A `StageFigure` is a graphics layout, so the step-through shows it on screen and export draws
the very same object into PNG, SVG and PDF.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontMetricsF

from attn_explorer.engine import ARRAY_INFO, Step, Trace
from attn_explorer.text.steps import step_text
from attn_explorer.ui.heatmap import MatrixPlot, ShrinkingLabel
from attn_explorer.ui.heatmap.axis import _widest
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.trace_plots import (
    ALL_HEADS_STAGES,
    joint_levels,
    same_quantity,
    show_array,
)
from attn_explorer.ui.steps.matrix_row import MatrixRow
from attn_explorer.ui.steps.stage_panels import (
    MAX_CONCAT_HEADS,
    Panel,
    stage_panels,
)
from attn_explorer.ui.text_size import FIGURE_FACTOR, text_size

EXPORT_MARGIN = 24  # px round an exported figure
# A matrix's title in an exported figure stays 10 pt where its other text is enlarged
# (text_size.FIGURE_FACTOR): a title takes no width of its own, and enlarged, those of narrow
# matrices (Q, K, V, the W's) would be written smaller than their neighbours' to fit, or cut.
EXPORT_TITLE_POINTS = 10 / FIGURE_FACTOR
# What share of the width the estimated needs of a row (`_row_need`) may take and be met.
ESTIMATE_SHARE = 0.85
LARGE_TEXT = 1.75  # from this text size a row of matrices needs what its labels measure
# The projections' weights: neither the stage's input nor its output, and on the Matrices tab.
WEIGHTS = frozenset(("w_query", "w_key", "w_value"))


def stage_title(step: Step, summary: str) -> str:
    state = "" if step.applies else _tr(" <span style='color:#a15c00'>(skipped)</span>")
    return f"<b>{step_text(step).title}</b>{state} <span style='color:#666'>· {summary}</span>"


class StageFigure(pg.GraphicsLayout):
    """Title, formula, and the stage's matrices: inputs on the first row, outputs below."""

    cellClicked = Signal(object, int, int)  # the MatrixPlot, row, col
    cellHovered = Signal(object, object)  # the MatrixPlot, CellHover | None
    # A row of matrices needs less (or more) room than before: see `MatrixRow.leastChanged`.
    leastChanged = Signal()

    def __init__(self, follow_text_size: bool = True) -> None:
        """`follow_text_size`: on screen, text follows the window's text size (View menu);
        an exported figure passes False and keeps its own."""
        super().__init__()
        self.drawer = show_array  # the compare tools (ui/compare) draw A or B − A through it
        # Inputs → outputs, left to right in every language (right to left, the arrow
        # would point from the weights back to the scores).
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        # An exported figure keeps a margin all round, so that on a slide its last row of
        # matrices does not touch the edge.
        margin = 6 if follow_text_size else EXPORT_MARGIN
        self.setContentsMargins(margin, margin, margin, margin)
        self._follow = follow_text_size
        self.title = ShrinkingLabel("", size=self._size(13))
        self.formula = ShrinkingLabel("", size=self._size(13))
        self.reason = ShrinkingLabel("", size=self._size(11), color="#a15c00")
        if not follow_text_size:
            # An empty label (no reason: the stage applies) is as tall as its item's font,
            # which is the application's and grows with the window's text size: fix it.
            for label, points in ((self.title, 13), (self.formula, 13), (self.reason, 11)):
                font = QFont(label.item.font())
                font.setPointSizeF(text_size.points(points, follow=False))
                label.item.setFont(font)
        self.plots: list[MatrixPlot] = []
        # Plots and the arrow are made once and reused by every stage. A plot made per
        # stage change would never be freed (its signal connections hold it) and costs
        # tens of milliseconds to build.
        self._pool: list[MatrixPlot] = []
        self._arrow = pg.LabelItem("→")
        spacing = 2 if follow_text_size else 12  # a plot has margins of its own
        self._rows = (MatrixRow(follow_text_size, spacing), MatrixRow(follow_text_size, spacing))
        MatrixRow.join(self._rows)
        for row in self._rows:
            row.leastChanged.connect(self.leastChanged)
        self._layout_key: tuple | None = None
        self.key = ""
        self.panel_rows = 1  # rows of matrices: inputs and outputs side by side, or stacked
        self._stacked = False  # a stage of few matrices stacked for want of width
        # The colour bars given way for want of width (see `show_stage`); the step-through
        # says so under the stage.
        self.bars_hidden = False
        self._reason = ""
        # Matrices left out of the stage for want of width (the mask: see `show_stage`).
        self._dropped: frozenset[str] = frozenset()
        self._outputs: list[bool] = []  # of each plot, whether it is an output
        self._panels: list[Panel] = []  # drawn now
        self._weights_need = 0.0  # the projections' height with their weights drawn
        if follow_text_size:
            text_size.changed.connect(self._text_size_changed)

    def header_height(self) -> float:
        """The height of the title, formula and reason rows above the matrices; it grows
        with the text size."""
        labels = (self.title, self.formula, self.reason)
        spacing = max(self.layout.verticalSpacing(), 0)  # (-1: the style's, none here)
        return sum(label.minimumHeight() + spacing for label in labels)

    def _size(self, points: float) -> str:
        return f"{text_size.points(points, self._follow):g}pt"

    def _text_size_changed(self) -> None:
        """The next `show_stage` (the step-through redraws on a new size) rebuilds the layout
        in the new size; the matrices follow by themselves."""
        self._layout_key = None

    def show_stage(
        self,
        trace: Trace,
        key: str,
        head: int,
        query: int | None,
        summary: str = "",
        width: float | None = None,
        height: float = 0.0,
    ) -> None:
        """Draw stage `key`. `width`: the room on screen; where the stage's inputs and
        outputs side by side would write their values in fewer than four decimals and
        stacked, inputs over outputs, would write all four, they are stacked (a 1024-pixel
        projector: two 6×6 matrices side by side leave 34-px columns), where `height` (the
        room, with the panel under the stage's, which gives way) has a line for each row.
        Where neither writes all four decimals but one row without its colour bars would
        (200 % text at 1024 px: the bars' ticks alone take 140 px), the bars give way: the
        values written say more than the colours' key. At the mask stage the mask matrix
        goes next (the masked scores' hatching shows what it hides, as on the Matrices tab).
        At the projections stage the weights go first where the two rows leave X, Q, K
        and V a line short for each row (200 % text at 768 px labelled every other row):
        X → Q, K, V is the stage's point, the W's are on the Matrices tab.
        The reason line says what went."""
        self._dropped = frozenset()  # weighed again on each drawing, with the mask drawn
        self._draw(trace, key, head, query, summary)
        if width is None or not self._follow:
            self._hide_bars(False)
            return
        if key == "projections" and self._weights_in_the_way(height):
            self._dropped = WEIGHTS
            self._draw(trace, key, head, query, summary)
        stacked = (self._stack_mask_for if key == "mask" else self._stack_for)(width, height)
        if stacked != self._stacked:
            self._stacked = stacked
            self._draw(trace, key, head, query, summary)
        if key == "mask" and not stacked and self._mask_in_the_way(width):
            self._dropped = frozenset({"mask"})
            self._draw(trace, key, head, query, summary)
        self._hide_bars(False)  # weighed again on each drawing, with the bars drawn
        self._hide_bars(self._bars_in_the_way(width))

    def weigh_bars(self, width: float, height: float | None = None) -> bool:
        """Weigh the colour bars again on the figure as laid out now: a drawing weighs them
        on rows not yet at their new size (a new stage, a resized window). Whether the
        stage must be drawn again (its mask to leave, weighed on those rows too; the
        projections' weights to leave or come back, in a window of another `height`)."""
        if not self._follow or not self.plots:
            return False
        self._hide_bars(False)
        self._hide_bars(self._bars_in_the_way(width))
        if self.key == "projections" and height is not None:
            if WEIGHTS & self._dropped:
                return height >= self._weights_need or text_size.factor < LARGE_TEXT
            return self._weights_in_the_way(height)
        return (
            self.key == "mask"
            and not self._dropped
            and not self._stacked
            and self._mask_in_the_way(width)
        )

    def _hide_bars(self, hidden: bool) -> None:
        if hidden != self.bars_hidden:
            self.bars_hidden = hidden
            for row in self._rows:
                row.bars = not hidden
            for row in self._rows:
                row.arrange()
            self._write_reason()

    def _write_reason(self) -> None:
        """The stage's reason line, and where matrices or the colour bars gave way, a
        sentence saying so, each on a line of its own (see `header_height`: the figure's
        need counts them)."""
        said = [self._reason] if self._reason else []
        if "mask" in self._dropped:
            said.append(_tr("The mask matrix hidden for want of width: the hatching shows it."))
        if WEIGHTS & self._dropped:
            said.append(
                _tr(
                    "W<sub>q</sub>, W<sub>k</sub>, W<sub>v</sub> left out for want of height: on "
                    "the Matrices tab."
                )
            )
        if self.bars_hidden:
            said.append(_tr("Colour bars hidden so that the values fit."))
        # A line each: two sentences on one line were cut with "…" at 200 % text (in
        # Vietnamese, whose sentences are longer), and the second said what went.
        self.reason.setText("<br>".join(said), size=self._size(11), color="#a15c00")

    def _bars_in_the_way(self, width: float) -> bool:
        """Whether the stage's matrices, drawn with their colour bars, leave a value
        unwritten or rounded where without them each row would write all four decimals
        (by `_row_need`'s estimate). At a projector's text size only: at 100 % the rows' own
        sharing (MatrixRow) writes what fits, and the bars stay."""
        if text_size.factor < LARGE_TEXT:
            return False
        short = any(p.values_written() in ("rounded", "hidden") for p in self.plots)
        arrow = 28 * text_size.factor
        rows = [row._plots() for row in self._rows if row._plots()]
        return short and all(_row_need(plots, bars=False) + arrow <= width for plots in rows)

    def _weights_in_the_way(self, height: float) -> bool:
        """Whether the projections' two rows (the weights among the inputs) need more
        than `height` for a line per row of each matrix. At a projector's text size only:
        at 100 % the W's stay (the rows' own sharing writes what fits)."""
        if text_size.factor < LARGE_TEXT or not WEIGHTS & {p.name for p in self._panels}:
            return False
        rows = [row._plots() for row in self._rows if row._plots()]
        need = self.header_height() + 12 + sum(_row_height(plots) for plots in rows)
        self._weights_need = need  # (the W's come back where the height grows to it)
        return need > height

    def _mask_in_the_way(self, width: float) -> bool:
        """Whether the mask stage's row writes no value in `width` (not even two decimals:
        where it writes them it keeps its mask, see `_stack_mask_for`) and would write all
        four without the mask matrix (and the colour bars). At a projector's text size only
        (where a 1024-px row is short of them by its text alone)."""
        if text_size.factor < LARGE_TEXT:
            return False
        arrow = 28 * text_size.factor
        every = _row_need(self.plots, fine=False) + arrow
        others = [p for p in self.plots if p.shown is not None and p.shown.name != "mask"]
        return every > width * ESTIMATE_SHARE and _row_need(others, bars=False) + arrow <= width

    def _stack_for(self, width: float, height: float) -> bool:
        """Whether the stage's matrices, as filled now, should be stacked in `width` ×
        `height`."""
        inputs, outputs = self._sides()
        if not inputs or not outputs or len(self.plots) > 4:
            return False
        one_row = _row_need(inputs + outputs) + 28 * text_size.factor
        return (
            one_row > width
            and max(_row_need(inputs), _row_need(outputs)) <= width
            and self._stacked_need() <= height
        )

    def _stack_mask_for(self, width: float, height: float) -> bool:
        """The mask stage keeps its one row wherever that writes its values, even in two
        decimals: the panel under it (the two methods compared) is the stage's point, and
        stacking leaves it no room on a 1366 × 768 laptop. Where the row writes nothing
        (1024 × 768), the masked scores get a row of their own to write four decimals, and
        the panel gives way with its note."""
        inputs, outputs = self._sides()
        if not inputs or not outputs or len(self.plots) > 4:
            return False
        one_row = _row_need(inputs + outputs, fine=False) + 28 * text_size.factor
        return one_row > width and _row_need(outputs) <= width and self._stacked_need() <= height

    def _sides(self) -> tuple[list[MatrixPlot], list[MatrixPlot]]:
        """The plots of the stage's inputs, and of its outputs."""
        pairs = list(zip(self.plots, self._outputs, strict=True))
        return [p for p, out in pairs if not out], [p for p, out in pairs if out]

    def _stacked_need(self) -> float:
        inputs, outputs = self._sides()
        return self.header_height() + 12 + _row_height(inputs) + _row_height(outputs)

    def least_height(self) -> float:
        """The height the figure needs for every row of its matrices labelled, where its
        input is stacked over its output, or all in one row (else 0): what is under the
        stage gives way to it (see StageRoom.figure_need)."""
        if self._stacked:
            return self._stacked_need()
        if self.panel_rows == 1 and self._follow and text_size.factor >= LARGE_TEXT:
            # At a projector's text size slanted column labels take more than the row's
            # fixed share (StageRoom.figure_need); at 100 % that share writes the values.
            return self.header_height() + 12 + _row_height(self.plots, spare=1.0)
        return 0.0

    def _draw(self, trace: Trace, key: str, head: int, query: int | None, summary: str) -> None:
        step = trace.step(key)
        panels = [p for p in stage_panels(trace, key, head) if p.name not in self._dropped]
        self._panels = panels
        self._outputs = [p.output for p in panels]
        layout_key = (key, tuple((p.name, p.head, p.output) for p in panels), self._stacked)
        rebuilt = layout_key != self._layout_key
        if rebuilt:
            self._rebuild(panels)
            self._layout_key = layout_key
        self.key = key
        self.title.setText(stage_title(step, summary), size=self._size(13))
        self.formula.setText(step_text(step).formula_html, size=self._size(13))
        reason = step_text(step).reason
        if key == "concat" and trace.heads > MAX_CONCAT_HEADS:
            if trace.heads == MAX_CONCAT_HEADS + 1:  # not "heads 9–9"
                reason = _tr(
                    "Z of heads 1–{0} drawn on their own; head {1} is in Z_cat, not drawn apart."
                ).format(MAX_CONCAT_HEADS, trace.heads)
            else:
                reason = _tr(
                    "Z of heads 1–{0} drawn on their own; heads {1}–{2} are in Z_cat, not drawn "
                    "apart."
                ).format(MAX_CONCAT_HEADS, MAX_CONCAT_HEADS + 1, trace.heads)
        self._reason = reason
        self._write_reason()
        shared = same_quantity(trace, key)  # arrays every trace holds
        if key == "softmax" and "weights_zeroed" in trace.arrays:
            # Method 1's zeroing changes softmax(ω̃) only where it hides: one scale (and one
            # colour bar) for both, as for the other stages that change one quantity.
            shared = ("weights_unmasked", "weights_zeroed")
        levels_head = None if key in ALL_HEADS_STAGES else head
        levels = joint_levels(trace, shared, levels_head) if shared else None
        for plot, panel in zip(self.plots, panels, strict=True):
            title = None
            if key == "concat" and not panel.output and trace.heads > 1:
                # Z₂ as in the formula above, and the number before "head": a title too
                # long for a narrow head loses its last words, and the number is the one
                # word that tells the heads apart.
                title = _tr("<b>Z<sub>{0}</sub></b> head {0}").format(panel.head + 1)
            panel_levels = levels if panel.name in shared else None
            self.drawer(plot, trace, panel.name, panel.head, levels=panel_levels, title=title)
            is_query_rows = ARRAY_INFO[panel.name].rows == "q_tokens"
            plot.set_highlight(query if is_query_rows else None)
            if rebuilt and plot.colorbar is not None:
                # A plot reused from another stage keeps its colour bar's width (the mask's
                # "1 hidden"), and that much less room for its cells, until fitted anew.
                plot.colorbar.fit_labels()
        for row in self._rows:  # new shapes, labels or values: new widths
            row.arrange()

    def _rebuild(self, panels: list[Panel]) -> None:
        self.clear()
        for plot in self._pool:
            plot.clear()  # a plot left out must not keep the old trace's arrays alive
        self.plots = []
        inputs = [p for p in panels if not p.output]
        outputs = [p for p in panels if p.output]
        one_row = len(panels) <= 4 and not self._stacked
        self.panel_rows = 1 if one_row else 2
        self.addItem(self.title, row=0, col=0)
        self.addItem(self.formula, row=1, col=0)
        self.addItem(self.reason, row=2, col=0)
        first = [self._plot() for _ in inputs]
        second = [self._plot() for _ in outputs]
        fixed = {}
        if one_row:
            if inputs:
                scale = text_size.points(1, self._follow)
                self._arrow.setText("→", size=self._size(20))
                self._arrow.setMaximumWidth(28 * scale)
                fixed[id(self._arrow)] = 28 * scale
                first.append(self._arrow)
            first += second
            second = []
        self._rows[0].set_items(first, fixed)
        self._rows[1].set_items(second)
        # Each row of matrices is sized by what its matrices hold (see MatrixRow), not laid
        # in one grid: there each column would take the width of its longest title, and a
        # lone output under eight heads (Z_cat) would have to span their columns.
        self.addItem(self._rows[0], row=3, col=0)
        if second:
            self.addItem(self._rows[1], row=4, col=0)

    def _plot(self) -> MatrixPlot:
        if len(self.plots) == len(self._pool):
            points = 10 if self._follow else EXPORT_TITLE_POINTS
            plot = MatrixPlot(title_points=points, follow_text_size=self._follow)
            plot.cellClicked.connect(lambda r, c, p=plot: self.cellClicked.emit(p, r, c))
            plot.cellHovered.connect(lambda hover, p=plot: self.cellHovered.emit(p, hover))
            self._pool.append(plot)
        plot = self._pool[len(self.plots)]
        self.plots.append(plot)
        return plot


def _row_height(plots: list[MatrixPlot], spare: float = 1.2) -> float:
    """The least height of a row of matrices with every row labelled: a title, column
    labels (lying flat over a matrix alone in its row, which has their width; else
    slanted), a line per row, margins."""
    tallest = 0.0
    for plot in plots:
        if plot.matrix is not None:
            line = QFontMetricsF(plot.axis_font).height()
            axis, extra = line + 6, 1.0
            widest = _widest(plot.labels[1], plot.axis_font)
            if len(plots) > 1 and widest > _whole_width(plot):
                # Slanted, with a fifth to spare: beside others the rows' layout
                # (MatrixRow) spends more on labels and spacing than counted here.
                axis, extra = min(widest * 0.71 + line * 0.71 + 8, 140), spare
            rows = plot.matrix.shape[0]
            least = plot.title.minimumHeight() + axis + 8 + rows * (line + 1)
            tallest = max(tallest, least * extra)
    return tallest


def _row_need(plots: list[MatrixPlot], fine: bool = True, bars: bool = True) -> float:
    """The width matrices side by side need to write every value in four decimals (in two
    where not `fine`): each one's colour bar (where `bars`), row labels (once for
    neighbours of the same rows) and margins, and its columns as wide as its longest value
    in the smallest size that writes it whole."""
    need = 0.0
    before: tuple = ()
    widest: dict[tuple, float] = {}  # matrices of one shape get one width (MatrixRow)
    for plot in plots:
        if plot.matrix is not None:
            shape = plot.matrix.shape
            widest[shape] = max(widest.get(shape, 0.0), _whole_width(plot, fine))
    for plot in plots:
        if plot.matrix is None:
            continue
        cols = plot.matrix.shape[1]
        whole = widest[plot.matrix.shape]
        labels = plot.labels[0]
        left = _widest(labels, plot.axis_font) + 6 if labels != before else 0.0
        before = labels
        bar = plot.colorbar.minimumWidth() if bars and plot.colorbar is not None else 0.0
        need += left + bar + 14 + cols * whole
    return need


def _whole_width(plot: MatrixPlot, fine: bool = True) -> float:
    """The least cell width in which `plot` writes its values in full (in two decimals
    where not `fine`); 0 where it writes none (a big matrix)."""
    cells = plot.cells
    wanted = cells._texts[0 if fine else 1]
    widths = [w for texts, _f, w, _h in cells._choices() if texts is wanted]
    return min(widths, default=0.0)
