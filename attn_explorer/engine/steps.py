"""The ten stages of attention, in order, with formulas and whether this config uses each one.

The order is the computation's: the scale stage comes before the mask, except where the
config masks the raw scores first (`AttentionConfig.mask_first`, tutorial 000's order), and
`step_keys` gives the order of one config.

The list depends only on the structure of a config (flags and sizes), never on embedding
values, so it is cached: dragging a value in the embedding editor reuses it.
"""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from attn_explorer.engine.arrays import score_symbols
from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.trace import Step

# Order of the step-through; also the order of figure pages.
STEP_KEYS = (
    "embeddings",
    "projections",
    "scores",
    "scale",
    "mask",
    "softmax",
    "dropout",
    "context",
    "concat",
    "out_proj",
)
# Tutorial 000's order (masked_fill on the raw scores, then softmax(masked / √d_k)).
MASK_FIRST_KEYS = (*STEP_KEYS[:3], "mask", "scale", *STEP_KEYS[5:])


def step_keys(config: AttentionConfig) -> tuple[str, ...]:
    """The stages in the order `config` computes them (its trace's `steps`)."""
    return MASK_FIRST_KEYS if config.mask_first else STEP_KEYS


def build_steps(config: AttentionConfig, shapes: dict[str, tuple[int, ...]]) -> tuple[Step, ...]:
    key = (
        config.projection,
        config.head_layout,
        config.is_cross,
        config.uses_bias,
        config.scale,
        config.temperature,
        config.causal,
        config.valid_len,
        config.mask_method,
        config.mask_first,
        config.dropout,
        config.dropout_seed,
        config.training,
        config.heads,
        config.d_head,
        config.out_proj,
        tuple(sorted(shapes.items())),
    )
    return _build(key, config, shapes)


_CACHE: dict[tuple, tuple[Step, ...]] = {}


def _build(key: tuple, config: AttentionConfig, shapes: dict[str, tuple[int, ...]]) -> tuple:
    cached = _CACHE.get(key)
    if cached is None:
        if len(_CACHE) >= 256:
            _CACHE.clear()
        cached = _CACHE[key] = _make_steps(config, shapes)
    return cached


def _fmt(value: float) -> str:
    return f"{value:g}"


