"""Which matrices a stage figure draws, read from the engine's `Step.reads` and `Step.writes`.

The engine's step says what a stage computes from what; the figure draws that, inputs on
the left (or above), outputs after them, with two kinds of array left out:

- vectors (`ArrayInfo.rows` is None: the biases b_q, b_k, b_v, b_o). A one-row heatmap
  beside the matrices it is added to says little; the worked lines and hovers write them.
- `SIDE_ARRAYS`, which softmax writes for other views: method 1's visible row sums (the
  worked line divides by them) and the two masking methods' weights, which the mask stage's
  own panel compares side by side.
"""

from __future__ import annotations

from dataclasses import dataclass

from attn_explorer.engine import ARRAY_INFO, Step, Trace

# Written by the softmax step for the worked lines and the mask stage's comparison panel.
SIDE_ARRAYS = frozenset(("row_sums", "weights_neg_inf", "weights_renormalize"))
# The concat stage draws each head's Z apart, up to this many.
MAX_CONCAT_HEADS = 8


@dataclass(frozen=True)
class Panel:
    """One matrix of a stage figure: array `name` of head `head`."""

    name: str
    head: int
    output: bool


def drawn(trace: Trace, names: tuple[str, ...]) -> tuple[str, ...]:
    """The arrays of `names` that a stage figure draws (see the module)."""
    return tuple(
        name
        for name in names
        if name in trace.arrays and ARRAY_INFO[name].rows is not None and name not in SIDE_ARRAYS
    )


def stage_arrays(trace: Trace, key: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What stage `key` shows of this trace: its inputs, then its outputs."""
    step: Step = trace.step(key)
    return drawn(trace, step.reads), drawn(trace, step.writes)


def stage_panels(trace: Trace, key: str, head: int) -> list[Panel]:
    """The matrices of stage `key` for head `head`, in the order they are drawn. The concat
    stage reads every head's Z: each is drawn apart (up to `MAX_CONCAT_HEADS`)."""
    inputs, outputs = stage_arrays(trace, key)
    panels: list[Panel] = []
    for names, output in ((inputs, False), (outputs, True)):
        for name in names:
            if key == "concat" and not output and trace.heads > 1:
                heads = range(min(trace.heads, MAX_CONCAT_HEADS))
                panels += [Panel(name, h, output) for h in heads]
            else:
                panels.append(Panel(name, head, output))
    return panels
