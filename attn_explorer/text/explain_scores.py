"""Derivations of the scores' cells: ω = Q·Kᵀ, its division by √d_k and T, the mask, and
the scores softmax reads, in either order of mask and scaling and under either mask method."""

from __future__ import annotations

from attn_explorer.engine.trace import Trace
from attn_explorer.text.i18n import _
from attn_explorer.text.numbers import division, num, operand, sum_of_products
from attn_explorer.text.titles import divisor_symbol, score_symbols
from attn_explorer.text.tokens import quoted


def both(first: str, second: str) -> str:
    """Two reasons (or two divisors) in one clause: "A and B"."""
    return _("{first} and {second}").format(first=first, second=second)


def hidden_because(cell: str, value: str, reason: str) -> str:
    """The one sentence every array writes about a hidden cell, its value however that array
    holds it: α[2,4] = 0: hidden, because key 4 comes after query 2 (causal mask)."""
    return _("{cell} = {value}: hidden, because {reason}.").format(
        cell=cell, value=value, reason=reason
    )


def mask_reason(trace: Trace, i: int, j: int) -> str:
    """Why key j is hidden from query i, as a clause after "because"; "" where it is not."""
    cfg = trace.config
    reasons = []
    if cfg.causal and j > i:
        reasons.append(
            _("key {key} comes after query {query} (causal mask)").format(key=j + 1, query=i + 1)
        )
    if cfg.valid_len is not None and j >= cfg.valid_len:
        reasons.append(
            _("key {key} is padding, beyond the valid length {length}").format(
                key=j + 1, length=cfg.valid_len
            )
        )
    return both(*reasons) if len(reasons) == 2 else "".join(reasons)


def _why_divided(trace: Trace) -> str:
    """What a score is divided by, in words: "√d_k with d_k = 2, the width of a key"."""
    cfg = trace.config
    why = []
    if cfg.scale:
        why.append(_("√d_k with d_k = {d_k}, the width of a key").format(d_k=cfg.d_head))
    if cfg.temperature != 1:
        why.append(_("temperature T = {t}").format(t=f"{cfg.temperature:g}"))
    return both(*why) if len(why) == 2 else "".join(why)


