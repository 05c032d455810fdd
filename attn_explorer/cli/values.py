"""What every command-line message needs: the one error it raises, a value shown briefly,
and a whole number read as the controls read it (ASCII digits, a sign, blanks around)."""

from __future__ import annotations

import re

from attn_explorer.text.i18n import _


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


_WHOLE = re.compile(r"[+-]?[0-9]+")
# More digits than any number a command line takes can have: a longer whole number is read
# as beyond every range, not by int(), which refuses one of over 4,300 digits (and reads a
# long one in time growing with the square of its length).
_MOST_DIGITS = 18
BEYOND = 10**_MOST_DIGITS  # what `whole` reads such a number as, with its sign
_BRIEF = 40  # characters of a value a one-line message shows whole


def brief(text: str, quoted: bool = True) -> str:
    """`text` for a one-line message: quoted (repr) or not, a long one cut with its length,
    so that 5,000 digits stay a line a terminal shows."""
    if len(text) <= _BRIEF:
        return repr(text) if quoted else text
    start = repr(text[:20]) if quoted else text[:20]
    return _("{start}… ({length} characters)").format(start=start, length=len(text))


def whole(text: str) -> int | None:
    """`text` as a whole number (ASCII digits, a sign, blanks around), or None.

    One of more than 18 digits is ±BEYOND, outside every range a command line takes: its
    value is never needed, only that it is too large (or too small)."""
    text = text.strip()
    if not _WHOLE.fullmatch(text):
        return None
    if len(text.lstrip("+-").lstrip("0")) > _MOST_DIGITS:
        return -BEYOND if text.startswith("-") else BEYOND
    return int(text)
