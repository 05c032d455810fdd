"""Softmax on one row, for the lesson of tutorial 004's figure 5: as the inputs of softmax grow,
the distribution saturates toward one-hot. numpy only, so the step-through can sweep a scale
factor on the UI thread without starting a computation (a row has at most a few thousand
numbers)."""

from __future__ import annotations

import numpy as np


def softmax(row: np.ndarray) -> np.ndarray:
    """Softmax of a 1-D row; −∞ entries get probability exactly 0."""
    values = np.asarray(row, dtype=np.float64)
    finite = np.isfinite(values)
    out = np.zeros_like(values)
    if not finite.any():
        return out
    shifted = np.exp(values[finite] - values[finite].max())
    out[finite] = shifted / shifted.sum()
    return out


def entropy(p: np.ndarray) -> float:
    """Shannon entropy in nats (0 for one-hot, ln n for uniform)."""
    p = np.asarray(p, dtype=np.float64)
    nonzero = p[p > 0]
    return float(-(nonzero * np.log(nonzero)).sum())


def zero_renormalize(row: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    """Mask method 1 on one row: softmax of every entry, the `hidden` ones zeroed, the rest
    divided by their sum. Where the visible entries all underflow to 0 (a large factor on a
    row whose hidden keys score highest), their exact share is softmax over them alone."""
    weights = softmax(row)
    weights[hidden] = 0.0
    total = weights.sum()
    if total > 0:
        return weights / total
    return softmax(np.where(hidden, -np.inf, np.asarray(row, dtype=np.float64)))


def sweep(
    row: np.ndarray, factors: np.ndarray, hidden: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """softmax(factor × row) for each factor: (len(factors), len(row)) and their entropies.
    With `hidden` (mask method 1), each is zeroed there and renormalized."""
    values = np.asarray(row, dtype=np.float64)
    scaled = [values * f for f in np.asarray(factors, dtype=np.float64)]
    if hidden is None:
        rows = np.stack([softmax(r) for r in scaled])
    else:
        rows = np.stack([zero_renormalize(r, hidden) for r in scaled])
    return rows, np.array([entropy(r) for r in rows])