def _scores(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    q = trace["queries"][h, i]
    k = trace["keys"][h, j]
    value = trace["scores"][h, i, j]
    pairs = list(zip(q.tolist(), k.tolist(), strict=True))
    return (
        f"ω[{i + 1},{j + 1}] = q{i + 1}·k{j + 1} = {sum_of_products(pairs)} = {num(value)}\n"
        + _("How much query {query} {query_token} matches key {key} {key_token}.").format(
            query=i + 1,
            query_token=quoted(trace.q_tokens, i),
            key=j + 1,
            key_token=quoted(trace.k_tokens, j),
        )
    )


def _divisor_text(trace: Trace) -> tuple[str, str]:
    """The divisor symbolically and as a number, e.g. ('√2 · 0.5', '0.7071')."""
    cfg = trace.config
    parts = []
    if cfg.scale:
        parts.append(f"√{cfg.d_head}")
    if cfg.temperature != 1:
        parts.append(f"{cfg.temperature:g}")
    return " · ".join(parts), operand(cfg.scale_divisor)


def _scaled(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    if trace.config.mask_first:
        return _scaled_masked(trace, h, i, j)
    raw = trace["scores"][h, i, j]
    value = trace["scaled_scores"][h, i, j]
    symbolic = _divisor_text(trace)[0]
    if not symbolic:  # no ω̃: the scores go on as ω, as every stage after writes them
        return f"ω[{i + 1},{j + 1}] = {num(value)}\n" + _(
            "Not scaled: √d_k scaling is off and T = 1, so the score goes on as it is."
        )
    if " · " in symbolic:
        symbolic = f"({symbolic})"
    dividend, divisor = division(float(raw), trace.config.scale_divisor, float(value))
    return (
        f"ω̃[{i + 1},{j + 1}] = ω[{i + 1},{j + 1}] / {symbolic} = {dividend} / {divisor} = "
        f"{num(value)}\n" + _("Divided by {why}.").format(why=_why_divided(trace))
    )


def _scaled_masked(trace: Trace, h: int, i: int, j: int) -> str:
    """A cell of ωₘ / √d_k, tutorial 000's order: the masked raw score divided, −∞ staying
    −∞ (softmax(masked / keys.shape[-1]**0.5))."""
    cfg = trace.config
    symbolic = _divisor_text(trace)[0]
    if " · " in symbolic:
        symbolic = f"({symbolic})"
    cell = f"[{i + 1},{j + 1}]"
    lead = f"ω̃ₘ{cell} = ωₘ{cell} / {symbolic}"
    reason = mask_reason(trace, i, j)
    if reason:
        return f"{lead} = −∞ / {symbolic} = −∞\n" + _(
            "Hidden, because {reason}: masked before the division, and −∞ divided by a positive"
            " number stays −∞; softmax gives it 0."
        ).format(reason=reason)
    raw = trace["masked_scores"][h, i, j]
    value = trace["scaled_scores"][h, i, j]
    dividend, divisor = division(float(raw), cfg.scale_divisor, float(value))
    return f"{lead} = {dividend} / {divisor} = {num(value)}\n" + _(
        "The masked score divided by {why}: what softmax reads."
    ).format(why=_why_divided(trace))


def _mask(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    reason = mask_reason(trace, i, j)
    if reason:
        return hidden_because(f"M[{i + 1},{j + 1}]", "True", reason)
    return _(
        "{cell} = False: query {query} {query_token} may attend to key {key} {key_token}."
    ).format(
        cell=f"M[{i + 1},{j + 1}]",
        query=i + 1,
        query_token=quoted(trace.q_tokens, i),
        key=j + 1,
        key_token=quoted(trace.k_tokens, j),
    )


def _masked(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    reason = mask_reason(trace, i, j)
    scaled, fed = score_symbols(trace.config)
    if not trace.config.has_mask:  # softmax reads the scores of the stage before as they are
        if scaled == "ω":
            text = _scores(trace, "scores", h, i, j).split("\n")[0]
            return f"{text}\n" + _("Not scaled, no mask: softmax reads ω as it is.")
        text = _scaled(trace, "scaled_scores", h, i, j).split("\n")[0]
        return f"{text}\n" + _("No mask: softmax reads ω̃ as it is.")
    cell = f"[{i + 1},{j + 1}]"
    if trace.config.mask_first:  # tutorial 000's order: the raw scores are masked
        if reason:
            return (
                hidden_because(f"ωₘ{cell}", "−∞", reason)
                + "\n"
                + _(
                    "The raw score is masked before it is divided (masked_fill, then"
                    " softmax(masked / {divisor})): −∞ stays −∞, and exp(−∞) = 0 gives it"
                    " weight 0."
                ).format(divisor=divisor_symbol(trace.config))
            )
        value = trace["masked_scores"][h, i, j]
        return (
            visible_cell(f"ωₘ{cell} = ω{cell} = {num(value)}")
            + "\n"
            + _("The raw score, masked before it is divided.")
        )
    if trace.config.method_1:  # the scores go to softmax unmasked; its output is masked
        value = trace["masked_scores"][h, i, j]
        formula = f"{scaled}{cell} = {num(value)}"
        if not reason:
            return _(
                "{formula}: fed to softmax as it is (method 1 does not mask the scores)."
            ).format(formula=formula)
        zeroed = trace["weights_unmasked"][h, i, j]
        return (
            _("{formula}: fed to softmax as it is, though hidden, because {reason}.").format(
                formula=formula, reason=reason
            )
            + "\n"
            + _(
                "Method 1 masks after softmax: its weight {weight} = {value} is then zeroed,"
                " and the row divided by its visible sum."
            ).format(weight=f"softmax({scaled}){cell}", value=num(zeroed))
        )
    if reason:
        return (
            hidden_because(f"{fed}{cell}", "−∞", reason)
            + "\n"
            + _("exp(−∞) = 0, so its attention weight will be exactly 0.")
        )
    value = trace["masked_scores"][h, i, j]
    return visible_cell(f"{fed}{cell} = {scaled}{cell} = {num(value)}")


def visible_cell(formula: str) -> str:
    """A cell the mask lets through: ω̃ₘ[2,1] = ω̃[2,1] = 0.8984 (visible)."""
    return _("{formula} (visible).").format(formula=formula)


EXPLAINERS = {
    "scores": _scores,
    "scaled_scores": _scaled,
    "mask": _mask,
    "masked_scores": _masked,
}
