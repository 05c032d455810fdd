"""The tokenizer's pieces as a learner can read them on an axis.

GPT-2's byte-level pieces spell a space as "Ġ" and a newline as "Ċ", and split a Vietnamese
letter into bytes that are not characters on their own: a piece is decoded back to its bytes,
a leading space shown as "␣", a newline as "↵", a tab as "⇥", and bytes that are part of a
character as <E1>. BERT's WordPiece marks a piece that continues a word with "##", which is
readable as it is, and its special tokens ([CLS], [SEP]) stay as they are: heads attend to them.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

SPACE, NEWLINE, TAB = "␣", "↵", "⇥"


@cache
def _byte_decoder() -> dict[str, int]:
    """GPT-2's byte → printable character table, inverted (the table of its tokenizer)."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    chars = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


def _visible(text: str) -> str:
    return text.replace(" ", SPACE).replace("\n", NEWLINE).replace("\t", TAB)


def byte_level_piece(piece: str) -> str:
    """One GPT-2 piece ("Ġcat") as text ("␣cat"); bytes that are no whole character as <E1>."""
    decoder = _byte_decoder()
    if not all(ch in decoder for ch in piece):
        return _visible(piece)  # a special token such as <|endoftext|>
    data = bytes(decoder[ch] for ch in piece)
    try:
        return _visible(data.decode("utf-8"))
    except UnicodeDecodeError:
        return "".join(_visible(chr(b)) if b < 0x80 else f"<{b:02X}>" for b in data)


def readable(pieces: Sequence[str], family: str) -> tuple[str, ...]:
    """The tokenizer's pieces as axis labels."""
    if family == "gpt2":
        return tuple(byte_level_piece(p) for p in pieces)
    return tuple(pieces)
