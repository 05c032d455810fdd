"""Token names as labels and as words in a sentence: control characters, line breaks and
right-to-left text made visible and safe to place beside numbers."""

from __future__ import annotations

import re
import unicodedata

# Characters a token cannot show as they are: C0 controls and DEL as their Unicode control
# pictures (U+2400...), line and paragraph breaks as "↵", noncharacters and lone surrogates as
# "�" (they also make an exported SVG invalid XML).
_VISIBLE = {code: 0x2400 + code for code in range(0x20)} | {0x7F: 0x2421}
_VISIBLE |= {0x0A: "↵", 0x0D: "↵", 0x85: "↵", 0x2028: "↵", 0x2029: "↵", 0x09: "⇥"}
_VISIBLE |= {0xFFFE: "�", 0xFFFF: "�"}
_SURROGATE = re.compile("[\ud800-\udfff]")
# Bidirectional classes that reorder the text around them: right-to-left letters, Arabic
# digits, and the explicit embeddings, overrides and isolates.
_REORDERING = frozenset(("R", "AL", "AN", "LRE", "LRO", "RLE", "RLO", "PDF", "LRI", "RLI", "FSI"))
QUOTED_LIMIT = 24  # characters of a token name written in a sentence


def visible_token(token: str) -> str:
    """A token with its control characters and line breaks made visible, on one line."""
    return _SURROGATE.sub("�", token.translate(_VISIBLE))


def label_token(token: str) -> str:
    """A token as a label on its own (a table cell, a tick): visible as `visible_token`, and
    a name of spaces or zero-width characters as "␣" each, so it does not pass for no name."""
    shown = visible_token(token)
    if all(c.isspace() or unicodedata.category(c) == "Cf" for c in shown):
        return "␣" * max(len(shown), 1)
    return shown


def quote_token(token: str, limit: int = QUOTED_LIMIT) -> str:
    """A token name to write in a sentence: “journey”.

    On one line (a line break shows as ↵), at most `limit` characters (a longer name ends in
    "…"), and, when it holds right-to-left letters or a direction override, isolated
    (U+2068 … U+2069): "x2 “שלום” = [0.55, 0.87]" then keeps its numbers in reading order,
    and an override in a name does not reverse the rest of the sentence.
    """
    shown = visible_token(token)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    if any(unicodedata.bidirectional(c) in _REORDERING for c in shown):
        shown = f"\u2068{shown}\u2069"
    return f"“{shown}”"


def quoted(tokens: tuple[str, ...], index: int) -> str:
    """Token `index` of `tokens` quoted for a sentence (`quote_token`)."""
    return quote_token(tokens[index])
