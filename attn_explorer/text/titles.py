"""The symbol and the title of each array of a trace, as this config computes it.

One registry serves every reader: heatmap titles, a vector's row label, the figure titles,
the worked lines and the derivations. A symbol says only what the config does: ω̃ only where
the scores are divided, ₘ only where a mask sets scores to −∞, α_d only where dropout drops.

Symbols are written alike in every language; the titles are marked (`N_`) in the tables and
translated by `array_label`, when asked, in the language of that moment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from attn_explorer.text.i18n import N_, _

if TYPE_CHECKING:
    from attn_explorer.engine.config import AttentionConfig

# name: (symbol, title), as an ordinary config (scaled, masked by method 2, one order) shows it.
ARRAY_LABELS: dict[str, tuple[str, str]] = {
    "x": ("X", N_("Embeddings X")),
    "x_kv": ("X_kv", N_("Key/value embeddings")),
    "w_query": ("W_q", N_("Query weights W_q")),
    "w_key": ("W_k", N_("Key weights W_k")),
    "w_value": ("W_v", N_("Value weights W_v")),
    "b_query": ("b_q", N_("Query bias b_q")),
    "b_key": ("b_k", N_("Key bias b_k")),
    "b_value": ("b_v", N_("Value bias b_v")),
    "queries": ("Q", N_("Queries Q")),
    "keys": ("K", N_("Keys K")),
    "values": ("V", N_("Values V")),
    "scores": ("ω", N_("Scores ω = Q·Kᵀ")),
    "scaled_scores": ("ω̃", N_("Scaled scores")),
    "mask": ("M", N_("Mask (True = hidden)")),
    "masked_scores": ("ω̃ₘ", N_("Masked scores")),
    "weights_unmasked": ("softmax(ω̃)", "softmax(ω̃), every key"),  # written by `array_label`
    "weights_zeroed": ("softmax(ω̃) ⊙ (1 − M)", N_("Hidden weights zeroed")),
    "row_sums": ("Σ", N_("Visible row sums")),
    "weights": ("α", N_("Attention weights")),
    "weights_neg_inf": ("α", N_("Weights, −∞ then softmax")),
    "weights_renormalize": ("α", N_("Weights, softmax then renormalize")),
    "dropout_keep": ("keep", N_("Dropout keep-mask")),
    "weights_dropped": ("α_d", N_("Weights after dropout")),
    "head_contexts": ("Z", "Context per head Z = α·V"),  # written by `array_label`
    "concat": ("Z_cat", N_("Concatenated heads")),
    "w_out": ("W_o", N_("Output weights W_o")),
    "b_out": ("b_o", N_("Output bias b_o")),
    "context": ("out", N_("Context (output)")),
}
# The title of "weights_dropped" where dropout does not apply: the softmax weights α as they
# are; and of "weights" where it does: what the context is not computed from.
NO_DROPOUT_TITLE = N_("Weights (no dropout)")
BEFORE_DROPOUT_TITLE = N_("Weights before dropout")
# The title of "concat" with one head: nothing was concatenated.
ONE_HEAD_CONCAT_TITLE = N_("Z_cat = Z (one head)")
# The titles of "scaled_scores" where √d_k scaling is off: divided by the temperature alone,
# or (T = 1) not divided at all, the scores ω as they are.
TEMPERATURE_SCORES_TITLE = N_("Scores ÷ temperature")
UNSCALED_SCORES_TITLE = N_("Scores ω (not scaled)")
# The titles of "scaled_scores" where the raw scores were masked first (the book's order,
# §3.5.1): the masked scores divided, what softmax reads.
MASK_FIRST_SCALED_TITLE = N_("Scaled masked scores")
MASK_FIRST_TEMPERATURE_TITLE = N_("Masked scores ÷ temperature")
# The title of "masked_scores" under mask method 1, which feeds softmax the scores unmasked.
METHOD_1_SCORES_TITLE = N_("Unmasked scores (method 1)")
# ... and without a mask: softmax reads the scores of the stage before as they are.
NO_MASK_SCORES_TITLE = N_("Scores fed to softmax (no mask)")


def divisor_symbol(config: AttentionConfig, ascii: bool = False) -> str:
    """What the scale stage divides the scores by, as formulas write it: "√d_k", "T" or
    "(√d_k · T)" (ASCII "sqrt(d_k)", "T", "(sqrt(d_k) * T)" for data files), "1" where
    nothing divides. One place, so that the box names, hovers, worked lines and data notes
    write √d_k only where scaling is on."""
    root, times = ("sqrt(d_k)", " * ") if ascii else ("√d_k", " · ")
    parts = ([root] if config.scale else []) + (["T"] if config.temperature != 1 else [])
    if not parts:
        return "1"
    return f"({times.join(parts)})" if len(parts) > 1 else parts[0]


def score_symbols(config: AttentionConfig) -> tuple[str, str]:
    """The symbols of the scores as this config computes them: (the scores after the scale
    stage, the scores softmax reads). ω̃ only where they are scaled (√d_k or T ≠ 1), else ω;
    an ₘ only where method 2's mask sets hidden scores to −∞, else softmax reads them as
    they are: a config neither scaled nor masked reads "ω[2,1]", not "ω̃ₘ[2,1] = ω̃[2,1]"."""
    scaled = "ω̃" if config.scale or config.temperature != 1 else "ω"
    fed = f"{scaled}ₘ" if config.has_mask and not config.method_1 else scaled
    return scaled, fed


def array_symbol(config: AttentionConfig, name: str) -> str:
    """The symbol of array `name` as `config` computes it (see `array_label`)."""
    return array_label(config, name)[0]


def array_title(config: AttentionConfig, name: str) -> str:
    """The title of array `name` as `config` computes it (see `array_label`)."""
    return array_label(config, name)[1]


def array_label(config: AttentionConfig, name: str) -> tuple[str, str]:
    """(symbol, title) of array `name` under `config`.

    Where dropout does not apply (p = 0, or evaluation mode) the weights "after dropout" are
    the softmax weights α themselves, and are titled and written so: not α_d beside a
    greyed-out dropout stage. Where it does, the softmax weights say they come before it: the
    context beside them is computed from the dropped weights. Under mask method 1 the scores
    fed to softmax are the scaled scores ω̃, unmasked: the mask applies to softmax's output;
    without a mask they are not "Masked scores ω̃ₘ". Score symbols follow `score_symbols`:
    ω where nothing divided them. Where the raw scores are masked first (`mask_first`), the
    masked scores are ωₘ and the scaled ones ω̃ₘ, what softmax reads.
    """
    symbol, title = ARRAY_LABELS[name]
    cfg = config
    if cfg.mask_first and name in ("scaled_scores", "masked_scores"):
        # The book's order (§3.5.1): ωₘ is the raw scores masked, ω̃ₘ those divided.
        if name == "masked_scores":
            return "ωₘ", _(title)
        return "ω̃ₘ", _(MASK_FIRST_SCALED_TITLE if cfg.scale else MASK_FIRST_TEMPERATURE_TITLE)
    if name == "scaled_scores" and not cfg.scale:
        # Not "Scaled scores ω̃": a temperature alone divides by T, and with T = 1 the
        # scores pass as they are, ω.
        if cfg.temperature != 1:
            return symbol, _(TEMPERATURE_SCORES_TITLE)
        return "ω", _(UNSCALED_SCORES_TITLE)
    if name in ("weights_unmasked", "weights_zeroed"):  # softmax(ω) where not scaled
        scaled = score_symbols(cfg)[0]
        symbol = symbol.replace("ω̃", scaled)
        if name == "weights_unmasked":
            return symbol, _("softmax({scores}), every key").format(scores=scaled)
        return symbol, _(title)
    if name == "masked_scores":  # ωₘ or ω̃ₘ only where method 2 masks the scores
        scaled, fed = score_symbols(cfg)
        if cfg.method_1:
            return scaled, _(METHOD_1_SCORES_TITLE)
        if not cfg.has_mask:
            return scaled, _(NO_MASK_SCORES_TITLE)
        return fed, _(title)
    if name == "head_contexts":  # the weights α·V reads, per head only where several
        alpha = "α_d" if cfg.dropout_active else "α"
        if cfg.heads > 1:
            return symbol, _("Context per head Z = {alpha}·V").format(alpha=alpha)
        return symbol, _("Context Z = {alpha}·V").format(alpha=alpha)
    if name == "concat" and cfg.heads == 1:
        return symbol, _(ONE_HEAD_CONCAT_TITLE)
    if name == "weights_dropped" and not cfg.dropout_active:
        return "α", _(NO_DROPOUT_TITLE)
    if name == "weights" and cfg.dropout_active:
        return symbol, _(BEFORE_DROPOUT_TITLE)
    return symbol, _(title)
