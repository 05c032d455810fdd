"""Two traces side by side: B − A for every array, and the first stage whose arrays differ.

A learner's questions are comparisons (what does dividing by √d_k change, what does head 2
contribute), so the engine answers them as numbers: `compare(a, b)` pins nothing and draws
nothing. Two arrays of different shapes are compared where that means something: a token
axis cut to the tokens both have (the first n positions are the same positions), never a
dimension axis (the first two of four dimensions are other numbers than the two of two) nor
a different number of heads; otherwise the array is "not comparable", said and not drawn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

import numpy as np

from attn_explorer.engine.arrays import ARRAY_INFO
from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.steps import STEP_KEYS
from attn_explorer.engine.trace import Trace

TOKEN_AXES = ("q_tokens", "k_tokens")

# What became of one array: equal; different, on the same shape or on the tokens both have
# ("shared"); of shapes that cannot be lined up; computed by one trace only.
STATUSES = ("same", "differs", "shared", "not_comparable", "only_a", "only_b")


@dataclass(frozen=True)
class ArrayDiff:
    """B − A of one array.

    `diff` is B − A over the compared part (the whole array, or the tokens both have), 0
    where both are equal (two −∞ of a hidden score too), ±∞ where one side is hidden and the
    other not; None when nothing is compared. `largest` is the finite cell of largest
    magnitude (its value B − A and its index into `diff`), `hidden` the cells with an
    infinite difference (a score hidden on one side only).
    """

    name: str
    status: str
    shape_a: tuple[int, ...] | None
    shape_b: tuple[int, ...] | None
    diff: np.ndarray | None = None
    largest: float = 0.0
    where: tuple[int, ...] | None = None
    hidden: int = 0

    @property
    def differs(self) -> bool:
        return self.status != "same"

    @property
    def compared(self) -> bool:
        return self.diff is not None


@dataclass(frozen=True)
class Comparison:
    """Everything that differs between trace `a` and trace `b` (B − A)."""

    a: Trace
    b: Trace
    arrays: Mapping[str, ArrayDiff]
    first_stage: str | None  # the first stage (a `Step.key`) whose arrays differ
    settings: tuple[str, ...]  # the config fields that differ

    def __getitem__(self, name: str) -> ArrayDiff:
        return self.arrays[name]

    @property
    def same(self) -> bool:
        return self.first_stage is None and not any(d.differs for d in self.arrays.values())

    def differing(self) -> tuple[ArrayDiff, ...]:
        """The arrays that differ, in computation order."""
        return tuple(d for d in self.arrays.values() if d.differs)


def axes(name: str, ndim: int) -> tuple[str, ...]:
    """The axis kinds of array `name` with `ndim` dimensions: "heads" first for a per-head
    array, then its rows (if a matrix) and columns (`ArrayInfo`)."""
    info = ARRAY_INFO[name]
    kinds = (("heads",) if info.per_head else ()) + (
        (info.cols,) if info.rows is None else (info.rows, info.cols)
    )
    return kinds[-ndim:] if ndim <= len(kinds) else kinds


def shared_part(name: str, shape_a: tuple[int, ...], shape_b: tuple[int, ...]):
    """The slices both arrays are compared on, or None where the shapes cannot be lined up."""
    if len(shape_a) != len(shape_b):
        return None
    cut = []
    for kind, n_a, n_b in zip(axes(name, len(shape_a)), shape_a, shape_b, strict=True):
        if n_a != n_b and kind not in TOKEN_AXES:
            return None
        cut.append(slice(0, min(n_a, n_b)))
    return tuple(cut)


def difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """B − A in float64, 0 where both are equal (so −∞ − −∞ is 0, not NaN)."""
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(a64 == b64, 0.0, b64 - a64)


def array_diff(name: str, a: np.ndarray | None, b: np.ndarray | None) -> ArrayDiff:
    """B − A of array `name` (None: that trace has no such array)."""
    if a is None or b is None:
        status = "only_b" if a is None else "only_a"
        return ArrayDiff(name, status, _shape(a), _shape(b))
    cut = shared_part(name, a.shape, b.shape)
    if cut is None:
        return ArrayDiff(name, "not_comparable", a.shape, b.shape)
    diff = difference(a[cut], b[cut])
    diff.flags.writeable = False
    whole = a.shape == b.shape
    if whole and not diff.any():
        return ArrayDiff(name, "same", a.shape, b.shape, diff)
    finite = np.where(np.isfinite(diff), np.abs(diff), -1.0)
    hidden = int(diff.size - np.isfinite(diff).sum())
    where, largest = None, 0.0
    if finite.size and finite.max() > 0:
        where = tuple(int(i) for i in np.unravel_index(int(finite.argmax()), diff.shape))
        largest = float(diff[where])
    status = "differs" if whole else "shared"
    return ArrayDiff(name, status, a.shape, b.shape, diff, largest, where, hidden)


def _shape(array: np.ndarray | None) -> tuple[int, ...] | None:
    return None if array is None else array.shape


def settings_differing(a: AttentionConfig, b: AttentionConfig) -> tuple[str, ...]:
    """The config fields whose values differ, in declaration order."""
    names = (f.name for f in fields(AttentionConfig))
    return tuple(name for name in names if getattr(a, name) != getattr(b, name))


def compare(a: Trace, b: Trace) -> Comparison:
    """B − A for every array of either trace, the first stage whose arrays differ, and the
    settings that differ.

    A stage differs when an array it reads or writes in either trace differs: the stage
    that first makes a difference, or the first that reads a changed input (a seed changes
    the weights the projections read). Stages go in B's order (masking first or scaling
    first), then any stage only A computes.
    """
    names = [n for n in ARRAY_INFO if n in a.arrays or n in b.arrays]
    diffs = {n: array_diff(n, a.arrays.get(n), b.arrays.get(n)) for n in names}
    first = None
    order = [s.key for s in b.steps] + [k for k in STEP_KEYS if k not in {s.key for s in b.steps}]
    for key in order:
        touched = set()
        for trace in (a, b):
            step = next((s for s in trace.steps if s.key == key), None)
            if step is not None:
                touched |= set(step.reads) | set(step.writes)
        if any(diffs[n].differs for n in touched if n in diffs):
            first = key
            break
    return Comparison(a, b, diffs, first, settings_differing(a.config, b.config))
