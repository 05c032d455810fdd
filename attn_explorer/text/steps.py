"""Each stage's title, formula (plain and HTML) and the reason it is skipped.

`step_text(step)` writes them from the engine's `Step` and the config it was computed for.
The formulas write cells as the worked lines and hovers do (ω[2,1] = q2·k1, M[2,4]), and
use the symbols of what this config computes (`text.titles.score_symbols`): ω̃ only where
the scores are divided, ₘ only where the mask sets scores to −∞, α_d only where dropout drops.

The words are translated where they are written. A formula's words are one template for its
plain and its HTML form, the symbols filled in as each writes them ("d_in", "d<sub>in</sub>"),
so a translator meets each sentence once. Stage titles are `pgettext("stage", ...)`: the
stage "Context Z = α·V" is a step, "Tính context vector ...", where the array of that name is
a noun.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.trace import Step
from attn_explorer.text.i18n import _, pgettext
from attn_explorer.text.titles import score_symbols
from attn_explorer.text.tutorials import tutorial


@dataclass(frozen=True)
class StepText:
    """What a user reads about one stage: `formula` is plain text (tooltips), `formula_html`
    the same in HTML (the stage figure); `reason` says why the stage is skipped, or is ""."""

    title: str
    formula: str
    formula_html: str
    reason: str = ""


# Each stage's number in the order of an ordinary config; where the raw scores are masked
# first, the mask is computed fourth and the scaled scores fifth.
_NUMBERS = {
    "embeddings": 1,
    "projections": 2,
    "scores": 3,
    "scale": 4,
    "mask": 5,
    "softmax": 6,
    "dropout": 7,
    "context": 8,
    "concat": 9,
    "out_proj": 10,
}


def step_text(step: Step) -> StepText:
    """The title, formulas and reason of `step`, as its config computes it."""
    cfg = step.config
    name, formula, html = _WRITERS[step.key](cfg)
    number = _NUMBERS[step.key]
    if cfg.mask_first and step.key in ("mask", "scale"):
        number = 4 if step.key == "mask" else 5  # numbered in the order they are computed
    # "Bước 3. Tính attention score", as the tutorials number their steps.
    title = pgettext("stage number", "{number}. {title}").format(number=number, title=name)
    return StepText(title, formula, html, _reason(cfg, step.skip))


def _reason(cfg: AttentionConfig, skip: str) -> str:
    if skip == "no_projection":
        if cfg.is_cross:
            return _("No projection (projection 'none'): Q = X, and K = V = X_kv.")
        return _("No projection (projection 'none'): Q = K = V = X, as in {tutorial}.").format(
            tutorial=tutorial("day43")
        )
    if skip == "":
        return ""
    return {
        "not_scaled": _("Not scaled: √d_k scaling is off and the temperature is 1."),
        "no_mask": _("No mask: attention is not causal and there is no padding."),
        "evaluation_mode": _("No dropout: evaluation mode (training is off)."),
        "no_dropout": _("No dropout: p = 0."),
        "one_head": _("One head: nothing to concatenate."),
        "no_out_proj": _("No output projection (out_proj is off): out = Z_cat."),
    }[skip]


def _fmt(value: float) -> str:
    return f"{value:g}"


# Each writer returns (title, formula, formula_html) for one stage key; the title without its
# number, which `step_text` adds.
Texts = tuple[str, str, str]
# The space between a formula and its words in brackets: "ω[i,j] = …  (causal: …)".
GAP, GAP_HTML = "  ", " &nbsp; "


def _embeddings(cfg: AttentionConfig) -> Texts:
    def rows(x: str, d_in: str, x_kv: str) -> str:
        text = _("{X}: one row of {d_in} numbers per token").format(X=x, d_in=d_in)
        if cfg.is_cross:
            text += "; " + _("{X_kv} for the key/value sequence").format(X_kv=x_kv)
        return text

    return (
        pgettext("stage", "Embeddings X"),
        rows("X", "d_in", "X_kv"),
        rows("<b>X</b>", "d<sub>in</sub>", "<b>X<sub>kv</sub></b>"),
    )


def _projections(cfg: AttentionConfig) -> Texts:
    title = pgettext("stage", "Projections Q, K, V")
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
        stored = _("each W = its nn.Linear's .weight{T}")
        if cfg.head_layout == "split" and cfg.heads > 1:
            d = cfg.d_head
            if d == 1:
                cols = _("head h uses its column h")
            else:
                cols = _("head h uses its columns {first}…{last}").format(
                    first=f"{d}h−{d - 1}", last=f"{d}h"
                )
            stored += "; " + cols.replace("{", "{{").replace("}", "}}")
        stored, stored_html = stored.format(T="ᵀ"), stored.format(T="<sup>T</sup>")
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
        pgettext("stage", "Scores ω = Q·Kᵀ"),
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
        title = pgettext("stage", "Scaled scores")
    elif parts:
        title = pgettext("stage", "Scores ÷ temperature")
    else:
        # ω, not "ω̃ = ω": the stages after it write ω, as there is no ω̃.
        text = _("ω goes on as it is: it is not divided")
        return pgettext("stage", "Scaling"), text, text
    divisor = " · ".join(p.split(" = ")[0] for p in parts)
    divisor_html = " · ".join(p.split(" = ")[0] for p in parts_html)
    if len(parts) > 1:
        divisor, divisor_html = f"({divisor})", f"({divisor_html})"
    if cfg.mask_first:  # the book's order (§3.5.1): the raw scores are masked, then divided
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
    title = pgettext("stage", "Mask")
    what = []
    if cfg.causal:
        what.append(_("causal: key j > query i is hidden"))
    if cfg.valid_len is not None:
        what.append(_("padding: keys after {0} are hidden").format(cfg.valid_len))
    hidden = "; ".join(what)
    scaled, fed = score_symbols(cfg)
    masked = fed if fed.endswith("ₘ") else f"{scaled}ₘ"
    if cfg.method_1:
        # Method 1 masks softmax's output, not its input: the scores pass through.
        text = _(
            "M[i,j] = 1 where key j is hidden ({hidden}); method 1 leaves {scores} "
            "unmasked: softmax sees every score"
        ).format(hidden=hidden, scores=scaled)
        return title, text, text

    def rule(masked: str, scores: str) -> str:
        return _("{masked}[i,j] = −∞ where M[i,j], else {scores}[i,j]").format(
            masked=masked, scores=scores
        )

    if cfg.mask_first:
        # The raw scores ω are masked (masked_fill), the division comes next.
        after = _("the raw scores are masked, then divided")
        return (
            title,
            f"{rule('ωₘ', 'ω')}{GAP}({hidden}); {after}",
            f"{rule('ω<sub>m</sub>', 'ω')}{GAP_HTML}({hidden}); {after}",
        )
    if not what:
        # No "ωₘ = −∞ where M": no score is set to −∞, and no ωₘ is written after it.
        text = _("every key is visible: softmax reads {scores} as it is").format(scores=scaled)
        return title, text, text
    return (
        title,
        f"{rule(masked, scaled)}{GAP}({hidden})",
        f"{rule(masked.replace('ₘ', '<sub>m</sub>'), scaled)}{GAP_HTML}({hidden})",
    )


def _softmax(cfg: AttentionConfig) -> Texts:
    title = pgettext("stage", "Softmax")
    scaled, fed = score_symbols(cfg)
    if cfg.method_1:
        # The book's first way (§3.5.1), in its order: softmax(ω̃), ⊙ (1 − M), ÷ the row sums.
        what_happens = _(
            "method 1: softmax of every score {scores}, the hidden weights zeroed, each row "
            "divided by its visible sum"
        ).format(scores=scaled)
        visible = pgettext("sum over the keys", "visible")
        return (
            title,
            f"α = softmax({scaled}) ⊙ (1 − M) / Σ_{visible}{GAP}({what_happens})",
            f"α = softmax({scaled}) ⊙ (1 − M) / Σ<sub>{visible}</sub>{GAP_HTML}({what_happens})",
        )
    # As the followed query's worked line writes it: "α[2,1] = exp(ω̃ₘ[2,1]) / Σⱼ' …".
    fed_html = fed.replace("ₘ", "<sub>m</sub>")
    rows = _("each row sums to 1")
    return (
        title,
        f"α[i,j] = exp({fed}[i,j]) / Σⱼ' exp({fed}[i,j']){GAP}({rows})",
        f"α[i,j] = exp({fed_html}[i,j]) / Σ<sub>j'</sub> exp({fed_html}[i,j']){GAP_HTML}({rows})",
    )


def _dropout(cfg: AttentionConfig) -> Texts:
    title = pgettext("stage", "Dropout")
    if not cfg.dropout_active:  # no α_d, no keep-mask: the weights go on as they are
        if not cfg.training:
            text = _("α goes on as it is: nothing is dropped (evaluation mode)")
        else:
            text = _("α goes on as it is: nothing is dropped (p = 0)")
        return title, text, text
    p = _fmt(cfg.dropout)
    keep_scale = _fmt(1 / (1 - cfg.dropout)) if cfg.dropout < 1 else "∞"
    # Where the keep-mask's random numbers come from, when not straight after the weights.
    reseed = ""
    if cfg.dropout_seed is not None:
        drawn = _("keep drawn after {call}").format(call=f"torch.manual_seed({cfg.dropout_seed})")
        reseed = f"{GAP}({drawn})"
    return (
        title,
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
    def product(z: str, alpha: str) -> str:
        if cfg.heads > 1:
            return _("{Z} = {alpha}·V for each head h").format(Z=z, alpha=alpha)
        return f"{z} = {alpha}·V"

    return (
        pgettext("stage", "Context Z = {alpha}·V").format(alpha=alpha),
        f"{product('Z_h' if cfg.heads > 1 else 'Z', alpha)}{GAP}(z_i = Σⱼ {alpha}[i,j]·vⱼ)",
        f"{product('Z<sub>h</sub>' if cfg.heads > 1 else 'Z', alpha_html)}{GAP_HTML}"
        f"(z<sub>i</sub> = Σ<sub>j</sub> {alpha_html}[i,j]·v<sub>j</sub>)",
    )


def _concat(cfg: AttentionConfig) -> Texts:
    if cfg.heads == 1:  # not "Z_cat = [Z_1]" under "Concatenate heads": there is one Z
        return pgettext("stage", "Concatenation"), "Z_cat = Z", "Z<sub>cat</sub> = Z"
    return (
        pgettext("stage", "Concatenate heads"),
        f"Z_cat = [{_head_list(cfg.heads, '{}_{}')}]",
        f"Z<sub>cat</sub> = [{_head_list(cfg.heads, '{}<sub>{}</sub>')}]",
    )


def _head_list(heads: int, subscript: str) -> str:
    """Z_1 | Z_2 as a formula lists heads: all of up to three, else first, ellipsis, last."""
    numbers = list(range(1, heads + 1)) if heads <= 3 else [1, None, heads]
    return " | ".join("…" if h is None else subscript.format("Z", h) for h in numbers)


def _out_proj(cfg: AttentionConfig) -> Texts:
    title = pgettext("stage", "Output projection")
    if not cfg.out_proj:  # no W_o or b_o to write: the output is the concatenation
        return title, "out = Z_cat", "out = Z<sub>cat</sub>"

    def stored(w_o: str, t: str) -> str:
        return _("{W_o} = out_proj.weight{T}, as nn.Linear stores W").format(W_o=w_o, T=t)

    return (
        title,
        f"out = Z_cat·W_o + b_o   ({stored('W_o', 'ᵀ')})",
        "out = Z<sub>cat</sub>·W<sub>o</sub> + b<sub>o</sub> &nbsp; "
        f"({stored('W<sub>o</sub>', '<sup>T</sup>')})",
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
