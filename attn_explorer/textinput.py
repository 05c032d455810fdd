"""Turning what a user types or pastes into numbers, with messages that say what was wrong.

Qt-free, so the same rules serve the table editor, paste, and CSV import.
"""

from __future__ import annotations

import csv
import io
import math
import re

import numpy as np

FLOAT32_MAX = float(np.finfo(np.float32).max)


class InputError(ValueError):
    """Text that is not an acceptable embedding value; the message is shown to the user."""


def parse_number(text: str) -> float:
    """A finite float from user text; "0,55" (decimal comma) is accepted as 0.55."""
    stripped = text.strip().replace("\u2212", "-")  # a typographic minus, as pasted from docs
    if not stripped:
        raise InputError("The cell is empty: type a number.")
    if "," in stripped and "." not in stripped and stripped.count(",") == 1:
        stripped = stripped.replace(",", ".")
    try:
        value = float(stripped)
    except ValueError:
        shown = stripped if len(stripped) <= 20 else stripped[:19] + "…"
        raise InputError(f"“{shown}” is not a number.") from None
    if math.isnan(value):
        raise InputError("NaN is not allowed: type a finite number.")
    if math.isinf(value):
        raise InputError("Infinity is not allowed: type a finite number.")
    if abs(value) > FLOAT32_MAX:
        raise InputError(f"{value:g} is too large for float32 (at most about ±3.4e38).")
    return value + 0.0  # "-0" is 0: a cell showing "-0" was a puzzle, not a number


def split_block(text: str, decimal_comma: bool = False) -> list[list[str]]:
    """Cells of a pasted block: tab-separated (spreadsheets), else comma- or semicolon-separated.

    With `decimal_comma` (the user's language writes 0,55), a block of one number per line is
    one column: "0,55" copied from a spreadsheet cell is 0.55, as typed, not the cells 0 and 55.
    Otherwise "1,0" is two cells, as comma-separated text means in an English-speaking setting.

    Quoted cells are read the way spreadsheets write them ("a<TAB>b" with its tab, a doubled
    quote for a quote), so a token name holding a tab or a line break survives copy and paste.
    Tab-separated cells keep their spaces (a token " the" is not "the"); comma- and
    semicolon-separated ones are stripped. Trailing empty lines are dropped; an empty block
    gives [].
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return []
    if "\t" in text:
        separator = "\t"
    elif ";" in text:
        separator = ";"
    elif decimal_comma and all(_one_number(line) or not line.strip() for line in lines):
        # One number per line, some with a decimal comma ("0,55"): a column copied from a
        # spreadsheet in a decimal-comma language, read as typing each line would read it.
        return [[line.strip()] for line in lines]
    elif "," in text:
        separator = ","
    else:
        return [re.split(r"\s+", line.strip()) for line in lines]
    rows = list(csv.reader(io.StringIO("\n".join(lines)), delimiter=separator, strict=False))
    rows = [row or [""] for row in rows]  # an empty line inside the block is one empty cell
    if separator == "\t":
        return rows
    return [[cell.strip() for cell in row] for row in rows]


def _one_number(line: str) -> bool:
    try:
        parse_number(line)
    except InputError:
        return False
    return True


def join_block(rows: list[list[str]]) -> str:
    """Tab-separated text that `split_block` (and a spreadsheet) reads back cell for cell."""
    out = io.StringIO()
    csv.writer(out, delimiter="\t", lineterminator="\n").writerows(rows)
    return out.getvalue().removesuffix("\n")


def clean_token(text: str) -> str:
    """A token name as typed; refuses only the empty name (a token must be something)."""
    if text == "":
        raise InputError("A token needs a name (a space is allowed).")
    return text
