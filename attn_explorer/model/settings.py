"""Every setting of the explorer, declared once: its type, default, range or choices, decimals,
and what it depends on.

The window's controls take their ranges, decimals and choices from here, `Controls` its
defaults, the session loader its checks and `attn-explorer --set` its parsing; each writes its
own words about a value it refuses (a dialog about a file says "controls.dropout is 0.95,
outside 0 to 0.9", the command line "'0.95' is above 0.9"), from the same facts.

The ranges are what the window's controls hold, narrower than what the engine computes: a
session or a `--set` value outside them would show a value its control cannot hold. The
engine keeps its own checks (and its tuples of choices, which these refer to), because it is
also called without this package's model.

A plain frozen dataclass rather than a schema library: the loader's and the command line's
messages are the learner's words, each written for its place, and a JSON session needs checks
a schema does not make (true is not a number, a field named twice, a 5000-digit number);
pydantic or msgspec would bring their own messages, to be translated back into these.
"""

from __future__ import annotations

from dataclasses import dataclass

from attn_explorer.engine.config import ABLATE_MODES, HEAD_LAYOUTS, MASK_METHODS, PROJECTIONS

Value = bool | int | float | str | tuple[int, ...]

MAX_TOKENS = 4096  # rows of an embedding table
MAX_DIMS = 1024  # embedding dimensions


@dataclass(frozen=True)
class Setting:
    """One control of the window that feeds the engine.

    Its type is its default's. A number has an inclusive range `low`..`high` (ints for a
    whole number); a decimal number has `decimals`, the digits its control shows and holds
    (a value with more would be computed with digits the learner cannot see). A text
    setting is one of `choices`. A tuple setting is a set of whole numbers, each in the
    range (the heads switched off, counted from 1), kept sorted and without repeats.

    `switch` is the checkbox that brings the setting into effect: the value is kept while
    the switch is off (so nothing typed is lost by toggling it) and matters only while it
    is on. `agrees_with` names what else decides whether a value can be computed: the
    other settings and "tokens", the number of tokens (a valid length longer than the
    keys, more heads than a split d_out divides into, more than one head without
    projections: the engine's `problems()` says which).
    """

    name: str
    default: Value
    low: int | float | None = None
    high: int | float | None = None
    decimals: int | None = None
    choices: tuple[str, ...] = ()
    switch: str | None = None
    agrees_with: tuple[str, ...] = ()

    @property
    def kind(self) -> type:
        """bool, int, float, str or tuple: the type of every value of this setting."""
        return type(self.default)

    @property
    def range(self) -> tuple[int | float, int | float]:
        """(low, high) of a number setting, both allowed."""
        if self.low is None or self.high is None:
            raise TypeError(f"{self.name} is not a number setting")
        return self.low, self.high


# In the order of the `Controls` fields, which is the order a session file writes them in.
_DECLARED = (
    Setting("projection", "linear", choices=PROJECTIONS),
    Setting("d_out", 2, low=1, high=64),
    Setting(
        "num_heads", 1, low=1, high=16, agrees_with=("d_out", "head_layout", "projection", "tokens")
    ),
    Setting("head_layout", "stacked", choices=HEAD_LAYOUTS),
    Setting("out_proj", False),
    Setting("qkv_bias", False),
    Setting("causal", False, agrees_with=("cross",)),
    Setting("mask_method", "neg_inf", choices=MASK_METHODS),
    Setting("mask_before_scaling", False),  # tutorial 000's order: masked_fill, then ÷ √d_k
    Setting("padding", False),
    Setting(
        "valid_len", 1, low=1, high=MAX_TOKENS, switch="padding", agrees_with=("cross", "tokens")
    ),
    Setting("scale", True),
    Setting("temperature", 1.0, low=0.01, high=100.0, decimals=2),
    Setting("dropout", 0.0, low=0.0, high=0.9, decimals=2),
    Setting("training", True),
    Setting("seed", 123, low=0, high=9999),
    Setting("cross", False),
    # torch.manual_seed(dropout_seed) right before dropout
    Setting("reseed_dropout", False),
    Setting("dropout_seed", 123, low=0, high=9999, switch="reseed_dropout"),
    # The heads switched off, counted from 1 (a head beyond the number of heads is kept but
    # switched off nothing), and how: zeros (pruning) or the head's mean over the tokens.
    Setting("ablate", (), low=1, high=16, agrees_with=("num_heads", "projection")),
    Setting("ablate_mode", "zeros", choices=ABLATE_MODES),
)
SETTINGS: dict[str, Setting] = {setting.name: setting for setting in _DECLARED}

# The heads a view can show, numbered from 0: one fewer than the most heads.
MAX_HEAD = int(SETTINGS["num_heads"].range[1]) - 1
