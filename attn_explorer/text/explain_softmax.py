"""Derivations of the weights' cells: softmax with −∞ for hidden keys (method 2), mask method
1's three steps (softmax of every score, the hidden zeroed, each row divided by its visible
sum), and dropout."""

from __future__ import annotations

import numpy as np

from attn_explorer.engine.trace import Trace
from attn_explorer.text.explain_scores import hidden_because, mask_reason, visible_cell
from attn_explorer.text.i18n import _, ngettext
from attn_explorer.text.numbers import MAX_TERMS, NB, division, factor, num, operand
from attn_explorer.text.titles import score_symbols
from attn_explorer.text.tokens import quoted


def _neg_inf_row(trace: Trace, h: int, i: int) -> np.ndarray:
    """Row i of the scores method 2 feeds softmax: −∞ where hidden. Under method 1 the trace's
    scores fed to softmax are unmasked, and the comparison's method 2 masks them itself."""
    if trace.config.mask_first:  # masked, then divided: the scaled scores are softmax's
        return trace["scaled_scores"][h, i].astype(np.float64)
    if not trace.config.method_1:
        return trace["masked_scores"][h, i].astype(np.float64)
    row = trace["scaled_scores"][h, i].astype(np.float64)
    return np.where(trace["mask"][i], -np.inf, row)


def _softmax_terms(row: np.ndarray, j: int, lead: str, value: float) -> str:
    """lead = exp(row[j]) / (exp(…) + …) = a / b = value, over the row's finite entries."""
    visible = np.flatnonzero(np.isfinite(row))
    shift = float(row[visible].max())
    shifted = abs(shift) > 30  # exp would overflow or hide the digits: subtract the row maximum
    offset = shift if shifted else 0.0
    exps = np.exp(row[visible] - offset)

    def term(k: int) -> str:
        if shifted:
            return f"exp({num(row[k])}{NB}−{NB}{factor(shift)})"
        return f"exp({num(row[k])})"

    terms = [term(k) for k in visible]
    if len(terms) > MAX_TERMS:
        terms = [*terms[: MAX_TERMS - 2], "…", terms[-1]]
    numerator = float(np.exp(row[j] - offset))
    denominator = float(exps.sum())
    top, bottom = division(
        numerator, denominator, value, (operand(numerator), operand(denominator))
    )
    # Breaks only after "=" and "+": the fractions and the terms stay whole.
    text = (
        f"{lead}{NB}= {term(j)}{NB}/{NB}({f'{NB}+ '.join(terms)}){NB}= "
        f"{top}{NB}/{NB}{bottom}{NB}= {num(value)}"
    )
    if shifted:
        text += "\n" + _(
            "The row maximum {maximum} is subtracted first; softmax does not change."
        ).format(maximum=num(shift))
    return text


def _softmax_lead(cell: str, scores: str, i: int, j: int) -> str:
    """α[2,1] = exp(ω̃ₘ[2,1]) / Σⱼ' exp(ω̃ₘ[2,j']): the softmax stage's formula, its cell
    filled in; one unbreakable piece."""
    return f"{cell}{NB}={NB}exp({scores}[{i + 1},{j + 1}]){NB}/{NB}Σⱼ'{NB}exp({scores}[{i + 1},j'])"


def _softmax_neg_inf(trace: Trace, h: int, i: int, j: int, value: float) -> str:
    row = _neg_inf_row(trace, h, i)
    scaled = score_symbols(trace.config)[0]  # (method 2's, also in a method 1 trace)
    fed = f"{scaled}ₘ" if trace.config.has_mask else scaled
    lead = _softmax_lead(f"α[{i + 1},{j + 1}]", fed, i, j)
    text = _softmax_terms(row, j, lead, value)
    hidden = int(row.size - np.isfinite(row).sum())
    if hidden:
        first, *rest = text.split("\n", 1)
        keys = ngettext(
            "The hidden key adds exp(−∞) = 0 to the sum.",
            "The {count} hidden keys add exp(−∞) = 0 to the sum.",
            hidden,
        ).format(count=hidden)
        text = "\n".join([first, keys, *rest])
    return text


def _unmasked_row(trace: Trace, h: int, i: int) -> np.ndarray:
    """Row i of the scaled scores with no mask (float64): method 1 takes softmax of these.
    Where the raw scores were masked first the trace's scaled scores hold −∞; the comparison
    then divides the raw scores itself, as the engine does."""
    if trace.config.mask_first:
        raw = trace["scores"][h, i]
        return (raw / np.float32(trace.config.scale_divisor)).astype(np.float64)
    return trace["scaled_scores"][h, i].astype(np.float64)


