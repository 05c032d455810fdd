"""The items of the Matrices tab's boxes (which scores, which weights, which array per head),
named for what the configuration computes, as the step-through names its stages."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox

from attn_explorer.engine import AttentionConfig
from attn_explorer.model.views import HEADS_ARRAYS, SCORES_ARRAYS, WEIGHTS_ARRAYS
from attn_explorer.text.i18n import N_
from attn_explorer.text.titles import divisor_symbol, score_symbols
from attn_explorer.ui.i18n import tr as _tr

# The choices come from the model (sessions are checked against the same keys); only their
# labels are the window's, marked here and translated where a box shows them.
_SCORE_LABELS = {
    "masked_scores": N_("Scores fed to softmax"),
    "scaled_scores": N_("Scaled scores ω / (√d_k·T)"),
    "scores": N_("Raw scores ω = Q·Kᵀ"),
}
_WEIGHT_LABELS = {
    "weights": N_("Weights (softmax)"),
    "weights_dropped": N_("Weights after dropout"),
}
_HEAD_LABELS = {
    "weights": N_("Weights"),
    "weights_dropped": N_("Weights after dropout"),
    "masked_scores": N_("Scores fed to softmax"),
    "scaled_scores": N_("Scaled scores"),
    "scores": N_("Raw scores"),
    "queries": N_("Queries Q"),
    "keys": N_("Keys K"),
    "values": N_("Values V"),
    "head_contexts": N_("Context per head Z"),
}
SCORE_VARIANTS = [(key, _SCORE_LABELS[key]) for key in SCORES_ARRAYS]
WEIGHT_VARIANTS = [(key, _WEIGHT_LABELS[key]) for key in WEIGHTS_ARRAYS]
HEAD_ARRAYS = [(key, _HEAD_LABELS[key]) for key in HEADS_ARRAYS]


def llm_chapter() -> str:
    """The tutorial that masks the raw scores first, named as its learners know it (the
    same words as `text.tutorials`)."""
    return _tr("Build a Large Language Model (From Scratch), chapter 3")


def _mask_first_text(name: str, cfg: AttentionConfig, grid: bool) -> tuple[str, str]:
    """The score items where the raw scores are masked first (tutorial 000's order): the
    masked scores ωₘ are the tutorial's printed `masked`, and softmax reads them divided."""
    if name == "masked_scores":
        text = _tr("Masked scores") if grid else _tr("Masked scores ωₘ (raw, −∞ where hidden)")
        tip = _tr(
            "ωₘ[i,j] = −∞ where key j is hidden from query i, else ω[i,j]: the raw scores "
            "masked before they are divided, as {tutorial} prints masked = "
            "attn_scores.masked_fill(mask.bool(), -torch.inf)."
        )
        return text, tip.format(tutorial=llm_chapter())
    divisor = divisor_symbol(cfg)
    text = _tr("Scores fed to softmax") if grid else _tr("Scores fed to softmax ωₘ / {0}")
    values = ([f"√d_k = √{cfg.d_head}"] if cfg.scale else []) + (
        [f"T = {cfg.temperature:g}"] if cfg.temperature != 1 else []
    )
    if cfg.scale:
        tip = _tr(
            "ω̃ₘ = ωₘ / {0}, {1}: the masked scores divided (−∞ stays −∞); softmax reads "
            "these, as softmax(masked / keys.shape[-1]**0.5) in {tutorial}."
        )
    else:  # only the temperature divides: the tutorial's √d_k is switched off
        tip = _tr(
            "ω̃ₘ = ωₘ / {0}, {1}: the masked scores divided (−∞ stays −∞); softmax reads these."
        )
    return text.format(divisor), tip.format(divisor, ", ".join(values), tutorial=llm_chapter())


def choice_text(name: str, config: AttentionConfig, grid: bool = False) -> tuple[str, str]:
    """The text and tooltip of array `name`'s item in the score, weight (`grid` False) or
    all-heads (`grid` True) box, for what `config` computes: as the step-through writes
    its stages, "scaled" only with √d_k, ω̃ only where something divided the scores, −∞
    only where method 2 masks, α_d only where dropout applies ("Scaled scores ω / (√d_k·T)"
    beside unchecked √d_k reads as if the scores were divided). An array whose item does
    not depend on the configuration (Q, K, V) keeps its text and gets no tooltip: ("", "")."""
    cfg = config
    scaled, fed = score_symbols(cfg)
    if cfg.mask_first and name in ("masked_scores", "scaled_scores"):
        return _mask_first_text(name, cfg, grid)
    if name == "masked_scores":
        if cfg.has_mask and not cfg.method_1:
            text = _tr("Scores fed to softmax") if grid else _tr("Scores fed to softmax {0}")
            tip = _tr(
                "{0}[i,j] = −∞ where key j is hidden from query i, else {1}[i,j]: softmax "
                "reads these, so a hidden key gets weight 0."
            )
            symbol = fed
        elif cfg.has_mask:
            text = (
                _tr("Scores fed to softmax (method 1)")
                if grid
                else _tr("Scores fed to softmax {0} (method 1)")
            )
            tip = _tr(
                "Mask method 1 feeds softmax every score {1}, hidden or not, and zeroes the "
                "hidden weights after softmax."
            )
            symbol = scaled
        else:
            text = (
                _tr("Scores fed to softmax (no mask)")
                if grid
                else _tr("Scores fed to softmax {0} (no mask)")
            )
            tip = _tr("No mask: softmax reads every score {1} as it is.")
            symbol = scaled
        return text.format(symbol), tip.format(fed, scaled)
    if name == "scaled_scores":
        temperature = f"{cfg.temperature:g}"
        if cfg.scale and cfg.temperature != 1:
            text = _tr("Scaled scores") if grid else _tr("Scaled scores ω / (√d_k·T)")
            tip = _tr(
                "ω̃ = ω / (√d_k·T), √d_k = √{0}, T = {1}: the raw scores divided by the square "
                "root of a key's width and by the temperature."
            )
        elif cfg.scale:
            text = _tr("Scaled scores") if grid else _tr("Scaled scores ω / √d_k")
            tip = _tr(
                "ω̃ = ω / √d_k, √d_k = √{0}: the raw scores divided by the square root of a "
                "key's width."
            )
        elif cfg.temperature != 1:
            text = _tr("Scores ÷ temperature") if grid else _tr("Scores ÷ temperature ω / T")
            tip = _tr(
                "ω̃ = ω / T, T = {1}: √d_k scaling is off, the raw scores are divided by the "
                "temperature alone."
            )
        else:
            text = _tr("Scores (not scaled)") if grid else _tr("Scores ω (not scaled)")
            tip = _tr("√d_k scaling is off and T = 1: nothing divides the raw scores ω.")
        return text, tip.format(cfg.d_head, temperature)
    if name == "scores":
        text = _tr("Raw scores") if grid else _tr("Raw scores ω = Q·Kᵀ")
        return text, _tr("ω[i,j] = q_i·k_j: each query's dot product with each key.")
    if name == "weights":
        text = _tr("Weights") if grid else _tr("Weights (softmax)")
        tip = _tr("α: the attention weights softmax gives; each row sums to 1.")
        if cfg.dropout_active:
            tip = _tr("α: the attention weights softmax gives, before dropout; each row sums to 1.")
        return text, tip
    if name == "weights_dropped":
        if cfg.dropout_active:
            tip = _tr(
                "α_d = α ⊙ keep / (1 − p), p = {0}: some weights dropped, the others "
                "multiplied by 1/(1 − p); the context is computed from these."
            )
            return _tr("Weights after dropout"), tip.format(f"{cfg.dropout:g}")
        why = _tr("evaluation mode") if not cfg.training else "p = 0"
        tip = _tr("No dropout ({0}): these are the weights α as they are.").format(why)
        return _tr("Weights (no dropout)"), tip
    if name == "head_contexts":  # "per head" only where there are heads to tell apart
        return (_tr("Context per head Z") if cfg.heads > 1 else _tr("Context Z")), ""
    return "", ""


def naming_key(config: AttentionConfig) -> tuple:
    """What `choice_text` reads of a configuration, and the words of now: items named for
    one key are named alike for another with the same (a seed or an embedding moved), so a
    box need not be named again."""
    return (
        config.mask_first,
        config.has_mask,
        config.method_1,
        config.scale,
        config.temperature,
        config.d_head,
        config.training,
        config.dropout,
        config.heads,
        _tr(_HEAD_LABELS["weights"]),  # the language, or a test's pseudo-translation
    )


def name_items(box: QComboBox, config: AttentionConfig, grid: bool = False) -> None:
    """Write `box`'s items as `choice_text` says for `config`, in the language of now (an
    item whose text does not depend on the configuration, Q, K, V, as its table names it).
    Only texts that change are set, and setting them keeps the current item: no selection
    change is signalled."""
    for index in range(box.count()):
        name = box.itemData(index)
        text, tip = choice_text(name, config, grid)
        if not text and grid:
            text = _tr(_HEAD_LABELS[name])
        if text and box.itemText(index) != text:
            box.setItemText(index, text)
        if box.itemData(index, Qt.ItemDataRole.ToolTipRole) != (tip or None):
            box.setItemData(index, tip or None, Qt.ItemDataRole.ToolTipRole)
