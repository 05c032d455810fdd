"""Derivations of the scores' cells: ω = Q·Kᵀ, its division by √d_k and T, the mask, and
the scores softmax reads, in either order of mask and scaling and under either mask method."""

from __future__ import annotations

from attn_explorer.engine.trace import Trace
from attn_explorer.text.numbers import division, num, operand, sum_of_products
from attn_explorer.text.titles import divisor_symbol, score_symbols
from attn_explorer.text.tokens import quoted


def mask_reason(trace: Trace, i: int, j: int) -> str:
    cfg = trace.config
    reasons = []
    if cfg.causal and j > i:
        reasons.append(f"key {j + 1} comes after query {i + 1} (causal mask)")
    if cfg.valid_len is not None and j >= cfg.valid_len:
        reasons.append(f"key {j + 1} is padding, beyond the valid length {cfg.valid_len}")
    return " and ".join(reasons)


def _scores(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    q = trace["queries"][h, i]
    k = trace["keys"][h, j]
    value = trace["scores"][h, i, j]
    pairs = list(zip(q.tolist(), k.tolist(), strict=True))
    return (
        f"ω[{i + 1},{j + 1}] = q{i + 1}·k{j + 1} = {sum_of_products(pairs)} = {num(value)}\n"
        f"How much query {i + 1} {quoted(trace.q_tokens, i)} matches key {j + 1} "
        f"{quoted(trace.k_tokens, j)}."
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
        return (
            f"ω[{i + 1},{j + 1}] = {num(value)}\n"
            "Not scaled: √d_k scaling is off and T = 1, so the score goes on as it is."
        )
    if " · " in symbolic:
        symbolic = f"({symbolic})"
    why = []
    if trace.config.scale:
        why.append(f"√d_k with d_k = {trace.config.d_head}, the width of a key")
    if trace.config.temperature != 1:
        why.append(f"temperature T = {trace.config.temperature:g}")
    dividend, divisor = division(float(raw), trace.config.scale_divisor, float(value))
    return (
        f"ω̃[{i + 1},{j + 1}] = ω[{i + 1},{j + 1}] / {symbolic} = {dividend} / {divisor} = "
        f"{num(value)}\nDivided by {' and '.join(why)}."
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
        return (
            f"{lead} = −∞ / {symbolic} = −∞\nHidden, because {reason}: masked before the "
            "division, and −∞ divided by a positive number stays −∞; softmax gives it 0."
        )
    raw = trace["masked_scores"][h, i, j]
    value = trace["scaled_scores"][h, i, j]
    why = []
    if cfg.scale:
        why.append(f"√d_k with d_k = {cfg.d_head}, the width of a key")
    if cfg.temperature != 1:
        why.append(f"temperature T = {cfg.temperature:g}")
    dividend, divisor = division(float(raw), cfg.scale_divisor, float(value))
    return (
        f"{lead} = {dividend} / {divisor} = {num(value)}\n"
        f"The masked score divided by {' and '.join(why)}: what softmax reads."
    )


def _mask(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    reason = mask_reason(trace, i, j)
    if reason:
        return f"M[{i + 1},{j + 1}] = True: hidden, because {reason}."
    return (
        f"M[{i + 1},{j + 1}] = False: query {i + 1} {quoted(trace.q_tokens, i)} may attend to "
        f"key {j + 1} {quoted(trace.k_tokens, j)}."
    )


def _masked(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    reason = mask_reason(trace, i, j)
    scaled, fed = score_symbols(trace.config)
    if not trace.config.has_mask:  # softmax reads the scores of the stage before as they are
        if scaled == "ω":
            text = _scores(trace, "scores", h, i, j).split("\n")[0]
            return f"{text}\nNot scaled, no mask: softmax reads ω as it is."
        text = _scaled(trace, "scaled_scores", h, i, j).split("\n")[0]
        return f"{text}\nNo mask: softmax reads ω̃ as it is."
    if trace.config.mask_first:  # tutorial 000's order: the raw scores are masked
        if reason:
            return (
                f"ωₘ[{i + 1},{j + 1}] = −∞: hidden, because {reason}.\n"
                "The raw score is masked before it is divided (masked_fill, then "
                f"softmax(masked / {divisor_symbol(trace.config)})): −∞ stays −∞, and "
                "exp(−∞) = 0 gives it weight 0."
            )
        value = trace["masked_scores"][h, i, j]
        return (
            f"ωₘ[{i + 1},{j + 1}] = ω[{i + 1},{j + 1}] = {num(value)} (visible).\n"
            "The raw score, masked before it is divided."
        )
    if trace.config.method_1:  # the scores go to softmax unmasked; its output is masked
        value = trace["masked_scores"][h, i, j]
        text = f"{scaled}[{i + 1},{j + 1}] = {num(value)}: fed to softmax as it is"
        if not reason:
            return f"{text} (method 1 does not mask the scores)."
        zeroed = trace["weights_unmasked"][h, i, j]
        return (
            f"{text}, though hidden, because {reason}.\n"
            f"Method 1 masks after softmax: its weight softmax({scaled})[{i + 1},{j + 1}] = "
            f"{num(zeroed)} is then zeroed, and the row divided by its visible sum."
        )
    if reason:
        return (
            f"{fed}[{i + 1},{j + 1}] = −∞: hidden, because {reason}.\n"
            "exp(−∞) = 0, so its attention weight will be exactly 0."
        )
    value = trace["masked_scores"][h, i, j]
    return f"{fed}[{i + 1},{j + 1}] = {scaled}[{i + 1},{j + 1}] = {num(value)} (visible)."


EXPLAINERS = {
    "scores": _scores,
    "scaled_scores": _scaled,
    "mask": _mask,
    "masked_scores": _masked,
}