def _softmax_renormalize(trace: Trace, h: int, i: int, j: int, value: float) -> str:
    row = _unmasked_row(trace, h, i)
    soft = np.exp(row - row.max())
    soft /= soft.sum()
    hidden = trace["mask"][i]
    kept = float(soft[~hidden].sum())
    top, bottom = division(float(soft[j]), kept, value, (operand(soft[j]), operand(kept)))
    s = score_symbols(trace.config)[0]
    return (
        f"α[{i + 1},{j + 1}] = softmax({s})[{i + 1},{j + 1}] / Σ_visible softmax({s})[{i + 1},j'] "
        f"= {top} / {bottom} = {num(value)}\n"
        + _("Method 1: softmax over the whole row, zero the hidden cells, divide by what is left.")
    )


def _weights(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    value = float(trace[name][h, i, j])
    reason = mask_reason(trace, i, j)
    method = trace.config.mask_method if name == "weights" else name.removeprefix("weights_")
    if reason:
        text = hidden_because(f"α[{i + 1},{j + 1}]", "0", reason)
        if trace.config.has_mask and method == "renormalize":
            gave = _unmasked_softmax(trace, h, i)[j]
            text += "\n" + _(
                "Method 1: softmax gave it {value}, zeroed before renormalizing."
            ).format(value=num(gave))
        return text
    if trace.config.has_mask and method == "renormalize":
        text = _softmax_renormalize(trace, h, i, j, value)
    else:
        text = _softmax_neg_inf(trace, h, i, j, value)
    return f"{text}\n" + _(
        "Query {query} {query_token} gives this share of its attention to key {key}"
        " {key_token}; the row sums to 1."
    ).format(
        query=i + 1,
        query_token=quoted(trace.q_tokens, i),
        key=j + 1,
        key_token=quoted(trace.k_tokens, j),
    )


def _unmasked_softmax(trace: Trace, h: int, i: int) -> np.ndarray:
    """softmax(ω̃) of row i, every key included: method 1's first step (float64)."""
    row = _unmasked_row(trace, h, i)
    soft = np.exp(row - row.max())
    return soft / soft.sum()


# ---------------------------------------------------------------------------- method 1's steps
def _weights_unmasked(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    row = trace["scaled_scores"][h, i].astype(np.float64)
    value = float(trace[name][h, i, j])
    s = score_symbols(trace.config)[0]
    lead = _softmax_lead(f"softmax({s})[{i + 1},{j + 1}]", s, i, j)
    text = _softmax_terms(row, j, lead, value)
    reason = mask_reason(trace, i, j)
    hidden = int(trace["mask"][i].sum())
    if row.size == 1:
        step = _("Method 1, first step: softmax over the row's one key.")
    elif hidden == 1:
        step = _(
            "Method 1, first step: softmax over all {keys} keys of the row, the hidden one"
            " included."
        )
    elif hidden:
        step = _(
            "Method 1, first step: softmax over all {keys} keys of the row, the {hidden} hidden"
            " ones included."
        )
    else:  # a row without hidden keys ("the hidden ones included" where there are none)
        step = _(
            "Method 1, first step: softmax over all {keys} keys of the row; none of them is"
            " hidden from query {query}."
        )
    text += "\n" + step.format(keys=row.size, hidden=hidden, query=i + 1)
    if reason:
        text += "\n" + _("Hidden, because {reason}: this weight is zeroed next.").format(
            reason=reason
        )
    return text


def _weights_zeroed(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    soft = trace["weights_unmasked"][h, i, j]
    value = trace[name][h, i, j]
    reason = mask_reason(trace, i, j)
    s = score_symbols(trace.config)[0]
    lead = (
        f"softmax({s})[{i + 1},{j + 1}] × (1 − M[{i + 1},{j + 1}]) = {operand(soft)} × "
        f"{0 if reason else 1}"
    )
    if reason:
        return (
            hidden_because(lead, "0", reason) + "\n" + _("Method 1, second step: zero the hidden.")
        )
    row_sum = trace["row_sums"][h, i, 0]
    if not trace["mask"][i].any():  # not "now sums to 1.0000, not 1"
        step = _(
            "Method 1, second step: no key of row {row} is hidden, so none of its weights is"
            " zeroed; it still sums to 1."
        )
    else:
        step = _(
            "Method 1, second step: the hidden weights are zeroed; row {row} now sums to {sum},"
            " not 1."
        )
    return visible_cell(f"{lead} = {num(value)}") + "\n" + step.format(row=i + 1, sum=num(row_sum))


def _row_sums(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    zeroed = trace["weights_zeroed"][h, i]
    visible = np.flatnonzero(~trace["mask"][i])
    value = trace[name][h, i, 0]
    terms = [operand(zeroed[k]) for k in visible]
    if len(terms) > MAX_TERMS:
        terms = [*terms[: MAX_TERMS - 2], "…", terms[-1]]
    hidden_share = 1.0 - float(value)
    sum_line = f"Σ_visible[{i + 1}] = {' + '.join(terms)} = {num(value)}"
    hidden = trace["mask"][i].size - visible.size
    if not hidden:  # not "the hidden keys had taken 0.0000"
        if visible.size > 1:
            step = _(
                "Method 1, third step: no key of row {row} is hidden, so its {count} weights"
                " already sum to 1 and dividing by the sum changes nothing."
            )
        else:
            step = _("Method 1, third step: row {row}'s one weight is 1 already.")
        return f"{sum_line}\n" + step.format(row=i + 1, count=visible.size)
    if visible.size == 1:
        divided = _(
            "row {row}'s one visible weight is divided by this sum, which makes it 1"
        ).format(row=i + 1)
    else:
        divided = _(
            "row {row}'s {count} visible weights are divided by this sum, so that they add up"
            " to 1 again"
        ).format(row=i + 1, count=visible.size)
    if hidden == 1:
        taken = _("the hidden key had taken {share}").format(share=num(hidden_share))
    else:
        taken = _("the {hidden} hidden keys had taken {share}").format(
            hidden=hidden, share=num(hidden_share)
        )
    return f"{sum_line}\n" + _("Method 1, third step: {divided}; {taken}.").format(
        divided=divided, taken=taken
    )


def _keep(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    p = trace.config.dropout
    cell = f"keep[{i + 1},{j + 1}]"
    if trace["dropout_keep"][h, i, j]:
        return _(
            "{cell} = 1: kept (probability 1 − p = {probability}), then multiplied by"
            " 1/(1 − p) = {scale}."
        ).format(cell=cell, probability=f"{1 - p:g}", scale=num(1 / (1 - p)))
    return _("{cell} = 0: dropped (probability p = {p}); the weight becomes 0.").format(
        cell=cell, p=f"{p:g}"
    )


def _dropped(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    weight = float(trace["weights"][h, i, j])
    value = trace["weights_dropped"][h, i, j]
    cfg = trace.config
    reason = mask_reason(trace, i, j)
    cell = f"[{i + 1},{j + 1}]"
    if not cfg.dropout_active:  # the cell is α's, and is named so (as its matrix is)
        why = _("evaluation mode") if not cfg.training else "p = 0"
        if reason:
            return _("{cell} = 0: hidden, because {reason} (no dropout: {why}).").format(
                cell=f"α{cell}", reason=reason, why=why
            )
        return _(
            "{cell} = {value}: no dropout ({why}), the softmax weight is used as it is."
        ).format(cell=f"α{cell}", value=num(value), why=why)
    keep = int(trace["dropout_keep"][h, i, j])
    if reason:  # α is 0 there already: whatever the keep-mask says, the cell stays 0
        return (
            hidden_because(f"α_d{cell}", "0", reason)
            + "\n"
            + _(
                "Its softmax weight {weight} is 0, and dropout (keep = {keep}) leaves it 0."
            ).format(weight=f"α{cell}", keep=keep)
        )
    # The weight as its matrix shows it (4 decimals), unless the shown product would then
    # miss the shown result: 0.3800 × 1 / 0.5000 is not 0.7599, 0.37997 × 1 / 0.5000 is.
    scale = 1 / (1 - cfg.dropout)
    shown = num(weight)
    if keep and num(float(shown) * scale) != num(value):
        shown = operand(weight)
    text = (
        f"α_d[{i + 1},{j + 1}] = α[{i + 1},{j + 1}] × keep / (1 − p) = {shown} × "
        f"{keep} / {operand(1 - cfg.dropout)} = {num(value)}"
    )
    if not keep:
        text += "\n" + _("Dropped by the keep-mask (probability p = {p}).").format(
            p=f"{cfg.dropout:g}"
        )
    return text


EXPLAINERS = {
    "weights": _weights,
    "weights_neg_inf": _weights,
    "weights_renormalize": _weights,
    "weights_unmasked": _weights_unmasked,
    "weights_zeroed": _weights_zeroed,
    "row_sums": _row_sums,
    "dropout_keep": _keep,
    "weights_dropped": _dropped,
}
