"""What each choice of a choice setting (projection, head layout, mask method) is called in
its box in the controls, marked for translation and translated where the box is filled."""

from __future__ import annotations

from attn_explorer.model.settings import SETTINGS
from attn_explorer.text.i18n import N_

# What each choice of a choice setting is called in its box; the choices and their order
# are the settings' (a choice without a label here is a KeyError when the panel is built).
CHOICE_LABELS = {
    "none": N_("none: Q = K = V = X"),
    "rand": N_("rand: torch.rand (v1)"),
    "linear": N_("linear: nn.Linear (v2)"),
    "stacked": N_("stacked: one W per head"),
    "split": N_("split: one W, split"),
    "neg_inf": N_("−∞, then softmax"),
    "renormalize": N_("softmax, zero, renormalize"),
}


def choices(field: str) -> list[tuple[str, str]]:
    """The (value, label) items of the box of the choice setting `field`."""
    return [(value, CHOICE_LABELS[value]) for value in SETTINGS[field].choices]
