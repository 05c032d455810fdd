"""The note a JSON data export carries about its values: what null stands for, and where the
raw scores were masked first, which of the two score arrays is the tutorial's."""

from __future__ import annotations

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.text.i18n import N_, _
from attn_explorer.text.titles import divisor_symbol
from attn_explorer.text.tutorials import tutorial

# In the language of the export: a note is for the learner who opens the file.
JSON_NOTES = N_(
    "null stands for -inf (a masked score) or, in weights_renormalize only, NaN (mask "
    "method 1 dividing 0 by 0 where every kept weight underflowed)"
)
MASK_FIRST_NOTE = N_(
    "; masked before scaling, as in {tutorial}: masked_scores are the raw scores with "
    "-inf where hidden (its printed `masked`), scaled_scores are masked_scores / "
    "{divisor}, what softmax reads"
)


def json_notes(config: AttentionConfig) -> str:
    """The "notes" of a JSON export of `config`: where the raw scores were masked first, it
    names what divides them (ASCII, as data files write it): T alone where scaling is off."""
    if not config.mask_first:
        return _(JSON_NOTES)
    return _(JSON_NOTES) + _(MASK_FIRST_NOTE).format(
        tutorial=tutorial("llm", "§3.5.1"), divisor=divisor_symbol(config, ascii=True)
    )
