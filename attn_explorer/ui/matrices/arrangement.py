"""Which matrices the Matrices tab shows, and in which rows, for the room it has.

On a 1024 × 768 projector the seven matrices side by side leave the scores and the weights
cells too small for any value. The learner looks at the scores and the weights; Q, K and V
matter least there (the step-through shows them one stage at a time), then the context, then
the mask (the hatching shows what it hides). The board tries the arrangements below in that
order and takes the first whose scores and weights write all four decimals; the notice under
the matrices says what gave way.

The choice depends on the room of the matrices' page and on what the matrices hold, never on
how they are laid out now: a choice that changed their sizes cannot change itself back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF

from attn_explorer.text.i18n import N_
from attn_explorer.ui.heatmap import CATEGORY_LABELS, MatrixPlot
from attn_explorer.ui.heatmap.axis import _widest
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.text_size import text_size

# The room of a plot besides its row labels and colour bar (margins, the spacing before the
# bar, the view's edge), and besides its title and column labels: measured on the window.
PLOT_EDGE_WIDTH = 14.0
PLOT_EDGE_HEIGHT = 6.0
LOOKED_AT = ("scores", "weights")  # the arrays the learner is looking at: whole, or give way


@dataclass(frozen=True)
class Arrangement:
    """Rows of matrices by their keys on the board, and the share of the height of each
    row; `shared_labels`: a matrix right of one of the same rows leaves its row labels to it
    (scores and weights side by side: the same queries). `gone` says what gave way."""

    rows: tuple[tuple[str, ...], ...]
    heights: tuple[int, ...]
    gone: str = ""
    shared_labels: bool = False

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key for row in self.rows for key in row)


FULL = Arrangement(
    (("scores", "mask", "weights"), ("queries", "keys", "values", "context")), (3, 2)
)
ARRANGEMENTS = (
    FULL,
    Arrangement(
        (("scores", "mask", "weights"),),
        (1,),
        N_("Q, K, V and the context hidden for want of room."),
    ),
    Arrangement(
        (("scores", "mask"), ("weights", "context")),
        (1, 1),
        N_("Q, K and V hidden for want of room."),
    ),
    Arrangement(
        (("scores", "mask"), ("weights",)),
        (1, 1),
        N_("Q, K, V and the context hidden for want of room."),
    ),
    Arrangement(
        (("scores", "weights"),),
        (1,),
        N_("The mask, Q, K, V and the context hidden for want of room."),
        shared_labels=True,
    ),
    Arrangement(
        (("scores",), ("weights",)),
        (1, 1),
        N_("The mask, Q, K, V and the context hidden for want of room."),
    ),
)


def _edges(plot: MatrixPlot, row_labels: bool) -> float:
    """The width of a plot besides its cells: its row labels, colour bar and margins."""
    left = _widest(plot.labels[0], plot.axis_font) + 6 if row_labels else 0.0
    bar = plot.colorbar
    bar_width = bar.minimumWidth() if bar is not None and plot.colorbar_shown else 0.0
    return left + bar_width + PLOT_EDGE_WIDTH


def _labels_shown(arrangement: Arrangement, index: int) -> bool:
    return not (arrangement.shared_labels and index > 0)


def widths(
    arrangement: Arrangement, keys: tuple[str, ...], plots: dict[str, MatrixPlot], across: float
) -> list[float]:
    """Each matrix's width in a row `across` wide. All seven keep their shares: 6 : 5 : 6
    for scores, mask and weights (a narrower mask would thin its six labels to three), 3 +
    columns below. Elsewhere the row's matrices get cells of one width (a mask's a third as
    wide: its 0s and 1s need a column a line wide), each its row labels and colour bar
    besides: the scores beside the weights that leave their row labels to them write their
    values as large."""
    if arrangement is FULL:
        shares = []
        for key in keys:
            matrix = plots[key].matrix
            if key in FULL.rows[0]:
                shares.append(5 if key == "mask" else 6)
            else:
                shares.append(3 + min(matrix.shape[1] if matrix is not None else 2, 8))
        return [across * share / sum(shares) for share in shares]
    edges, columns = [], []
    for index, key in enumerate(keys):
        plot = plots[key]
        edges.append(_edges(plot, _labels_shown(arrangement, index)))
        count = plot.matrix.shape[1] if plot.matrix is not None else 2
        columns.append(count / 3 if key == "mask" else count)
    cell = max(across - sum(edges), 0.0) / sum(columns)
    return [edge + count * cell for edge, count in zip(edges, columns, strict=True)]


class SharedFor:
    """What a page's widths were last shared out for (see `widths`): they are shared out
    again for a new room, arrangement, text size or what the matrices hold, and for a
    colour bar more than two digits wider or narrower than it was then; not for a bar of
    numbers widened on a seed move by a label it had not shown ("-0.75" after "-0.6").

    Shared out again, the row's every view would move, and be laid out and repainted whole
    in the pass of the move (10-17 ms of the window thread at 64 tokens, the burst's longest
    stall: docs/performance.md). The widened bar's few pixels come from its own cells
    instead, a pixel a cell at 6 tokens; unless that turns their column labels (`_held`)."""

    DIGITS = 2

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._bars: tuple[float, ...] = ()

    def forget(self) -> None:
        """Share out again at the next ask (the views were laid out anew)."""
        self._key = None

    def changed(
        self, arrangement: Arrangement, plots: dict[str, MatrixPlot], across: float
    ) -> bool:
        """Whether the widths must be shared out again; remembers them shared if so."""
        shown = [plots[key] for key in arrangement.keys]
        key = (across, arrangement, text_size.factor, tuple(_held(plot) for plot in shown))
        bars = tuple(_bar_width(plot) for plot in shown)
        if key == self._key and all(
            abs(now - then) <= self.DIGITS * plot.colorbar.digit
            for plot, now, then in zip(shown, bars, self._bars, strict=True)
            if plot.colorbar is not None
        ):
            return False
        self._key, self._bars = key, bars
        return True


def _held(plot: MatrixPlot) -> tuple:
    """What a plot's share of its row follows besides its bar of numbers: its labels and
    columns, which of its row labels and bar are shown, and its bar of words ("1 hidden");
    and how its column labels are written: cells narrowed by their own bar's few pixels
    that no longer fit them level ("journey" at 1024 px) have the row shared out again."""
    shape = None if plot.matrix is None else plot.matrix.shape
    words = plot.kind in CATEGORY_LABELS and plot.colorbar is not None
    bar = plot.colorbar.minimumWidth() if words else None
    columns = (plot.top_axis.angle, len(plot.tick_labels[1]))
    return (plot.labels, shape, plot.row_labels_shown, plot.colorbar_shown, bar, columns)


def _bar_width(plot: MatrixPlot) -> float:
    bar = plot.colorbar
    return bar.minimumWidth() if bar is not None and plot.colorbar_shown else 0.0


def how_written(plot: MatrixPlot, width: float, height: float, row_labels: bool = True) -> str:
    """How `plot` would write its values laid out `width` × `height` (see
    `CellTextItem.how_written`), from what it holds and its fonts: the room of its row
    labels, colour bar, title and column labels taken from its cells'."""
    if plot.matrix is None:
        return ""
    rows, cols = plot.matrix.shape
    font = plot.axis_font
    cell_width = (width - _edges(plot, row_labels)) / cols
    line = QFontMetricsF(font).height()
    widest = _widest(plot.labels[1], font)
    angle, stride = plot._column_labels(cell_width, widest, line)
    if angle == 0:
        axis = line + 6
    else:  # as TokenAxis.set_labels makes room for them
        radians = math.radians(angle)
        axis = min((widest - 6) * math.sin(radians) + line * math.cos(radians) + 8, 140)
    title = plot.title.minimumHeight()
    cell_height = (height - title - axis - PLOT_EDGE_HEIGHT) / rows
    if cell_width <= 0 or cell_height <= 0:
        return "hidden" if plot.cells.how_written(QRectF(0, 0, 1, 1)) else ""
    how = plot.cells.how_written(QRectF(0, 0, cell_width, cell_height))
    if how == "whole" and (stride > 1 or (row_labels and cell_height < line)):
        return "thinned"  # every value, not every token labelled (see MatrixPlot)
    return how


