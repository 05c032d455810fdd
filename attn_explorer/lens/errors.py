"""Why a model cannot be opened or a head shown, as one sentence in the learner's language.

`status` follows the command line's convention: 2 for what the user asked that cannot fit (a
layer or head out of range, text too long, a family the lens does not take apart), 1 for what
went wrong reading or running (a folder that holds no model, no network, no transformers).
"""

from __future__ import annotations

from attn_explorer.text.i18n import _


class LensError(ValueError):
    """A model that cannot be opened or shown, with a message meant for a learner."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def needs_transformers() -> LensError:
    return LensError(
        _(
            "Opening a model needs the transformers library, which is not installed: "
            'run pip install -e ".[models]" in the attn_explorer folder.'
        )
    )
