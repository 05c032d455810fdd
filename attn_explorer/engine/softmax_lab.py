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


def sweep(row: np.ndarray, factors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """softmax(factor × row) for each factor: (len(factors), len(row)) and their entropies."""
    values = np.asarray(row, dtype=np.float64)
    rows = np.stack([softmax(values * f) for f in np.asarray(factors, dtype=np.float64)])
    return rows, np.array([entropy(r) for r in rows])
