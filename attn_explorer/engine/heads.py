"""Heads switched off, and how much each head matters to the output.

A head is switched off after it has computed its context and before the heads are joined:
its slice of the concatenation is replaced, so the concatenation and the output projection
show the gap while the head's own context (`head_contexts`) still shows what it computed.
Two replacements are offered: zeros, as pruning does (the head is gone), and the head's mean
over the query tokens, as ablation studies do (the head still adds its average, but no
longer tells one token from another).

A head's importance is how much the output changes when that head alone is switched off,
from the output with every head on: the norm (Frobenius, over every token and dimension) of
the change, and that norm as a share of the output's norm. d2l's multi-head chapter ends
with the exercise of measuring it, to prune the least important head.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from attn_explorer.engine.config import ABLATE_MODES as ABLATE_MODES  # re-exported


def replacement(head_context: Any, mode: str) -> Any:
    """What one head's (n_q, d_head) context (a tensor or an array) becomes when the head is
    switched off. Written with the arrays' own methods, so this module imports no torch: the
    window measures importance on its own thread, where torch is not imported."""
    nothing = head_context - head_context  # +0 everywhere (0 × a negative value is −0)
    if mode == "mean":
        return head_context.mean(0, keepdims=True) + nothing
    return nothing


def ablated_concat(concat: Any, head_contexts: Any, ablate: Iterable[int], mode: str) -> Any:
    """`concat` (n_q, heads · d_head) with the slices of the heads `ablate` (counted from 1)
    replaced; a new tensor, as `concat` may be a view of `head_contexts` (one head)."""
    out = concat.clone() if hasattr(concat, "clone") else concat.copy()
    d_head = head_contexts.shape[-1]
    for number in ablate:
        h = number - 1
        out[:, h * d_head : (h + 1) * d_head] = replacement(head_contexts[h], mode)
    return out


@dataclass(frozen=True)
class HeadImportance:
    """For head h (from 0): `norms[h]` = ‖output with every head − output with head h
    alone switched off‖, `shares[h]` = that over ‖output with every head‖ (`output_norm`).
    `mode` is how the head was switched off ("zeros" or "mean")."""

    norms: np.ndarray
    shares: np.ndarray
    output_norm: float
    mode: str

    def ranking(self) -> tuple[int, ...]:
        """The heads (from 0) from the most important to the least; ties keep head order."""
        return tuple(int(h) for h in np.argsort(-self.norms, kind="stable"))

    def as_dict(self) -> dict[str, object]:
        """Plain data for a JSON export: heads counted from 1, as the learner counts them."""
        return {
            "mode": self.mode,
            "output_norm": self.output_norm,
            "heads": [
                {"head": h + 1, "norm": float(self.norms[h]), "share": float(self.shares[h])}
                for h in self.ranking()
            ],
        }


def head_importance(trace: Any, mode: str | None = None) -> HeadImportance:
    """Each head's importance in `trace` (see `HeadImportance`), switched off by `mode`
    (default: the trace's config's `ablate_mode`).

    The output is linear in the concatenation, so switching head h off changes it by
    (context_h − replacement_h) @ W_out[rows of h] (W_out the identity without an output
    projection): one small product per head instead of a computation per head, in float64.
    The heads the trace itself switched off count as on: importance is measured from the
    full model, whatever is switched off on screen.
    """
    mode = mode or trace.config.ablate_mode
    contexts = np.asarray(trace["head_contexts"], dtype=np.float64)  # (heads, n_q, d_head)
    heads, n_q, d_head = contexts.shape
    full = contexts.transpose(1, 0, 2).reshape(n_q, heads * d_head)
    w = trace.arrays.get("w_out")
    w = None if w is None else np.asarray(w, dtype=np.float64)  # (width, width)
    output = full if w is None else full @ w + np.asarray(trace["b_out"], dtype=np.float64)
    norms = np.zeros(heads, dtype=np.float64)
    for h in range(heads):
        change = contexts[h] - replacement(contexts[h], mode)  # (n_q, d_head)
        if w is not None:
            change = change @ w[h * d_head : (h + 1) * d_head]
        norms[h] = float(np.linalg.norm(change))
    output_norm = float(np.linalg.norm(output))
    shares = norms / output_norm if output_norm > 0 else np.zeros_like(norms)
    return HeadImportance(norms=norms, shares=shares, output_norm=output_norm, mode=mode)
