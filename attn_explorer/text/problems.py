"""Why a config cannot be computed, in the learner's language.

The engine refuses a config with a `Problem` (or raises a `ConfigError`) whose message is
English and which carries the code and numbers it was written from
(`attn_explorer.engine.words`). Every place that shows one to a user (the window's status
line and the note under a control, the command line's refusal, a screenshot's) writes it
with `problem_text`, in the current language and at the moment it is shown: a problem found
before the language changed is said in the new one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from attn_explorer.engine.words import OR, PROBLEMS
from attn_explorer.text.i18n import SOURCE_LANGUAGE, _, language

# Thousands are grouped with a narrow no-break space outside English: a Vietnamese reader
# takes a comma for a decimal comma (67,108 would read as 67.108), and the explorer writes a
# decimal point in every language, so no language's own group separator is safe either.
GROUP = "\u202f"


def problem_text(problem: Any) -> str:
    """`problem` (a `Problem`, a `ConfigError`, or any exception) as the user reads it now.

    A problem made with a message of its own (no code: the window's "engine error") is
    said as it is."""
    code = getattr(problem, "code", "")
    if code not in PROBLEMS:
        message = getattr(problem, "message", None)
        return message if isinstance(message, str) else str(problem)
    shown = {name: _shown(value) for name, value in problem.params}
    return _(PROBLEMS[code]).format(**shown)


def or_list(items: Iterable[str]) -> str:
    """Choices in a sentence: "a, b or c" in English, each language with its own "or"."""
    items = tuple(items)
    if len(items) < 2:
        return items[0] if items else ""
    return _(OR).format(items=", ".join(items[:-1]), last=items[-1])


class _Count(int):
    """A whole number that a template's `{n:,}` groups by thousands: with commas in English,
    with `GROUP` in any other language."""

    def __format__(self, spec: str) -> str:
        text = format(int(self), spec)
        if "," in spec and language() != SOURCE_LANGUAGE:
            text = text.replace(",", GROUP)
        return text


def _shown(value: Any) -> Any:
    if isinstance(value, tuple):
        return or_list(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return _Count(value)
    return value
