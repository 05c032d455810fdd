"""What each array of a trace is: its symbol, its axes and how its values should be read.

One registry serves every consumer: heatmap titles and axis labels, the colour map choice
(signed values on a diverging map, weights on a sequential one), CSV headers and the figure
titles. Axis names refer to `Trace.axis_labels()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attn_explorer.engine.config import AttentionConfig


@dataclass(frozen=True)
class ArrayInfo:
    """How to read one trace array.

    `rows`/`cols` name the label set of each axis ("q_tokens", "k_tokens", "d_in", "d_head",
    "concat", "width"); `rows` is None for a vector. `kind` is "signed" (diverging colours
    centred on 0), "weights" (0..1, sequential), "mask" (True = masked) or "keep"
    (True = kept by dropout).
    """

    name: str
    symbol: str
    title: str
    rows: str | None
    cols: str
    per_head: bool
    kind: str = "signed"


ARRAY_INFO: dict[str, ArrayInfo] = {
    info.name: info
    for info in (
        ArrayInfo("x", "X", "Embeddings X", "q_tokens", "d_in", False),
        ArrayInfo("x_kv", "X_kv", "Key/value embeddings", "k_tokens", "d_in", False),
        ArrayInfo("w_query", "W_q", "Query weights W_q", "d_in", "d_head", True),
        ArrayInfo("w_key", "W_k", "Key weights W_k", "d_in", "d_head", True),
        ArrayInfo("w_value", "W_v", "Value weights W_v", "d_in", "d_head", True),
        ArrayInfo("b_query", "b_q", "Query bias b_q", None, "d_head", True),
        ArrayInfo("b_key", "b_k", "Key bias b_k", None, "d_head", True),
        ArrayInfo("b_value", "b_v", "Value bias b_v", None, "d_head", True),
        ArrayInfo("queries", "Q", "Queries Q", "q_tokens", "d_head", True),
        ArrayInfo("keys", "K", "Keys K", "k_tokens", "d_head", True),
        ArrayInfo("values", "V", "Values V", "k_tokens", "d_head", True),
        ArrayInfo("scores", "ω", "Scores ω = Q·Kᵀ", "q_tokens", "k_tokens", True),
        ArrayInfo("scaled_scores", "ω̃", "Scaled scores", "q_tokens", "k_tokens", True),
        ArrayInfo("mask", "M", "Mask (True = hidden)", "q_tokens", "k_tokens", False, "mask"),
        ArrayInfo("masked_scores", "ω̃ₘ", "Masked scores", "q_tokens", "k_tokens", True),
        # Mask method 1's own steps (tutorial 000): softmax of every scaled score, the hidden
        # weights zeroed, each row's visible sum (which the zeroed row is divided by).
        ArrayInfo(
            "weights_unmasked",
            "softmax(ω̃)",
            "softmax(ω̃), every key",
            "q_tokens",
            "k_tokens",
            True,
            "weights",
        ),
        ArrayInfo(
            "weights_zeroed",
            "softmax(ω̃) ⊙ (1 − M)",
            "Hidden weights zeroed",
            "q_tokens",
            "k_tokens",
            True,
            "weights",
        ),
        ArrayInfo("row_sums", "Σ", "Visible row sums", "q_tokens", "row_sum", True, "weights"),
        ArrayInfo("weights", "α", "Attention weights", "q_tokens", "k_tokens", True, "weights"),
        ArrayInfo(
            "weights_neg_inf",
            "α",
            "Weights, −∞ then softmax",
            "q_tokens",
            "k_tokens",
            True,
            "weights",
        ),
        ArrayInfo(
            "weights_renormalize",
            "α",
            "Weights, softmax then renormalize",
            "q_tokens",
            "k_tokens",
            True,
            "weights",
        ),
        ArrayInfo(
            "dropout_keep", "keep", "Dropout keep-mask", "q_tokens", "k_tokens", True, "keep"
        ),
        ArrayInfo(
            "weights_dropped",
            "α_d",
            "Weights after dropout",
            "q_tokens",
            "k_tokens",
            True,
            "weights",
        ),
        ArrayInfo("head_contexts", "Z", "Context per head Z = α·V", "q_tokens", "d_head", True),
        ArrayInfo("concat", "Z_cat", "Concatenated heads", "q_tokens", "concat", False),
        ArrayInfo("w_out", "W_o", "Output weights W_o", "concat", "width", False),
        ArrayInfo("b_out", "b_o", "Output bias b_o", None, "width", False),
        ArrayInfo("context", "out", "Context (output)", "q_tokens", "width", False),
    )
}
# The title of "weights_dropped" where dropout does not apply: the softmax weights α as they
# are; and of "weights" where it does: what the context is not computed from (`Trace.info`).
NO_DROPOUT_TITLE = "Weights (no dropout)"
BEFORE_DROPOUT_TITLE = "Weights before dropout"
# The title of "concat" with one head: nothing was concatenated.
ONE_HEAD_CONCAT_TITLE = "Z_cat = Z (one head)"
# The titles of "scaled_scores" where √d_k scaling is off: divided by the temperature alone,
# or (T = 1) not divided at all, the scores ω as they are.
TEMPERATURE_SCORES_TITLE = "Scores ÷ temperature"
UNSCALED_SCORES_TITLE = "Scores ω (not scaled)"
# The titles of "scaled_scores" where the raw scores were masked first (tutorial 000's
# order): the masked scores divided, what softmax reads.
MASK_FIRST_SCALED_TITLE = "Scaled masked scores"
MASK_FIRST_TEMPERATURE_TITLE = "Masked scores ÷ temperature"
# The title of "masked_scores" under mask method 1, which feeds softmax the scores unmasked.
METHOD_1_SCORES_TITLE = "Unmasked scores (method 1)"
# ... and without a mask: softmax reads the scores of the stage before as they are.
NO_MASK_SCORES_TITLE = "Scores fed to softmax (no mask)"


def divisor_symbol(config: AttentionConfig, ascii: bool = False) -> str:
    """What the scale stage divides the scores by, as formulas write it: "√d_k", "T" or
    "(√d_k · T)" (ASCII "sqrt(d_k)", "T", "(sqrt(d_k) * T)" for data files), "1" where
    nothing divides. One place, because the box names, hovers, worked lines and data notes
    of the mask-first order each wrote √d_k where scaling was off and only T divided."""
    root, times = ("sqrt(d_k)", " * ") if ascii else ("√d_k", " · ")
    parts = ([root] if config.scale else []) + (["T"] if config.temperature != 1 else [])
    if not parts:
        return "1"
    return f"({times.join(parts)})" if len(parts) > 1 else parts[0]


def score_symbols(config: AttentionConfig) -> tuple[str, str]:
    """The symbols of the scores as this config computes them: (the scores after the scale
    stage, the scores softmax reads). ω̃ only where they are scaled (√d_k or T ≠ 1), else ω;
    an ₘ only where method 2's mask sets hidden scores to −∞, else softmax reads them as
    they are. Preset "simple" read "ω̃ₘ[2,1] = ω̃[2,1]", scaled and masked, with neither."""
    scaled = "ω̃" if config.scale or config.temperature != 1 else "ω"
    fed = f"{scaled}ₘ" if config.has_mask and not config.method_1 else scaled
    return scaled, fed
