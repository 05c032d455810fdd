"""What the step-through says where the panel under a stage (the softmax bars, the mask
methods compared) is left out for want of height: a window too short for it must not drop
it without a word, nor without saying how to get it back."""

from __future__ import annotations

from attn_explorer.ui.i18n import tr as _tr


def left_out_text(softmax: bool) -> str:
    """The note for the softmax stage's panel where `softmax`, else for the mask stage's."""
    if softmax:
        return _tr(
            "The softmax bars, the sharpening slider and “Why √d_k?” (also in the Examples "
            "menu) need more height: a taller window, or smaller text (Ctrl+-)."
        )
    return _tr(
        "The comparison of the two masking methods needs more height: a taller window, "
        "or smaller text (Ctrl+-)."
    )
