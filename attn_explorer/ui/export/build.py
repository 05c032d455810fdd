"""A figure's graphics layout, built from the same items as the screen: the title, the
matrices or the stage, the followed query's worked lines, and the caption that lets the
figure be read alone.

The layout is not yet laid out or painted: `render` lays it out at a size and paints it.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Sequence

import pyqtgraph as pg
from PySide6.QtGui import QFont

from attn_explorer.engine import ARRAY_INFO, Trace
from attn_explorer.text.summaries import config_summary
from attn_explorer.text.titles import array_title
from attn_explorer.text.tokens import quote_token
from attn_explorer.ui.export.fonts import figure_font
from attn_explorer.ui.export.spec import FigureSpec, check_spec
from attn_explorer.ui.heatmap import (
    CATEGORY_LABELS,
    CMAPS,
    HIGHLIGHT,
    ColorBar,
    MatrixPlot,
    ShrinkingLabel,
)
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.trace_plots import (
    head_note,
    kind_of,
    same_quantity,
    shared_levels,
    show_array,
)
from attn_explorer.ui.steps.stage_figure import (
    EXPORT_MARGIN,
    EXPORT_TITLE_POINTS,
    MatrixRow,
    StageFigure,
)
from attn_explorer.ui.steps.worked_lines import followed_text, matrices_text
from attn_explorer.ui.text_size import text_size

MATRIX_VIEWS = ("scores", "mask", "weights", "queries", "keys", "values", "context")


def _title(text: str) -> ShrinkingLabel:
    """A figure's title, in the size a stage's title has (see text_size.FIGURE_FACTOR)."""
    return ShrinkingLabel(text, size=f"{text_size.points(13, follow=False):g}pt")


def _worked_lines(text: str) -> ShrinkingLabel:
    """The followed query's lines (`followed_text`, `matrices_text`), left-aligned under the
    matrices, in a fixed 11 pt (not the window's text size, nor enlarged for the figure as
    its labels are: softmax's line of sums fills a 1400 px figure at 11 pt)."""
    lines = [html.escape(line).replace("  ", "&nbsp; ") for line in text.split("\n")]
    lines[0] = f"<b>{lines[0]}</b>"
    return _text_block(lines, 11, "#222222")


def _text_block(lines: Sequence[str], points: float, color: str) -> ShrinkingLabel:
    """Lines of HTML, left-aligned under the figure, in `points` whatever the window's text
    size (the label's font is the application's, which follows it)."""
    label = ShrinkingLabel("<br>".join(lines), size=f"{points:g}pt", justify="left", color=color)
    font = QFont(label.item.font())
    font.setPointSizeF(points)
    label.item.setFont(font)
    return label


def _highlight(plot: MatrixPlot, query: int | None) -> None:
    """Outline the followed query's row where the plot has a row per query token."""
    plot.set_highlight(query if ARRAY_INFO[plot.shown.name].rows == "q_tokens" else None)


def _short_title(plot: MatrixPlot) -> str:
    """A plot's name as its title writes it in bold, without its formula or note: "Masked
    scores", "Mask", "Scores" for "Scores ω = Q·Kᵀ"."""
    match = re.search(r"<b>(.*?)</b>", plot.title.text)
    name = html.unescape(re.sub(r"<[^>]+>", "", match.group(1) if match else plot.shown.name))
    return re.split(r" \(| [ωα=]", name)[0]


def _lower_first(name: str) -> str:
    """ "Attention weights" in a sentence: "attention weights" (and "Queries Q": "queries Q")."""
    return name[:1].lower() + name[1:]


def _listed(names: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(names) < 2:
        return "".join(names)
    return _tr("{0} and {1}").format(", ".join(names[:-1]), names[-1])


def figure_caption(trace: Trace, spec: FigureSpec, plots: Sequence[MatrixPlot]) -> list[str]:
    """The legend a figure needs to be read alone (pasted into a slide): how its attention
    matrices are laid out, what the orange box and the hatching are, what the colour bars
    measure. A line of what applies, then one about the colours; none at all where none of
    the first applies (keys K, the weight matrices alone: nothing to explain but colours).

    Text with ▭ for the box (drawn orange by `_caption`); built from the plots as drawn, so
    it cannot name a box or a hatching the figure does not show.
    """
    cfg = trace.config
    clauses = []
    attention = [
        plot
        for plot in plots
        if (ARRAY_INFO[plot.shown.name].rows, ARRAY_INFO[plot.shown.name].cols)
        == ("q_tokens", "k_tokens")
    ]
    if attention and len(attention) == len(plots):
        clauses.append(_tr("Rows: queries · columns: keys"))
    elif attention:
        names = list(dict.fromkeys(_short_title(plot) for plot in attention))
        names = [names[0]] + [_lower_first(name) for name in names[1:]]
        clauses.append(_tr("{0}: rows are queries, columns keys").format(_listed(names)))
    query = spec.query
    if (
        query is not None
        and 0 <= query < cfg.n_q
        and any(ARRAY_INFO[plot.shown.name].rows == "q_tokens" for plot in plots)
    ):
        token = quote_token(cfg.tokens[query])
        clauses.append(_tr("▭ followed query {0} {1}").format(query + 1, token))
    if any(plot.hidden is not None for plot in plots):
        if cfg.causal and cfg.valid_len is not None:
            clauses.append(_tr("hatched: hidden by the causal and padding masks"))
        elif cfg.causal:
            clauses.append(_tr("hatched: hidden by the causal mask"))
        else:
            clauses.append(_tr("hatched: hidden by the padding mask"))
    if not clauses:
        return []
    lines = [" · ".join(clauses)]
    measured = [plot for plot in plots if plot.kind not in CATEGORY_LABELS]  # bars say 0/1
    if spec.kind == "array" and len(plots) > 1:  # every head, one bar
        name = _lower_first(array_title(trace.config, spec.name))
        lines.append(_tr("Colour bar: {0}, one scale for every head").format(name))
    elif len(measured) == 1 and len(plots) == 1:
        lines.append(_tr("Colour bar: {0}").format(_lower_first(_short_title(plots[0]))))
    elif measured:
        if all(plot.colorbar_shown for plot in plots if plot.colorbar is not None):
            line = _tr("Each colour bar: the values of the matrix on its left")
        else:  # neighbours on one scale share one bar (see MatrixRow)
            line = _tr("Each colour bar: the values of the matrix, or matrices, on its left")
        if spec.kind == "stage" and same_quantity(trace, spec.name):
            line += _tr("; the step's input and output on one scale")
        lines.append(line)
    return lines


def _caption(lines: Sequence[str]) -> ShrinkingLabel:
    """The caption's lines, small and grey under everything else, the box drawn in its
    colour."""
    box = f"<span style='color:{HIGHLIGHT.name()}'>▭</span>"
    escaped = [html.escape(line).replace("▭", box) for line in lines]
    return _text_block(escaped, text_size.points(9, follow=False), "#555555")


def build_figure(trace: Trace, spec: FigureSpec, vector: bool = False) -> pg.GraphicsLayout:
    """The figure's graphics layout (title, token labels, colour bars), not yet laid out; its
    text in the shipped font (see `fonts`), in which `render` lays it out and paints it."""
    check_spec(trace, spec)
    with figure_font():
        return _build(trace, spec, vector)


def _build(trace: Trace, spec: FigureSpec, vector: bool) -> pg.GraphicsLayout:
    summary = config_summary(trace.config)
    head = spec.head or 0
    if spec.kind == "stage":
        figure = StageFigure(follow_text_size=False)
        figure.show_stage(trace, spec.name, head, spec.query, summary)
        plots = figure.plots
        if spec.query is not None:
            # A handout carries the arithmetic the lecture showed, written under the matrices
            # as the step-through writes it.
            below = figure.layout.rowCount()  # the last row of matrices, however many
            text = followed_text(trace, spec.name, head, spec.query)
            figure.addItem(_worked_lines(text), row=below, col=0)
    else:
        figure = pg.GraphicsLayout()
        margin = EXPORT_MARGIN  # a margin all round, for a slide
        figure.setContentsMargins(margin, margin, margin, margin)
        plots = []
        if spec.kind == "matrices":
            title = _tr("<b>Attention</b>{0} · {1}").format(head_note(trace, head), summary)
            figure.addItem(_title(title), 0, 0)
            names = {"scores": spec.scores, "weights": spec.weights}
            for key in MATRIX_VIEWS:
                plot = MatrixPlot(title_points=EXPORT_TITLE_POINTS, follow_text_size=False)
                show_array(plot, trace, names.get(key, key), head)
                plots.append(plot)
            # Scores, mask and weights above; Q, K, V and the output below. Each row is
            # centred, its cells alike in size across both rows (see MatrixRow): a grid of
            # four columns would leave a quarter blank above, and give the 6×6 scores the
            # smallest cells and the 6×2 Q, K, V huge ones.
            # Each matrix keeps its row labels: the figure stands for the window's board.
            rows = (MatrixRow(False, 12, compact=False), MatrixRow(False, 12, compact=False))
            MatrixRow.join(rows)
            rows[0].set_items(plots[:3])
            rows[1].set_items(plots[3:])
            figure.addItem(rows[0], 1, 0)
            figure.addItem(rows[1], 2, 0)
            figure.layout.setVerticalSpacing(16)  # the rows' labels apart
            if spec.query is not None and 0 <= spec.query < trace.config.n_q:
                # As under a stage: the followed query's weights and what they make of V,
                # so the outlined rows are read with their numbers.
                text = matrices_text(trace, spec.weights, head, spec.query)
                figure.addItem(_worked_lines(text), 3, 0)
        elif spec.head is None and ARRAY_INFO[spec.name].per_head and trace.heads > 1:
            plots = _all_heads(figure, trace, spec.name, summary)
        else:
            info = trace.info(spec.name)
            head_text = head_note(trace, head, info.per_head)
            title = array_title(trace.config, spec.name)
            figure.addItem(_title(f"<b>{title}</b>{head_text} · {summary}"), 0, 0)
            plot = MatrixPlot(title_points=EXPORT_TITLE_POINTS, follow_text_size=False)
            figure.addItem(plot, 1, 0)
            show_array(plot, trace, spec.name, head)
            plots.append(plot)
    figure.plots = plots
    for plot in plots:
        plot.image.vector_cells = vector
        plot.set_caching(False)  # cached items would be drawn into SVG/PDF as bitmaps
        # Outlines and hatching in plain pens: every SVG renderer, and a PNG at any scale,
        # draws them as at 1× (see OutlineItem).
        plot.set_device_pens(True)
        # The values keep the window's 10 pt (8 where that does not fit), not enlarged with
        # the rest of the figure's text: enlarged, the seven matrices' 6×6 scores would not
        # fit their cells and fall back to a smaller size than the values beside them in Q.
        plot.cells.set_scale(1.0)
        _highlight(plot, spec.query)
    figure.caption = figure_caption(trace, spec, plots)
    if figure.caption:
        below = figure.layout.rowCount()
        columns = max(figure.layout.columnCount(), 1)
        figure.addItem(_caption(figure.caption), row=below, col=0, colspan=columns)
    return figure


def _all_heads(
    figure: pg.GraphicsLayout, trace: Trace, name: str, summary: str
) -> list[MatrixPlot]:
    """Every head of one array in a grid, on one shared colour scale and colour bar."""
    columns = math.ceil(math.sqrt(trace.heads))
    rows = math.ceil(trace.heads / columns)
    figure.addItem(
        _title(
            _tr("<b>{0}</b> · all {1} heads · {2}").format(
                array_title(trace.config, name), trace.heads, summary
            )
        ),
        0,
        0,
        1,
        columns + 1,
    )
    kind = kind_of(name)
    levels = shared_levels(trace, name)
    plots = []
    for h in range(trace.heads):
        plot = MatrixPlot(colorbar=False, title_points=EXPORT_TITLE_POINTS, follow_text_size=False)
        figure.addItem(plot, 1 + h // columns, h % columns)
        show_array(plot, trace, name, h, levels=levels, title=_tr("<b>head {0}</b>").format(h + 1))
        plots.append(plot)
    bar = ColorBar(CMAPS[kind], follow_text_size=False)
    bar.set_levels(*levels, CATEGORY_LABELS.get(kind), any(plot.over for plot in plots))
    figure.addItem(bar, 1, columns, rows, 1)
    return plots
