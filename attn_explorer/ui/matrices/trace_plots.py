"""Drawing one array of a trace into a MatrixPlot: the single place that decides how each
array is labelled, coloured and hatched, for the live views, the step-through and export."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from attn_explorer.engine import ARRAY_INFO, Trace
from attn_explorer.text.titles import array_symbol, array_title
from attn_explorer.ui.heatmap import MatrixPlot, levels_for
from attn_explorer.ui.heatmap.containers import set_attributes
from attn_explorer.ui.i18n import tr as _tr

if TYPE_CHECKING:
    from attn_explorer.ui.widgets import HeadBox


@dataclass(frozen=True)
class Shown:
    """What one plot shows: an array of the trace, for one head."""

    name: str
    head: int


def kind_of(name: str) -> str:
    return {"mask": "mask", "dropout_keep": "keep"}.get(name, ARRAY_INFO[name].kind)


# Arrays computed after the mask: their masked cells are hatched, not coloured.
AFTER_MASK = frozenset(
    (
        "masked_scores",
        "weights",
        "weights_dropped",
        "weights_neg_inf",
        "weights_renormalize",
        "weights_zeroed",
    )
)
# The keep-mask is not among them: dropout draws it for every cell, hidden or not, and the
# tutorial prints it whole (its upper triangle hatched read as "not drawn").


def hidden_cells(trace: Trace, name: str) -> np.ndarray | None:
    """Cells to hatch: masked positions of arrays that come after the mask. Mask method 1
    feeds softmax every score, hidden or not: its scores fed to softmax are not hatched."""
    if name == "masked_scores" and trace.config.method_1:
        return None
    after = name in AFTER_MASK or (name == "scaled_scores" and trace.config.mask_first)
    return trace.mask if after and trace.config.has_mask else None


def holds_neg_inf(trace: Trace, name: str) -> bool:
    """Whether array `name` writes −∞ in its hidden cells: the masked scores, and the scaled
    ones where the raw scores were masked first (−∞ / √d_k = −∞)."""
    return name == "masked_scores" or (name == "scaled_scores" and trace.config.mask_first)


def _levels(trace: Trace, name: str, values: np.ndarray) -> tuple[float, float]:
    """The colour scale of `values` of array `name`, its masked cells (−∞) left out."""
    hidden = hidden_cells(trace, name)
    if hidden is not None:
        values = np.where(hidden, np.nan, values)  # (n_q, n_k) mask over ([heads,] n_q, n_k)
    return levels_for(kind_of(name), values)


def shared_levels(trace: Trace, name: str) -> tuple[float, float]:
    """One colour scale for every head of an array (the all-heads grid), masked cells aside."""
    return _levels(trace, name, trace[name])


# Stages whose output is their first input's quantity changed by the step: both get one
# colour scale, so the change itself is seen (dividing by √d_k pales the scores, the mask
# leaves the visible scores as they were, dropout brightens the weights it keeps). Each plot
# on its own scale would draw the before and after of the scaling in the very same colours.
# Concatenation only moves the heads' values side by side: the same value keeps its colour.
SAME_QUANTITY_STAGES = frozenset(("scale", "mask", "dropout", "concat"))


def same_quantity(trace: Trace, key: str) -> tuple[str, ...]:
    """The arrays of stage `key` drawn on one colour scale: the first array its step reads
    and the one it writes (`Step.reads`, `Step.writes`), which follow the order this trace
    computed them in (tutorial 000's masks the raw scores, then divides them)."""
    if key not in SAME_QUANTITY_STAGES:
        return ()
    step = trace.step(key)
    return step.reads[0], step.writes[0]


# Stages that show every head at once, so their scale spans every head.
ALL_HEADS_STAGES = frozenset(("concat",))


def joint_levels(trace: Trace, names: tuple[str, ...], head: int | None) -> tuple[float, float]:
    """The widest of the colour scales the arrays `names` of one head (of every head, for
    None) would each get."""
    scales = [
        _levels(trace, name, trace[name] if head is None else trace.matrix(name, head))
        for name in names
    ]
    return min(low for low, _ in scales), max(high for _, high in scales)


def head_within(head: int, trace: Trace | None) -> int:
    """The head drawn for a chosen `head`: within the trace's heads. Head 4 chosen shows as
    head 2 while there are two, and comes back when an undo restores four; a session may
    name a head its configuration does not have."""
    return head if trace is None else min(max(head, 0), trace.heads - 1)


class HeadChoice:
    """The head a view (the board, the step-through) chose in its `head_box`, and the head it
    draws of its `trace`."""

    head_box: HeadBox
    trace: Trace | None

    @property
    def shown_head(self) -> int:
        return head_within(self.head, self.trace)

    @property
    def head(self) -> int:
        """The head chosen (see HeadBox)."""
        return self.head_box.head

    @head.setter
    def head(self, head: int) -> None:
        self.head_box.head = head

    def set_head(self, head: int) -> None:
        """Choose a head (one the trace has)."""
        self.head_box.choose(head)


def head_note(trace: Trace, head: int, per_head: bool = True) -> str:
    """ " · head 2" after a title, where there is more than one head to tell apart."""
    return _tr(" · head {0}").format(head + 1) if per_head and trace.heads > 1 else ""


def show_array(
    plot: MatrixPlot,
    trace: Trace,
    name: str,
    head: int,
    *,
    levels: tuple[float, float] | None = None,
    title: str | None = None,
) -> None:
    """Draw one array of a trace into a plot, labelled with its tokens and dimensions."""
    info = trace.info(name)
    matrix = trace.matrix(name, head)
    if matrix.dtype == bool:
        matrix = matrix.astype(np.float32)
    plot.set_matrix(
        matrix,
        kind=kind_of(name),
        # A vector's one row is named by its symbol: an empty label would read "␣", a token.
        rows=trace.axis_labels(info.rows, _tr)
        if info.rows is not None
        else (array_symbol(trace.config, name),),
        cols=trace.axis_labels(info.cols, _tr),
        hidden=hidden_cells(trace, name),
        name=name,
        levels=levels,
        neg_inf_text=holds_neg_inf(trace, name),
    )
    shape = "×".join(map(str, matrix.shape))
    head_text = head_note(trace, head, info.per_head)
    name_text = array_title(trace.config, name)
    if name == "masked_scores" and not trace.config.has_mask:
        name_text = _tr("Scores fed to softmax (no mask)")  # "masked" would claim a mask
    if title is None and name == "mask" and not trace.config.has_mask:
        title = _tr("<b>Mask</b> <span style='color:#666'>none: every key is visible</span>")
    plot.set_title(
        title or f"<b>{name_text}</b>{head_text} <span style='color:#666'>{shape}</span>"
    )
    set_attributes(plot, shown=Shown(name, head))  # a plot's own, set on every move
    if info.rows != "q_tokens":
        # Rows of keys or dimensions: a followed query's outline left from the array this
        # plot showed before (the all-heads grid switching to Keys K) would mark a key.
        plot.set_highlight(None)