def written(
    arrangement: Arrangement,
    plots: dict[str, MatrixPlot],
    width: float,
    height: float,
    spacing: float,
    handle: float,
) -> dict[str, str]:
    """How each matrix of `arrangement` would write its values in a page `width` × `height`
    (rows `spacing` apart within, `handle` between)."""
    rows = arrangement.rows
    room = height - handle * (len(rows) - 1)
    total = sum(arrangement.heights)
    result = {}
    for keys, share in zip(rows, arrangement.heights, strict=True):
        row_height = room * share / total
        across = width - spacing * (len(keys) - 1)
        for index, (key, part) in enumerate(
            zip(keys, widths(arrangement, keys, plots, across), strict=True)
        ):
            labels = _labels_shown(arrangement, index)
            result[key] = how_written(plots[key], part, row_height, row_labels=labels)
    return result


def arranged_for(width: int, height: int, plots: dict[str, MatrixPlot]) -> tuple:
    """What the arrangement is chosen for: the room, the text size, each matrix's labels and
    shape. Not the values: a seed's wider scores ("-0.1473") must not move every matrix on a
    slider move."""
    shapes = tuple((p.labels, None if p.matrix is None else p.matrix.shape) for p in plots.values())
    return (width, height, text_size.factor, shapes)


def choose(
    plots: dict[str, MatrixPlot], width: float, height: float, spacing: float, handle: float
) -> Arrangement:
    """The first arrangement whose scores and weights write every value whole with every
    token labelled, and the others shown write theirs at all; else the first in which every
    matrix shown writes its values, at least in two decimals; else all seven (no
    arrangement writes values in so small a page, or the matrices are too big for
    values)."""
    shown = {"whole", "rounded", "thinned", ""}
    passes = (({"whole", ""}, shown), (shown, shown))
    for wanted, others_wanted in passes:
        for arrangement in ARRANGEMENTS:
            how = written(arrangement, plots, width, height, spacing, handle)
            looked_at = all(how[key] in wanted for key in LOOKED_AT)
            others = all(h in others_wanted for h in how.values())
            if looked_at and others:
                return arrangement
    return FULL


def notice_text(written: list[str], gone: str, controls_shown: bool, larger: bool) -> str:
    """The line under the matrices: what gave way (`gone`, untranslated), values left out
    or cut to two decimals for want of room (`written`: how each shown matrix writes
    them), and what makes room; "" when nothing is missing. The cells alone do not say why
    they are empty, nor the page where Q, K and V went."""
    if "hidden" in written:
        text = _tr("Values hidden where the cells are too small.")
    elif "rounded" in written:
        text = _tr("Values rounded to 2 decimals where the cells are too small for 4.")
    else:
        text = ""
    if gone:
        text = f"{_tr(gone)} {text}".strip()
    if not text:
        return ""
    if controls_shown and larger:
        room = _tr("F9 (hide the controls), a larger window or smaller text (Ctrl+−) makes room.")
    elif controls_shown:
        room = _tr("F9 (hide the controls) or a larger window makes room.")
    elif larger:
        room = _tr("A larger window or smaller text (Ctrl+−) makes room.")
    else:
        room = _tr("A larger window makes room.")
    return f"{text} {room}"
