"""Derivations of the outputs' cells: each head's context α·V, the concatenation of the
heads, and the output projection (or the output as the contexts themselves)."""

from __future__ import annotations

import numpy as np

from attn_explorer.engine.trace import Trace
from attn_explorer.text.i18n import _, ngettext
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
        text += "\n" + ngettext(
            "{count} key with weight 0 is left out of the sum.",
            "{count} keys with weight 0 are left out of the sum.",
            skipped,
        ).format(count=skipped)
    if dropped:
        about = _(
            "Dimension {dim} of the context of query {query} {query_token}: a weighted sum of"
            " the values (after dropout the weights sum to {sum}, not 1)."
        )
    else:
        about = _(
            "Dimension {dim} of the context of query {query} {query_token}: a weighted average"
            " of the values."
        )
    return f"{text}\n" + about.format(
        dim=j + 1,
        query=i + 1,
        query_token=quoted(trace.q_tokens, i),
        sum=num(float(weights.astype(np.float64).sum())),
    )


def _concat(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    d_head = trace.config.d_head
    head, dim = divmod(j, d_head)
    value = trace["concat"][i, j]
    if trace.heads == 1:
        return f"Z_cat[{i + 1},{j + 1}] = z{i + 1}[{j + 1}] = {num(value)}\n" + _(
            "One head: Z_cat is Z."
        )
    # A range of one column is that column, not "Columns 2–2" (one column per head).
    if d_head == 1:
        span = _("Column {column} holds head {head}'s context.")
    else:
        span = _("Columns {first}–{last} hold head {head}'s context.")
    first = head * d_head + 1
    return (
        _("{cell} = {entry} of head {head} = {value}").format(
            cell=f"Z_cat[{i + 1},{j + 1}]",
            entry=f"z{i + 1}[{dim + 1}]",
            head=head + 1,
            value=num(value),
        )
        + "\n"
        + span.format(column=first, first=first, last=(head + 1) * d_head, head=head + 1)
    )


def _context(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    value = trace["context"][i, j]
    if "w_out" not in trace.arrays:
        # The output is a head's context itself: its derivation, not a pointer to Z_cat, which
        # the Matrices tab does not show.
        head, dim = divmod(j, trace.config.d_head)
        derivation = _head_context(trace, "head_contexts", head, i, dim)
        cell, entry = f"out{i + 1}[{j + 1}]", f"z{i + 1}[{dim + 1}]"
        if trace.heads == 1:
            lead = _("{cell} = {entry}: no output projection, the output is Z.").format(
                cell=cell, entry=entry
            )
        else:
            lead = _(
                "{cell} = {concat} = {entry} of head {head}: no output projection, the output"
                " is Z_cat, the heads' contexts side by side."
            ).format(cell=cell, concat=f"Z_cat[{i + 1},{j + 1}]", entry=entry, head=head + 1)
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
