"""Each stage's title, formula (plain and HTML) and the reason it is skipped.

`step_text(step)` writes them from the engine's `Step` and the config it was computed for.
The formulas write cells as the worked lines and hovers do (ω[2,1] = q2·k1, M[2,4]), and
use the symbols of what this config computes (`text.titles.score_symbols`): ω̃ only where
the scores are divided, ₘ only where the mask sets scores to −∞, α_d only where dropout drops.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.trace import Step
from attn_explorer.text.titles import score_symbols


@dataclass(frozen=True)
class StepText:
    """What a user reads about one stage: `formula` is plain text (tooltips), `formula_html`
    the same in HTML (the stage figure); `reason` says why the stage is skipped, or is ""."""

    title: str
    formula: str
    formula_html: str
    reason: str = ""


def step_text(step: Step) -> StepText:
    """The title, formulas and reason of `step`, as its config computes it."""
    cfg = step.config
    title, formula, html = _WRITERS[step.key](cfg)
    if cfg.mask_first and step.key in ("mask", "scale"):
        # Numbered in the order they are computed: 4. Mask, 5. Scaled scores.
        title = f"{'4' if step.key == 'mask' else '5'}.{title[2:]}"
    return StepText(title, formula, html, _reason(cfg, step.skip))


def _reason(cfg: AttentionConfig, skip: str) -> str:
    if skip == "no_projection":
        if cfg.is_cross:
            return "No projection (projection 'none'): Q = X, and K = V = X_kv."
        return "No projection (projection 'none'): Q = K = V = X, as in tutorial 003."
    return {
        "": "",
        "not_scaled": "Not scaled: √d_k scaling is off and the temperature is 1.",
        "no_mask": "No mask: attention is not causal and there is no padding.",
        "evaluation_mode": "No dropout: evaluation mode (training is off).",
        "no_dropout": "No dropout: p = 0.",
        "one_head": "One head: nothing to concatenate.",
        "no_out_proj": "No output projection (out_proj is off): out = Z_cat.",
    }[skip]


def _fmt(value: float) -> str:
    return f"{value:g}"


# Each writer returns (title, formula, formula_html) for one stage key.
Texts = tuple[str, str, str]


def _embeddings(cfg: AttentionConfig) -> Texts:
    cross = cfg.is_cross
    return (
        "1. Embeddings X",
        "X: one row of d_in numbers per token"
        + ("; X_kv for the key/value sequence" if cross else ""),
        "<b>X</b>: one row of d<sub>in</sub> numbers per token"
        + ("; <b>X<sub>kv</sub></b> for the key/value sequence" if cross else ""),
    )


def _projections(cfg: AttentionConfig) -> Texts:
    title = "2. Projections Q, K, V"
    if cfg.projection == "none":  # no W to write: the embeddings are used as they are
        if cfg.is_cross:
            return title, "Q = X,  K = V = X_kv", "Q = X, &nbsp; K = V = X<sub>kv</sub>"
        return title, "Q = K = V = X", "Q = K = V = X"

    # Each projection's own bias, as the worked lines write it: "q2 = x2·W_q + b_q".
    def bias(letter: str, html: bool = False) -> str:
        if not cfg.uses_bias:
            return ""
        return f" + b<sub>{letter}</sub>" if html else f" + b_{letter}"

    # nn.Linear keeps its weight as (out, in) and computes x·weightᵀ: the W of X·W, as the
    # matrices show it, is print(W_query.weight) transposed. torch.rand(d_in, d_out) is not.
    stored = stored_html = ""
    if cfg.projection == "linear":
        stored = "each W = its nn.Linear's .weight{0}"
        if cfg.head_layout == "split" and cfg.heads > 1:
            d = cfg.d_head
            cols = "column h" if d == 1 else f"columns {d}h−{d - 1}…{d}h"
            stored += f"; head h uses its {cols}"
        stored, stored_html = stored.format("ᵀ"), stored.format("<sup>T</sup>")
        stored, stored_html = f"   ({stored})", f" &nbsp; ({stored_html})"
    x_kv = "X_kv" if cfg.is_cross else "X"
    x_kv_html = "X<sub>kv</sub>" if cfg.is_cross else "X"
    return (
        title,
        f"Q = X·W_q{bias('q')},  K = {x_kv}·W_k{bias('k')},  V = {x_kv}·W_v{bias('v')}{stored}",
        f"Q = X·W<sub>q</sub>{bias('q', True)}, &nbsp; "
        f"K = {x_kv_html}·W<sub>k</sub>{bias('k', True)}, &nbsp; "
        f"V = {x_kv_html}·W<sub>v</sub>{bias('v', True)}{stored_html}",
    )


def _scores(cfg: AttentionConfig) -> Texts:
    return (
        "3. Scores ω = Q·Kᵀ",
        "ω[i,j] = q_i·k_j  (ω = Q·Kᵀ)",
        "ω = Q·K<sup>T</sup>, &nbsp; ω[i,j] = q<sub>i</sub>·k<sub>j</sub>",
    )


def _scale(cfg: AttentionConfig) -> Texts:
    parts, parts_html = [], []
    if cfg.scale:
        parts.append(f"√d_k = √{cfg.d_head}")
        parts_html.append(f"√d<sub>k</sub> = √{cfg.d_head}")
    if cfg.temperature != 1:
        parts.append(f"T = {_fmt(cfg.temperature)}")
        parts_html.append(f"T = {_fmt(cfg.temperature)}")
    # The title says what this config does: "scaled" only where √d_k scaling is on (a
    # temperature alone divides by T; with neither, nothing happens here).
    if cfg.scale:
        title = "4. Scaled scores"
    elif parts:
        title = "4. Scores ÷ temperature"
    else:
        # ω, not "ω̃ = ω": the stages after it write ω, as there is no ω̃.
        text = "ω goes on as it is: it is not divided"
        return "4. Scaling", text, text
    divisor = " · ".join(p.split(" = ")[0] for p in parts)
    divisor_html = " · ".join(p.split(" = ")[0] for p in parts_html)
    if len(parts) > 1:
        divisor, divisor_html = f"({divisor})", f"({divisor_html})"
    if cfg.mask_first:  # tutorial 000's order: the raw scores are masked, then divided
        return (
            title,
            f"ω̃ₘ = ωₘ / {divisor},  {', '.join(parts)}  (−∞ / {divisor} = −∞)",
            f"ω̃<sub>m</sub> = ω<sub>m</sub> / {divisor_html}, &nbsp; "
            f"{', '.join(parts_html)} &nbsp; (−∞ / {divisor_html} = −∞)",
        )
    return (
        title,
        f"ω̃ = ω / {divisor},  {', '.join(parts)}",
        f"ω̃ = ω / {divisor_html}, &nbsp; {', '.join(parts_html)}",
    )


def _mask(cfg: AttentionConfig) -> Texts:
    title = "5. Mask"
    what = []
    if cfg.causal:
        what.append("causal: key j > query i is hidden")
    if cfg.valid_len is not None:
        what.append(f"padding: keys after {cfg.valid_len} are hidden")
    hidden = "; ".join(what)
    scaled, fed = score_symbols(cfg)
    masked = fed if fed.endswith("ₘ") else f"{scaled}ₘ"
    if cfg.method_1:
        # Method 1 masks softmax's output, not its input: the scores pass through.
        text = (
            f"M[i,j] = 1 where key j is hidden ({hidden}); method 1 leaves {scaled} "
            "unmasked: softmax sees every score"
        )
        return title, text, text
    if cfg.mask_first:
        # The raw scores ω are masked (masked_fill), the division comes next.
        return (
            title,
            f"ωₘ[i,j] = −∞ where M[i,j], else ω[i,j]  ({hidden}); "
            "the raw scores are masked, then divided",
            f"ω<sub>m</sub>[i,j] = −∞ where M[i,j], else ω[i,j] &nbsp; ({hidden}); "
            "the raw scores are masked, then divided",
        )
    if not what:
        # No "ωₘ = −∞ where M": no score is set to −∞, and no ωₘ is written after it.
        text = f"every key is visible: softmax reads {scaled} as it is"
        return title, text, text
    return (
        title,
        f"{masked}[i,j] = −∞ where M[i,j], else {scaled}[i,j]  ({hidden})",
        f"{masked.replace('ₘ', '<sub>m</sub>')}[i,j] = −∞ where M[i,j], else {scaled}[i,j]"
        f" &nbsp; ({hidden})",
    )


def _softmax(cfg: AttentionConfig) -> Texts:
    scaled, fed = score_symbols(cfg)
    if cfg.method_1:
        # Tutorial 000's first way, in its order: softmax(ω̃), ⊙ (1 − M), ÷ the row sums.
        what_happens = (
            f"method 1: softmax of every score {scaled}, the hidden weights zeroed, each row "
            "divided by its visible sum"
        )
        return (
            "6. Softmax",
            f"α = softmax({scaled}) ⊙ (1 − M) / Σ_visible  ({what_happens})",
            f"α = softmax({scaled}) ⊙ (1 − M) / Σ<sub>visible</sub> &nbsp; ({what_happens})",
        )
    # As the followed query's worked line writes it: "α[2,1] = exp(ω̃ₘ[2,1]) / Σⱼ' …".
    fed_html = fed.replace("ₘ", "<sub>m</sub>")
    return (
        "6. Softmax",
        f"α[i,j] = exp({fed}[i,j]) / Σⱼ' exp({fed}[i,j'])  (each row sums to 1)",
        f"α[i,j] = exp({fed_html}[i,j]) / Σ<sub>j'</sub> exp({fed_html}[i,j'])"
        " &nbsp; (each row sums to 1)",
    )


def _dropout(cfg: AttentionConfig) -> Texts:
    if not cfg.dropout_active:  # no α_d, no keep-mask: the weights go on as they are
        why = "evaluation mode" if not cfg.training else "p = 0"
        text = f"α goes on as it is: nothing is dropped ({why})"
        return "7. Dropout", text, text
    p = _fmt(cfg.dropout)
    keep_scale = _fmt(1 / (1 - cfg.dropout)) if cfg.dropout < 1 else "∞"
    # Where the keep-mask's random numbers come from, when not straight after the weights.
    reseed = (
        f"  (keep drawn after torch.manual_seed({cfg.dropout_seed}))"
        if cfg.dropout_seed is not None
        else ""
    )
    return (
        "7. Dropout",
        f"α_d = α ⊙ keep / (1 − p),  keep ~ Bernoulli(1 − p),  "
        f"p = {p}, 1/(1 − p) = {keep_scale}{reseed}",
        f"α<sub>d</sub> = α ⊙ keep / (1 − p), &nbsp; keep ~ Bernoulli(1 − p), &nbsp; "
        f"p = {p}, 1/(1 − p) = {keep_scale}{reseed}",
    )


def _context(cfg: AttentionConfig) -> Texts:
    # The weights A·V reads: α_d after a dropout that applies, else the softmax weights α.
    # Its sum as the followed query's worked line and a cell's hover write it, filled in:
    # "z2[1] = Σⱼ α[2,j]·vⱼ[1]".
    alpha = "α_d" if cfg.dropout_active else "α"
    alpha_html = "α<sub>d</sub>" if cfg.dropout_active else "α"
    # "for each head h" only where there are heads to tell apart.
    several = cfg.heads > 1
    per_head, per_head_html = ("Z_h", "Z<sub>h</sub>") if several else ("Z", "Z")
    each = " for each head h" if several else ""
    return (
        f"8. Context Z = {alpha}·V",
        f"{per_head} = {alpha}·V{each}  (z_i = Σⱼ {alpha}[i,j]·vⱼ)",
        f"{per_head_html} = {alpha_html}·V{each} &nbsp; "
        f"(z<sub>i</sub> = Σ<sub>j</sub> {alpha_html}[i,j]·v<sub>j</sub>)",
    )


def _concat(cfg: AttentionConfig) -> Texts:
    if cfg.heads == 1:  # not "Z_cat = [Z_1]" under "Concatenate heads": there is one Z
        return "9. Concatenation", "Z_cat = Z", "Z<sub>cat</sub> = Z"
    return (
        "9. Concatenate heads",
        f"Z_cat = [{_head_list(cfg.heads, '{}_{}')}]",
        f"Z<sub>cat</sub> = [{_head_list(cfg.heads, '{}<sub>{}</sub>')}]",
    )


def _head_list(heads: int, subscript: str) -> str:
    """Z_1 | Z_2 as a formula lists heads: all of up to three, else first, ellipsis, last."""
    numbers = list(range(1, heads + 1)) if heads <= 3 else [1, None, heads]
    return " | ".join("…" if h is None else subscript.format("Z", h) for h in numbers)


def _out_proj(cfg: AttentionConfig) -> Texts:
    if not cfg.out_proj:  # no W_o or b_o to write: the output is the concatenation
        return "10. Output projection", "out = Z_cat", "out = Z<sub>cat</sub>"
    return (
        "10. Output projection",
        "out = Z_cat·W_o + b_o   (W_o = out_proj.weightᵀ, as nn.Linear stores W)",
        "out = Z<sub>cat</sub>·W<sub>o</sub> + b<sub>o</sub> &nbsp; "
        "(W<sub>o</sub> = out_proj.weight<sup>T</sup>, as nn.Linear stores W)",
    )


_WRITERS: dict[str, Callable[[AttentionConfig], Texts]] = {
    "embeddings": _embeddings,
    "projections": _projections,
    "scores": _scores,
    "scale": _scale,
    "mask": _mask,
    "softmax": _softmax,
    "dropout": _dropout,
    "context": _context,
    "concat": _concat,
    "out_proj": _out_proj,
}
