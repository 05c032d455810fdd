"""What the step-through says where something under or in a stage gave way for want of room
(the panel under it, lines of the worked lines' box): a window too short
for them must not drop them without a word, nor without saying how to get them back."""

from __future__ import annotations

from attn_explorer.ui.i18n import tr as _tr


def left_out_text(
    softmax: bool | None, worked_lines: bool = False, worked_gone: bool = False
) -> str:
    """The note under a stage: for the softmax stage's panel where `softmax` is True, for
    the mask stage's where False, for none where None; then a sentence for the worked lines
    cut to fewer lines (`worked_lines`), or left out (`worked_gone`). Empty where nothing
    gave way."""
    said = []
    if softmax is True:
        said.append(
            _tr(
                "The softmax bars, the sharpening slider and “Why √d_k?” (also in the Examples "
                "menu) need more height: a taller window, or smaller text (Ctrl+-)."
            )
        )
    elif softmax is False:
        said.append(
            _tr(
                "The comparison of the two masking methods needs more height: a taller "
                "window, or smaller text (Ctrl+-)."
            )
        )
    if worked_gone:
        said.append(
            _tr(
                "The worked lines are left out for the matrices' values: a taller window, "
                "or smaller text (Ctrl+-)."
            )
        )
    elif worked_lines:
        said.append(_tr("The worked lines are cut short for the matrices' values: scroll them."))
    return " ".join(said)
