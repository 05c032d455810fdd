"""Derivations of the outputs' cells: each head's context α·V, the concatenation of the
heads, and the output projection (or the output as the contexts themselves)."""

from __future__ import annotations

import numpy as np

from attn_explorer.engine.trace import Trace
from attn_explorer.text.explain_inputs import columns
from attn_explorer.text.numbers import NB, factor, num, sum_of_products
from attn_explorer.text.titles import array_symbol
from attn_explorer.text.tokens import quoted


def context_lead(alpha: str, i: int, j: int | None = None) -> str:
    """z2[1] = Σⱼ α[2,j]·vⱼ[1]: the context stage's formula, its query (and dimension) filled
    in, in the formula's notation; one unbreakable piece. The whole row (j None) is
    z2 = Σⱼ α[2,j]·vⱼ."""
    dim = "" if j is None else f"[{j + 1}]"
    return f"z{i + 1}{dim}{NB}={NB}Σⱼ{NB}{alpha}[{i + 1},j]·vⱼ{dim}"


def _head_context(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    weights = trace["weights_dropped"][h, i]
    values = trace["values"][h, :, j]
    value = trace["head_contexts"][h, i, j]
    used = [k for k in range(weights.size) if weights[k] != 0]
    pairs = [(float(weights[k]), float(values[k])) for k in used]
    # After dropout the weights are α_d, and they no longer sum to 1.
    alpha = array_symbol(trace.config, "weights_dropped")
    dropped = trace.config.dropout_active
    text = f"{context_lead(alpha, i, j)}{NB}= {sum_of_products(pairs)} = {num(value)}"
    skipped = weights.size - len(used)
    if skipped:
        keys = "1 key with weight 0 is" if skipped == 1 else f"{skipped} keys with weight 0 are"
        text += f"\n{keys} left out of the sum."
    kind = (
        "a weighted sum of the values (after dropout the weights sum to "
        f"{num(float(weights.astype(np.float64).sum()))}, not 1)"
        if dropped
        else "a weighted average of the values"
    )
    return (
        f"{text}\nDimension {j + 1} of the context of query {i + 1} {quoted(trace.q_tokens, i)}: "
        f"{kind}."
    )


def _concat(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    d_head = trace.config.d_head
    head, dim = divmod(j, d_head)
    value = trace["concat"][i, j]
    if trace.heads == 1:
        return f"Z_cat[{i + 1},{j + 1}] = z{i + 1}[{j + 1}] = {num(value)}\nOne head: Z_cat is Z."
    span = columns(head * d_head + 1, (head + 1) * d_head)
    hold = "holds" if d_head == 1 else "hold"
    return (
        f"Z_cat[{i + 1},{j + 1}] = z{i + 1}[{dim + 1}] of head {head + 1} = {num(value)}\n"
        f"{span.capitalize()} {hold} head {head + 1}'s context."
    )


def _context(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    value = trace["context"][i, j]
    if "w_out" not in trace.arrays:
        # The output is a head's context itself: its derivation, not a pointer to Z_cat, which
        # the Matrices tab does not show.
        head, dim = divmod(j, trace.config.d_head)
        derivation = _head_context(trace, "head_contexts", head, i, dim)
        if trace.heads == 1:
            lead = (
                f"out{i + 1}[{j + 1}] = z{i + 1}[{dim + 1}]: no output projection, the output is Z."
            )
        else:
            lead = (
                f"out{i + 1}[{j + 1}] = Z_cat[{i + 1},{j + 1}] = z{i + 1}[{dim + 1}] of head "
                f"{head + 1}: no output projection, the output is Z_cat, the heads' contexts "
                "side by side."
            )
        return f"{lead}\n{derivation}"
    pairs = list(zip(trace["concat"][i].tolist(), trace["w_out"][:, j].tolist(), strict=True))
    bias = trace["b_out"][j]
    return (
        f"out{i + 1}[{j + 1}] = Z_cat{i + 1}·W_o[:,{j + 1}] + b_o[{j + 1}] = "
        f"{sum_of_products(pairs)} + {factor(bias)} = {num(value)}"
    )


EXPLAINERS = {
    "head_contexts": _head_context,
    "concat": _concat,
    "context": _context,
}
