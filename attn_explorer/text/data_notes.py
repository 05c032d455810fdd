"""The note a JSON data export carries about its values: what null stands for, and where the
raw scores were masked first, which of the two score arrays is the tutorial's."""

from __future__ import annotations

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.text.titles import divisor_symbol

JSON_NOTES = (
    "null stands for -inf (a masked score) or, in weights_renormalize only, NaN (mask "
    "method 1 dividing 0 by 0 where every kept weight underflowed)"
)
MASK_FIRST_NOTE = (
    "; masked before scaling (tutorial 000's order): masked_scores are the raw scores with "
    "-inf where hidden (its printed `masked`), scaled_scores are masked_scores / {0}, "
    "what softmax reads"
)


def json_notes(config: AttentionConfig) -> str:
    """The "notes" of a JSON export of `config`: where the raw scores were masked first, it
    names what divides them (ASCII, as data files write it): T alone where scaling is off."""
    if not config.mask_first:
        return JSON_NOTES
    return JSON_NOTES + MASK_FIRST_NOTE.format(divisor_symbol(config, ascii=True))