def _make_steps(cfg: AttentionConfig, shapes: dict[str, tuple[int, ...]]) -> tuple[Step, ...]:
    def step(
        key: str,
        title: str,
        formula: str,
        html: str,
        reads: tuple[str, ...],
        writes: tuple[str, ...],
        reason: str = "",
    ) -> Step:
        names = [n for n in reads + writes if n in shapes]
        return Step(
            key=key,
            title=title,
            formula=formula,
            formula_html=html,
            reads=tuple(n for n in reads if n in shapes),
            writes=tuple(n for n in writes if n in shapes),
            shapes=MappingProxyType({n: shapes[n] for n in names}),
            applies=not reason,
            reason=reason,
        )

    x_kv = "X_kv" if cfg.is_cross else "X"
    x_kv_html = "X<sub>kv</sub>" if cfg.is_cross else "X"
    inputs = ("x", "x_kv") if cfg.is_cross else ("x",)
    steps = [
        step(
            "embeddings",
            "1. Embeddings X",
            "X: one row of d_in numbers per token"
            + ("; X_kv for the key/value sequence" if cfg.is_cross else ""),
            "<b>X</b>: one row of d<sub>in</sub> numbers per token"
            + ("; <b>X<sub>kv</sub></b> for the key/value sequence" if cfg.is_cross else ""),
            (),
            inputs,
        )
    ]

    # Each projection's own bias, as the worked lines write it: "q2 = x2·W_q + b_q".
    def bias(letter: str, html: bool = False) -> str:
        if not cfg.uses_bias:
            return ""
        return f" + b<sub>{letter}</sub>" if html else f" + b_{letter}"

    if cfg.projection == "none" and cfg.is_cross:
        proj_reason = "No projection (projection 'none'): Q = X, and K = V = X_kv."
    elif cfg.projection == "none":
        proj_reason = "No projection (projection 'none'): Q = K = V = X, as in tutorial 003."
    else:
        proj_reason = ""
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
    if cfg.projection == "none":  # no W to write: the embeddings are used as they are
        if cfg.is_cross:
            proj, proj_html = "Q = X,  K = V = X_kv", "Q = X, &nbsp; K = V = X<sub>kv</sub>"
        else:
            proj = proj_html = "Q = K = V = X"
    else:
        proj = (
            f"Q = X·W_q{bias('q')},  K = {x_kv}·W_k{bias('k')},  V = {x_kv}·W_v{bias('v')}{stored}"
        )
        proj_html = (
            f"Q = X·W<sub>q</sub>{bias('q', True)}, &nbsp; "
            f"K = {x_kv_html}·W<sub>k</sub>{bias('k', True)}, &nbsp; "
            f"V = {x_kv_html}·W<sub>v</sub>{bias('v', True)}{stored_html}"
        )
    steps.append(
        step(
            "projections",
            "2. Projections Q, K, V",
            proj,
            proj_html,
            (*inputs, "w_query", "w_key", "w_value", "b_query", "b_key", "b_value"),
            ("queries", "keys", "values"),
            proj_reason,
        )
    )
    steps.append(
        step(
            "scores",
            "3. Scores ω = Q·Kᵀ",
            # Cells as the worked lines and hovers write them: ω[2,1] = q2·k1, M[2,4].
            "ω[i,j] = q_i·k_j  (ω = Q·Kᵀ)",
            "ω = Q·K<sup>T</sup>, &nbsp; ω[i,j] = q<sub>i</sub>·k<sub>j</sub>",
            ("queries", "keys"),
            ("scores",),
        )
    )

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
        scale_title = "4. Scaled scores"
    elif parts:
        scale_title = "4. Scores ÷ temperature"
    else:
        scale_title = "4. Scaling"
    first = cfg.mask_first  # tutorial 000's order: the raw scores are masked, then divided
    if parts:
        scale_reason = ""
        divisor = " · ".join(p.split(" = ")[0] for p in parts)
        divisor_html = " · ".join(p.split(" = ")[0] for p in parts_html)
        if len(parts) > 1:
            divisor, divisor_html = f"({divisor})", f"({divisor_html})"
        if first:
            formula = f"ω̃ₘ = ωₘ / {divisor},  {', '.join(parts)}  (−∞ / {divisor} = −∞)"
            html = (
                f"ω̃<sub>m</sub> = ω<sub>m</sub> / {divisor_html}, &nbsp; "
                f"{', '.join(parts_html)} &nbsp; (−∞ / {divisor_html} = −∞)"
            )
        else:
            formula = f"ω̃ = ω / {divisor},  {', '.join(parts)}"
            html = f"ω̃ = ω / {divisor_html}, &nbsp; {', '.join(parts_html)}"
    else:
        scale_reason = "Not scaled: √d_k scaling is off and the temperature is 1."
        # ω, not "ω̃ = ω": the stages after it write ω, as there is no ω̃.
        formula = html = "ω goes on as it is: it is not divided"
    scale_step = step(
        "scale",
        scale_title,
        formula,
        html,
        ("masked_scores",) if first else ("scores",),
        ("scaled_scores",),
        scale_reason,
    )

    what = []
    if cfg.causal:
        what.append("causal: key j > query i is hidden")
    if cfg.valid_len is not None:
        what.append(f"padding: keys after {cfg.valid_len} are hidden")
    mask_reason = "" if what else "No mask: attention is not causal and there is no padding."
    # ω̃ only where scaled; ω̃ₘ only where the mask applies (method 2): the symbols of what
    # this config computes.
    scaled, fed = score_symbols(cfg)
    masked = fed if fed.endswith("ₘ") else f"{scaled}ₘ"
    if cfg.method_1:
        # Method 1 masks softmax's output, not its input: the scores pass through.
        mask_formula = (
            f"M[i,j] = 1 where key j is hidden ({'; '.join(what)}); method 1 leaves {scaled} "
            "unmasked: softmax sees every score"
        )
        mask_html = (
            f"M[i,j] = 1 where key j is hidden ({'; '.join(what)}); method 1 leaves "
            f"{scaled} unmasked: softmax sees every score"
        )
    elif first:
        # The raw scores ω are masked (masked_fill), the division comes next.
        mask_formula = (
            f"ωₘ[i,j] = −∞ where M[i,j], else ω[i,j]  ({'; '.join(what)}); "
            "the raw scores are masked, then divided"
        )
        mask_html = (
            f"ω<sub>m</sub>[i,j] = −∞ where M[i,j], else ω[i,j] &nbsp; ({'; '.join(what)}); "
            "the raw scores are masked, then divided"
        )
    elif not what:
        # No "ωₘ = −∞ where M": no score is set to −∞, and no ωₘ is written after it.
        mask_formula = mask_html = f"every key is visible: softmax reads {scaled} as it is"
    else:
        mask_formula = f"{masked}[i,j] = −∞ where M[i,j], else {scaled}[i,j]  ({'; '.join(what)})"
        mask_html = (
            f"{masked.replace('ₘ', '<sub>m</sub>')}[i,j] = −∞ where M[i,j], else {scaled}[i,j]"
            f" &nbsp; ({'; '.join(what)})"
        )
    mask_step = step(
        "mask",
        "5. Mask",
        mask_formula,
        mask_html,
        ("scores", "mask") if first else ("scaled_scores", "mask"),
        ("masked_scores",),
        mask_reason,
    )
    if first:  # numbered in the order they are computed: 4. Mask, 5. Scaled scores
        mask_step = replace(mask_step, title=f"4.{mask_step.title[2:]}")
        scale_step = replace(scale_step, title=f"5.{scale_step.title[2:]}")
        steps += [mask_step, scale_step]
    else:
        steps += [scale_step, mask_step]

    if cfg.method_1:
        # Tutorial 000's first way, in its order: softmax(ω̃), ⊙ (1 − M), ÷ the row sums.
        what_happens = (
            f"method 1: softmax of every score {scaled}, the hidden weights zeroed, each row "
            "divided by its visible sum"
        )
        sm = f"α = softmax({scaled}) ⊙ (1 − M) / Σ_visible  ({what_happens})"
        sm_html = f"α = softmax({scaled}) ⊙ (1 − M) / Σ<sub>visible</sub> &nbsp; ({what_happens})"
    else:
        # As the followed query's worked line writes it: "α[2,1] = exp(ω̃ₘ[2,1]) / Σⱼ' …".
        sm = f"α[i,j] = exp({fed}[i,j]) / Σⱼ' exp({fed}[i,j'])  (each row sums to 1)"
        fed_html = fed.replace("ₘ", "<sub>m</sub>")
        sm_html = (
            f"α[i,j] = exp({fed_html}[i,j]) / Σ<sub>j'</sub> exp({fed_html}[i,j'])"
            " &nbsp; (each row sums to 1)"
        )
    steps.append(
        step(
            "softmax",
            "6. Softmax",
            sm,
            sm_html,
            ("scaled_scores",) if first else ("masked_scores",),
            (
                "weights_unmasked",
                "weights_zeroed",
                "row_sums",
                "weights",
                "weights_neg_inf",
                "weights_renormalize",
            ),
        )
    )

    if not cfg.training:
        drop_reason = "No dropout: evaluation mode (training is off)."
    elif cfg.dropout == 0:
        drop_reason = "No dropout: p = 0."
    else:
        drop_reason = ""
    p = _fmt(cfg.dropout)
    keep_scale = _fmt(1 / (1 - cfg.dropout)) if cfg.dropout < 1 else "∞"
    # Where the keep-mask's random numbers come from, when not straight after the weights.
    reseed = (
        f"  (keep drawn after torch.manual_seed({cfg.dropout_seed}))"
        if cfg.dropout_seed is not None
        else ""
    )
    if drop_reason:  # no α_d, no keep-mask: the weights go on as they are
        why = "evaluation mode" if not cfg.training else "p = 0"
        drop_formula = drop_html = f"α goes on as it is: nothing is dropped ({why})"
    else:
        drop_formula = (
            f"α_d = α ⊙ keep / (1 − p),  keep ~ Bernoulli(1 − p),  "
            f"p = {p}, 1/(1 − p) = {keep_scale}{reseed}"
        )
        drop_html = (
            f"α<sub>d</sub> = α ⊙ keep / (1 − p), &nbsp; keep ~ Bernoulli(1 − p), &nbsp; "
            f"p = {p}, 1/(1 − p) = {keep_scale}{reseed}"
        )
    steps.append(
        step(
            "dropout",
            "7. Dropout",
            drop_formula,
            drop_html,
            ("weights", "dropout_keep"),
            ("weights_dropped",),
            drop_reason,
        )
    )
    # The weights A·V reads: α_d after a dropout that applies, else the softmax weights α
    # (the formula read "α_d·V" and "α[i,j]" in one line, and α_d beside a skipped dropout).
    # Its sum as the followed query's worked line and a cell's hover write it, filled in:
    # "z2[1] = Σⱼ α[2,j]·vⱼ[1]" (they wrote Σ_j beside the formula's Σⱼ and αᵢⱼ).
    alpha = "α_d" if cfg.dropout_active else "α"
    alpha_html = "α<sub>d</sub>" if cfg.dropout_active else "α"
    # "for each head h" only where there are heads to tell apart.
    several = cfg.heads > 1
    per_head, per_head_html = ("Z_h", "Z<sub>h</sub>") if several else ("Z", "Z")
    each = " for each head h" if several else ""
    steps.append(
        step(
            "context",
            f"8. Context Z = {alpha}·V",
            f"{per_head} = {alpha}·V{each}  (z_i = Σⱼ {alpha}[i,j]·vⱼ)",
            f"{per_head_html} = {alpha_html}·V{each} &nbsp; "
            f"(z<sub>i</sub> = Σ<sub>j</sub> {alpha_html}[i,j]·v<sub>j</sub>)",
            ("weights_dropped", "values"),
            ("head_contexts",),
        )
    )
    if several:
        concat_title = "9. Concatenate heads"
        concat = f"Z_cat = [{_head_list(cfg.heads, '{}_{}')}]"
        concat_html = f"Z<sub>cat</sub> = [{_head_list(cfg.heads, '{}<sub>{}</sub>')}]"
    else:  # not "Z_cat = [Z_1]" under "Concatenate heads": there is one Z
        concat_title, concat, concat_html = "9. Concatenation", "Z_cat = Z", "Z<sub>cat</sub> = Z"
    steps.append(
        step(
            "concat",
            concat_title,
            concat,
            concat_html,
            ("head_contexts",),
            ("concat",),
            "" if cfg.heads > 1 else "One head: nothing to concatenate.",
        )
    )
    if cfg.out_proj:
        out = "out = Z_cat·W_o + b_o   (W_o = out_proj.weightᵀ, as nn.Linear stores W)"
        out_html = (
            "out = Z<sub>cat</sub>·W<sub>o</sub> + b<sub>o</sub> &nbsp; "
            "(W<sub>o</sub> = out_proj.weight<sup>T</sup>, as nn.Linear stores W)"
        )
    else:  # no W_o or b_o to write: the output is the concatenation
        out, out_html = "out = Z_cat", "out = Z<sub>cat</sub>"
    steps.append(
        step(
            "out_proj",
            "10. Output projection",
            out,
            out_html,
            ("concat", "w_out", "b_out"),
            ("context",),
            "" if cfg.out_proj else "No output projection (out_proj is off): out = Z_cat.",
        )
    )
    return tuple(steps)


def _head_list(heads: int, subscript: str) -> str:
    """Z_1 | Z_2 as a formula lists heads: all of up to three, else first, ellipsis, last."""
    numbers = list(range(1, heads + 1)) if heads <= 3 else [1, None, heads]
    return " | ".join("…" if h is None else subscript.format("Z", h) for h in numbers)
