"""One stage of the computation as a figure: title, formula, input and output matrices.

A `StageFigure` is a graphics layout, so the step-through shows it on screen and export draws
the very same object into PNG, SVG and PDF.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont

from ..engine import ARRAY_INFO, Step, Trace
from .heatmap import MatrixPlot, ShrinkingLabel
from .i18n import tr as _tr
from .text_size import text_size
from .trace_plots import ALL_HEADS_STAGES, SAME_QUANTITY, joint_levels, show_array

# What each stage shows: inputs, then outputs (names missing from a trace are left out).
STAGE_ARRAYS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "embeddings": ((), ("x", "x_kv")),
    "projections": (("x", "x_kv", "w_query", "w_key", "w_value"), ("queries", "keys", "values")),
    "scores": (("queries", "keys"), ("scores",)),
    "scale": (("scores",), ("scaled_scores",)),
    "mask": (("scaled_scores", "mask"), ("masked_scores",)),
    # Mask method 1's own steps (softmax(ω̃), zeroed) are in its traces only.
    "softmax": (("masked_scores",), ("weights_unmasked", "weights_zeroed", "weights")),
    "dropout": (("weights", "dropout_keep"), ("weights_dropped",)),
    "context": (("weights_dropped", "values"), ("head_contexts",)),
    "concat": (("head_contexts",), ("concat",)),
    "out_proj": (("concat", "w_out"), ("context",)),
}
MAX_CONCAT_HEADS = 8


@dataclass(frozen=True)
class Panel:
    """One matrix of a stage figure: array `name` of head `head`."""

    name: str
    head: int
    output: bool


def stage_panels(trace: Trace, key: str, head: int) -> list[Panel]:
    inputs, outputs = STAGE_ARRAYS[key]
    panels: list[Panel] = []
    for names, output in ((inputs, False), (outputs, True)):
        for name in names:
            if name not in trace.arrays:
                continue
            if key == "concat" and not output and trace.heads > 1:
                heads = range(min(trace.heads, MAX_CONCAT_HEADS))
                panels += [Panel(name, h, output) for h in heads]
            else:
                panels.append(Panel(name, head, output))
    if key == "projections" and "w_query" not in trace.arrays:
        # No projection: Q, K and V are X itself.
        panels = [p for p in panels if p.output or p.name in ("x", "x_kv")]
    return panels


def stage_title(step: Step, summary: str) -> str:
    state = "" if step.applies else _tr(" <span style='color:#a15c00'>(skipped)</span>")
    return f"<b>{step.title}</b>{state} <span style='color:#666'>· {summary}</span>"


class StageFigure(pg.GraphicsLayout):
    """Title, formula, and the stage's matrices: inputs on the first row, outputs below."""

    cellClicked = Signal(object, int, int)  # the MatrixPlot, row, col
    cellHovered = Signal(object, object)  # the MatrixPlot, CellHover | None

    def __init__(self, follow_text_size: bool = True) -> None:
        """`follow_text_size`: on screen, text follows the window's text size (View menu);
        an exported figure passes False and keeps its own."""
        super().__init__()
        # Inputs → outputs, left to right in every language (right to left, the arrow
        # pointed from the weights back to the scores).
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.setContentsMargins(6, 6, 6, 6)
        self._follow = follow_text_size
        self.title = ShrinkingLabel("", size=self._size(13))
        self.formula = ShrinkingLabel("", size=self._size(13))
        self.reason = ShrinkingLabel("", size=self._size(11), color="#a15c00")
        if not follow_text_size:
            # An empty label (no reason: the stage applies) is as tall as its item's font,
            # which is the application's and grows with the window's text size: fix it.
            for label, points in ((self.title, 13), (self.formula, 13), (self.reason, 11)):
                font = QFont(label.item.font())
                font.setPointSizeF(points)
                label.item.setFont(font)
        self.plots: list[MatrixPlot] = []
        # Plots and the arrow are made once and reused by every stage. A plot made per
        # stage change would never be freed (its signal connections hold it) and costs
        # tens of milliseconds to build.
        self._pool: list[MatrixPlot] = []
        self._arrow = pg.LabelItem("→")
        self._layout_key: tuple | None = None
        self.key = ""
        self.panel_rows = 1  # rows of matrices: inputs and outputs side by side, or stacked
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
        self, trace: Trace, key: str, head: int, query: int | None, summary: str = ""
    ) -> None:
        step = trace.step(key)
        panels = stage_panels(trace, key, head)
        layout_key = (key, tuple((p.name, p.head, p.output) for p in panels))
        if layout_key != self._layout_key:
            self._rebuild(panels)
            self._layout_key = layout_key
        self.key = key
        self.title.setText(stage_title(step, summary), size=self._size(13))
        self.formula.setText(step.formula_html, size=self._size(13))
        reason = step.reason
        if key == "concat" and trace.heads > MAX_CONCAT_HEADS:
            reason = _tr(
                "Z of heads 1–{0} drawn on their own; heads {1}–{2} are in Z_cat, not drawn apart."
            ).format(MAX_CONCAT_HEADS, MAX_CONCAT_HEADS + 1, trace.heads)
        self.reason.setText(reason, size=self._size(11), color="#a15c00")
        shared = SAME_QUANTITY.get(key, ())  # arrays every trace holds
        levels_head = None if key in ALL_HEADS_STAGES else head
        levels = joint_levels(trace, shared, levels_head) if shared else None
        for plot, panel in zip(self.plots, panels, strict=True):
            title = None
            if key == "concat" and not panel.output and trace.heads > 1:
                title = _tr("<b>Z</b> head {0}").format(panel.head + 1)
            panel_levels = levels if panel.name in shared else None
            show_array(plot, trace, panel.name, panel.head, levels=panel_levels, title=title)
            is_query_rows = ARRAY_INFO[panel.name].rows == "q_tokens"
            plot.set_highlight(query if is_query_rows else None)

    def _rebuild(self, panels: list[Panel]) -> None:
        self.clear()
        for plot in self._pool:
            plot.clear()  # a plot left out must not keep the old trace's arrays alive
        self.plots = []
        inputs = [p for p in panels if not p.output]
        outputs = [p for p in panels if p.output]
        one_row = len(panels) <= 4
        self.panel_rows = 1 if one_row else 2
        columns = (
            len(panels) + (1 if one_row and inputs else 0)
            if one_row
            else max(len(inputs), len(outputs), 1)
        )
        self.addItem(self.title, row=0, col=0, colspan=columns)
        self.addItem(self.formula, row=1, col=0, colspan=columns)
        self.addItem(self.reason, row=2, col=0, colspan=columns)
        if one_row:
            for col in range(len(inputs)):
                self._add_plot(3, col)
            first_output = len(inputs)
            if inputs:
                scale = text_size.points(1, self._follow)
                self._arrow.setText("→", size=self._size(20))
                self._arrow.setMaximumWidth(36 * scale)
                self.addItem(self._arrow, row=3, col=first_output)
                self.layout.setColumnStretchFactor(first_output, 0)
                self.layout.setColumnMaximumWidth(first_output, 40 * scale)
                first_output += 1
            for col in range(first_output, first_output + len(outputs)):
                self._add_plot(3, col)
        else:
            for col, _ in enumerate(inputs):
                self._add_plot(3, col)
            # One output under many inputs (Z_cat under eight heads) spans their width; in
            # one column of eight it was too narrow to read.
            span = columns if len(outputs) == 1 else 1
            for col, _ in enumerate(outputs):
                self._add_plot(4, col, span)

    def _add_plot(self, row: int, col: int, colspan: int = 1) -> None:
        if len(self.plots) == len(self._pool):
            plot = MatrixPlot(title_points=10, follow_text_size=self._follow)
            plot.cellClicked.connect(lambda r, c, p=plot: self.cellClicked.emit(p, r, c))
            plot.cellHovered.connect(lambda hover, p=plot: self.cellHovered.emit(p, hover))
            self._pool.append(plot)
        plot = self._pool[len(self.plots)]
        self.layout.setColumnStretchFactor(col, 1)
        self.addItem(plot, row=row, col=col, colspan=colspan)
        self.plots.append(plot)
