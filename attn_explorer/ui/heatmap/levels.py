"""A matrix's colour levels, and the matrix at screen resolution: numbers only, no Qt.

Kept apart from the items that draw so that the colour scale can be tested, and shared by
several matrices (see ui/matrices/trace_plots.py), without a widget.
"""

from __future__ import annotations

import math

import numpy as np

NICE_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (× a power of 10) not below `value`.

    Colour scales end on round numbers, so a slider move that changes the data a little
    leaves the scale (and the colour bar's ticks) as they were: steadier for the eye, and
    the bar need not be redrawn.
    """
    if not value > 0 or not math.isfinite(value):
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(step * power for step in NICE_STEPS if step * power >= value * (1 - 1e-9))


def levels_for(kind: str, values: np.ndarray) -> tuple[float, float]:
    """Colour levels: symmetric around 0 for signed values, 0..top for weights, 0..1 for masks.

    `values` may hold NaN (masked cells), never infinities.
    """
    if kind in ("mask", "keep"):
        return 0.0, 1.0
    if kind == "weights":
        # The 99.5th percentile, not the maximum: one weight of 1.0 (the first row of a causal
        # mask) would otherwise wash out every other cell of a long sequence. Below 200 values
        # there is no 0.5 % to leave out, so the scale takes the largest: a percentile would
        # fall between the two largest and leave the largest (a weight doubled by dropout,
        # 1.03) beyond the bar's end.
        sample = values.ravel()[:: max(1, values.size // 65536)]  # a percentile of ≤ 64k values
        finite = sample[~np.isnan(sample)]
        if finite.size >= 200:
            top = _percentile(finite, 99.5)
        else:
            top = float(finite.max()) if finite.size else 1.0
        return 0.0, min(nice_ceiling(top), 1.0) if top <= 1 else nice_ceiling(top)
    biggest = float(np.fmax.reduce(np.abs(values), axis=None)) if values.size else 1.0
    if math.isnan(biggest):  # every cell masked
        biggest = 1.0
    top = nice_ceiling(biggest)
    return -top, top


def _percentile(values: np.ndarray, q: float) -> float:
    """`np.percentile(values, q)` (linear interpolation) from one partial sort: numpy's own
    costs ten times more on the few dozen weights of a small matrix, on every move."""
    position = (values.size - 1) * q / 100
    below = math.floor(position)
    above = min(below + 1, values.size - 1)
    part = np.partition(values, (below, above))
    low, high = float(part[below]), float(part[above])
    return low + (high - low) * (position - below)


DISPLAY_MAX = 512  # cells per side drawn; a 1024-token matrix is pooled 2 × 2 for the screen


SAME_PROBE_ROWS = 97  # `_same` first compares every 97th row (a prime: no pattern's period)


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Whether two matrices are equal, as `np.array_equal` says (NaN never equals).

    A changed matrix (every matrix but the mask on a seed move) differs almost everywhere,
    and `array_equal` reads all of it before saying so: 0.7 ms per view at 1024 tokens, on
    every move. A sample of rows that differs answers at once; only a matching sample is
    checked whole, so the answer is always `array_equal`'s.
    """
    if a is None or b is None:
        return a is b
    if a is b:
        return True
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if (
        a.ndim
        and a.shape[0] > SAME_PROBE_ROWS
        and not np.array_equal(a[::SAME_PROBE_ROWS], b[::SAME_PROBE_ROWS])
    ):
        return False
    return np.array_equal(a, b)


def _sums_fit(values: np.ndarray, count: int) -> bool:
    """Whether `count` of `values` add up within float32 (NaN left out; an infinite value
    does not fit: float64 keeps what it sums to as it always has)."""
    if values.dtype != np.float32 or not values.size:
        return False
    with np.errstate(invalid="ignore"):
        top, bottom = np.fmax.reduce(values, axis=None), np.fmin.reduce(values, axis=None)
    biggest = max(float(top), -float(bottom))
    return biggest < float(np.finfo(np.float32).max) / (2 * count)


def display_grid(
    values: np.ndarray, kind: str, limit: int = DISPLAY_MAX, infinite: bool = False
) -> np.ndarray:
    """The matrix at screen resolution: blocks of cells pooled when it has more than `limit`
    rows or columns (a view is a few hundred pixels tall anyway).

    Weights and masks keep each block's largest value, so one strong attention weight still
    shows; signed values take the block mean. A block with a masked (NaN) cell is masked.
    `infinite`: some cells are infinite (masked scores), summed in float64 without looking.
    """
    rows, cols = values.shape
    fr, fc = math.ceil(rows / limit), math.ceil(cols / limit)
    if fr == fc == 1:
        return values
    pad_rows, pad_cols = -rows % fr, -cols % fc
    padded = (
        np.pad(values, ((0, pad_rows), (0, pad_cols)), mode="edge")
        if pad_rows or pad_cols
        else values
    )
    # Strided slices combined pairwise: twenty times faster than reducing a 4-D reshape.
    slices = [padded[i::fr, j::fc] for i in range(fr) for j in range(fc)]
    if kind == "signed":
        # The usual matrix sums in float32, in a third of float64's time.
        if not infinite and _sums_fit(values, len(slices)):
            total = slices[0] + slices[1] if len(slices) > 1 else slices[0].copy()
            for other in slices[2:]:
                np.add(total, other, out=total)
            return np.multiply(total, 1 / len(slices), out=total)
        # Summed in float64: four cells of 3e38 overflow float32 (so do infinite ones; a float32
        # sum checked for overflow afterwards saved nothing: 4.3 against 4.1 ms at 1024 tokens),
        # in one array, in place: the same sums in the same order without a new array each.
        total = slices[0].astype(np.float64)
        for other in slices[1:]:
            np.add(total, other, out=total)
        return np.divide(total, len(slices), out=total).astype(values.dtype)
    out = np.maximum(slices[0], slices[1]) if len(slices) > 1 else slices[0].copy()
    for other in slices[2:]:
        np.maximum(out, other, out=out)
    return out
