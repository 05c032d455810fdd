"""Derivations of the weights' cells: softmax with −∞ for hidden keys (method 2), mask method
1's three steps (softmax of every score, the hidden zeroed, each row divided by its visible
sum), and dropout."""

from __future__ import annotations

import numpy as np

from attn_explorer.engine.trace import Trace
from attn_explorer.text.explain_scores import mask_reason
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
        text += f"\nThe row maximum {num(shift)} is subtracted first; softmax does not change."
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
        keys = "The hidden key adds" if hidden == 1 else f"The {hidden} hidden keys add"
        text = "\n".join([first, f"{keys} exp(−∞) = 0 to the sum.", *rest])
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
        "Method 1: softmax over the whole row, zero the hidden cells, divide by what is left."
    )


def _weights(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    value = float(trace[name][h, i, j])
    reason = mask_reason(trace, i, j)
    method = trace.config.mask_method if name == "weights" else name.removeprefix("weights_")
    if reason:
        text = f"α[{i + 1},{j + 1}] = 0: hidden, because {reason}."
        if trace.config.has_mask and method == "renormalize":
            gave = _unmasked_softmax(trace, h, i)[j]
            text += f"\nMethod 1: softmax gave it {num(gave)}, zeroed before renormalizing."
        return text
    if trace.config.has_mask and method == "renormalize":
        text = _softmax_renormalize(trace, h, i, j, value)
    else:
        text = _softmax_neg_inf(trace, h, i, j, value)
    return (
        f"{text}\nQuery {i + 1} {quoted(trace.q_tokens, i)} gives this share of its attention "
        f"to key {j + 1} {quoted(trace.k_tokens, j)}; the row sums to 1."
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
        text += "\nMethod 1, first step: softmax over the row's one key."
    elif hidden:
        text += (
            f"\nMethod 1, first step: softmax over all {row.size} keys of the row, the "
            f"{'hidden one' if hidden == 1 else f'{hidden} hidden ones'} included."
        )
    else:  # a row without hidden keys ("the hidden ones included" where there are none)
        text += (
            f"\nMethod 1, first step: softmax over all {row.size} keys of the row; none of "
            f"them is hidden from query {i + 1}."
        )
    if reason:
        text += f"\nHidden, because {reason}: this weight is zeroed next."
    return text


def _weights_zeroed(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    soft = trace["weights_unmasked"][h, i, j]
    value = trace[name][h, i, j]
    reason = mask_reason(trace, i, j)
    s = score_symbols(trace.config)[0]
    lead = (
        f"softmax({s})[{i + 1},{j + 1}] × (1 − M[{i + 1},{j + 1}]) = {operand(soft)} × "
        f"{0 if reason else 1} = "
    )
    if reason:
        return f"{lead}0: hidden, because {reason}.\nMethod 1, second step: zero the hidden."
    row_sum = trace["row_sums"][h, i, 0]
    if not trace["mask"][i].any():  # not "now sums to 1.0000, not 1"
        return (
            f"{lead}{num(value)} (visible).\nMethod 1, second step: no key of row {i + 1} is "
            "hidden, so none of its weights is zeroed; it still sums to 1."
        )
    return (
        f"{lead}{num(value)} (visible).\nMethod 1, second step: the hidden weights are zeroed; "
        f"row {i + 1} now sums to {num(row_sum)}, not 1."
    )


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
        return (
            f"{sum_line}\nMethod 1, third step: no key of row {i + 1} is hidden, so its "
            f"{visible.size} weights already sum to 1 and dividing by the sum changes nothing."
            if visible.size > 1
            else f"{sum_line}\nMethod 1, third step: row {i + 1}'s one weight is 1 already."
        )
    if visible.size == 1:
        divided = f"row {i + 1}'s one visible weight is divided by this sum, which makes it 1"
    else:
        divided = (
            f"row {i + 1}'s {visible.size} visible weights are divided by this sum, so that "
            "they add up to 1 again"
        )
    taken = "the hidden key had" if hidden == 1 else f"the {hidden} hidden keys had"
    return f"{sum_line}\nMethod 1, third step: {divided}; {taken} taken {num(hidden_share)}."


def _keep(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    p = trace.config.dropout
    if trace["dropout_keep"][h, i, j]:
        return (
            f"keep[{i + 1},{j + 1}] = 1: kept (probability 1 − p = {1 - p:g}), "
            f"then multiplied by 1/(1 − p) = {num(1 / (1 - p))}."
        )
    return f"keep[{i + 1},{j + 1}] = 0: dropped (probability p = {p:g}); the weight becomes 0."


def _dropped(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    weight = float(trace["weights"][h, i, j])
    value = trace["weights_dropped"][h, i, j]
    cfg = trace.config
    reason = mask_reason(trace, i, j)
    if not cfg.dropout_active:  # the cell is α's, and is named so (as its matrix is)
        why = "evaluation mode" if not cfg.training else "p = 0"
        if reason:
            return f"α[{i + 1},{j + 1}] = 0: hidden, because {reason} (no dropout: {why})."
        return (
            f"α[{i + 1},{j + 1}] = {num(value)}: no dropout ({why}), the softmax weight "
            "is used as it is."
        )
    keep = int(trace["dropout_keep"][h, i, j])
    if reason:  # α is 0 there already: whatever the keep-mask says, the cell stays 0
        return (
            f"α_d[{i + 1},{j + 1}] = 0: hidden, because {reason}.\n"
            f"Its softmax weight α[{i + 1},{j + 1}] is 0, and dropout (keep = {keep}) "
            "leaves it 0."
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
        text += f"\nDropped by the keep-mask (probability p = {cfg.dropout:g})."
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
