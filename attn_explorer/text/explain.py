"""explain(trace, name, head, i, j): one cell's derivation, written out with its real numbers.

Indices in the text count from 1, like the tutorials' x^(2) for "journey" and like the UI's
labels; the function itself takes 0-based indices, like numpy. The last number of every
derivation is the trace's own (float32) value, so a tooltip always agrees with the cell.
Each group of arrays is derived in a module of its own (`explain_inputs`, `explain_scores`,
`explain_softmax`, `explain_outputs`).

The words are translated (text.i18n), each sentence whole with named placeholders; a line that
is a formula alone ("ω[2,1] = q2·k1 = … = 1.2705") is not, as its symbols are the same in every
language. The errors below are a caller's mistake, never shown to a learner, and stay English.
"""

from __future__ import annotations

from attn_explorer.engine.arrays import ARRAY_INFO
from attn_explorer.engine.trace import Trace
from attn_explorer.text import explain_inputs, explain_outputs, explain_scores, explain_softmax
from attn_explorer.text.i18n import _

_EXPLAINERS = {
    **explain_inputs.EXPLAINERS,
    **explain_scores.EXPLAINERS,
    **explain_softmax.EXPLAINERS,
    **explain_outputs.EXPLAINERS,
}


def explain(trace: Trace, name: str, head: int, i: int, j: int) -> str:
    """The derivation of `trace[name]` at row i, column j of head `head` (all 0-based).

    For arrays without a head axis `head` is ignored; for vectors (biases) `i` must be 0.
    Raises KeyError for an array the trace does not have and IndexError outside its shape.
    """
    if name not in trace.arrays:
        raise KeyError(f"this trace has no array {name!r}")
    info = ARRAY_INFO[name]
    if info.per_head and not 0 <= head < trace.heads:
        raise IndexError(f"head {head} is outside 0..{trace.heads - 1}")
    matrix = trace.matrix(name, head if info.per_head else 0)
    if not (0 <= i < matrix.shape[0] and 0 <= j < matrix.shape[1]):
        raise IndexError(f"cell ({i}, {j}) is outside {name}'s shape {matrix.shape}")
    h = head if info.per_head else 0
    text = _EXPLAINERS[name](trace, name, h, i, j)
    if info.per_head and trace.heads > 1:
        text += "\n" + _("(head {head} of {heads})").format(head=h + 1, heads=trace.heads)
    return text
