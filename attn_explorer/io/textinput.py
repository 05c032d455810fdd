"""Turning what a user types or pastes into numbers, with messages that say what was wrong.

Qt-free, so the same rules serve the table editor, paste, and CSV import.
"""

from __future__ import annotations

import csv
import io
import math
import re

from attn_explorer.engine.config import FLOAT32_MAX
from attn_explorer.text.i18n import _
from attn_explorer.text.tokens import visible_token


class InputError(ValueError):
    """Text that is not an acceptable embedding value; the message is shown to the user."""


class UnclosedQuoteError(InputError):
    """A pasted cell opens a quote that never closes: read as written, it would swallow the
    rest of the block. `row` and `column` (from 1) name the cell, so that a window can say
    where in its own words."""

    def __init__(self, row: int, column: int) -> None:
        super().__init__(
            _(
                'Row {row}, column {column} of the block starts with a quote (") that is never '
                "closed, so the rest of the block would be one cell: remove the quote or close it."
            ).format(row=row, column=column)
        )
        self.row, self.column = row, column


# "1,000" or "-12,500": a number a language that groups thousands with a comma reads whole.
_THOUSANDS = re.compile(r"[-+]?[1-9][0-9]{0,2},[0-9]{3}")


def parse_number(text: str, thousands_comma: bool = False) -> float:
    """A finite float from user text; "0,55" (decimal comma) is accepted as 0.55.

    With `thousands_comma` (the user's language writes a thousand as 1,000), a number that
    reads both ways ("1,000": 1000, or 1.000 with a decimal comma) is refused, not guessed.
    """
    stripped = text.strip().replace("\u2212", "-")  # a typographic minus, as pasted from docs
    if not stripped:
        raise InputError(_("The cell is empty: type a number."))
    shown = visible_token(stripped)  # on one line: a block pasted into one cell has breaks
    shown = shown if len(shown) <= 20 else shown[:19] + "…"
    if "," in stripped and "." not in stripped and stripped.count(",") == 1:
        if thousands_comma and _THOUSANDS.fullmatch(stripped):
            raise InputError(
                _(
                    "“{typed}” could be {whole} or {decimal}: type it without the comma, or with "
                    "a decimal point."
                ).format(
                    typed=shown, whole=stripped.replace(",", ""), decimal=stripped.replace(",", ".")
                )
            )
        stripped = stripped.replace(",", ".")
    try:
        value = float(stripped)
    except ValueError:
        raise InputError(_("“{typed}” is not a number.").format(typed=shown)) from None
    if math.isnan(value):
        raise InputError(_("NaN is not allowed: type a finite number."))
    if math.isinf(value) and stripped.lstrip("+-").lower() in ("inf", "infinity"):
        raise InputError(_("Infinity is not allowed: type a finite number."))
    if math.isinf(value):  # a number too large even for Python (1e400), not a typed "inf"
        raise InputError(_too_large(shown))
    if abs(value) > FLOAT32_MAX:
        raise InputError(_too_large(f"{value:g}"))
    return value + 0.0  # "-0" is 0: a cell showing "-0" is a puzzle, not a number


def _too_large(shown: str) -> str:
    return _("{value} is too large for float32 (at most about ±3.4e38).").format(value=shown)


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

    Raises UnclosedQuoteError when a cell opens a quote that never closes (a partial cell copied,
    a stray quote typed): the csv module would read the rest of the block, every tab and line
    break in it, as that one cell, and the paste would become one long token name.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        return []
    # The separator is the one outside quoted cells: ';' or a tab inside a quoted token name
    # ("a;b",1,2) does not make the block semicolon- or tab-separated.
    joined = "\n".join(lines)
    bare = _QUOTED_CELL.sub("", joined)
    if "\t" in bare:
        separator = "\t"
    elif ";" in bare:
        separator = ";"
    elif decimal_comma and all(_one_number(line) or not line.strip() for line in lines):
        # One number per line, some with a decimal comma ("0,55"): a column copied from a
        # spreadsheet in a decimal-comma language, read as typing each line would read it.
        return [[line.strip()] for line in lines]
    elif "," in bare:
        separator = ","
    elif any(line.startswith('"') for line in lines) and not _unclosed_quote(joined, "\t"):
        # One column with quoted cells, as `join_block` writes names holding a line break, a
        # quote or a space: read as one cell per record, the quotes honoured. (A quote that
        # never closes is a word's own: '"Your' is read as typed.)
        separator = "\t"
    else:
        return [re.split(r"\s+", line.strip()) for line in lines]
    opened = _unclosed_quote(joined, separator)
    if opened:
        raise UnclosedQuoteError(*opened)
    rows = list(csv.reader(io.StringIO(joined), delimiter=separator, strict=False))
    rows = [row or [""] for row in rows]  # an empty line inside the block is one empty cell
    if separator == "\t":
        return rows
    return [[cell.strip() for cell in row] for row in rows]


def _unclosed_quote(text: str, separator: str) -> tuple[int, int] | None:
    """Row and column (from 1) of the quoted cell still open at the end of `text`, if any.

    The csv module's own rules (Python's default dialect, strict=False), which that module does
    not report on when lenient: a quote opens a cell only at the cell's start, "" inside it is
    a quote, and text after the closing quote joins the cell. Rows are records, as in the
    other paste messages, so a quoted line break does not start a row.
    """
    plain = f"[^{re.escape(separator)}\n]*"  # a cell's text up to the next separator
    cell = f'(?:"(?:[^"]|"")*+"{plain}|(?!"){plain})'  # quoted (closed), or not quoted
    if re.fullmatch(f"(?:{cell}[{re.escape(separator)}\n])*+{cell}", text):
        # Every quote closes. The same rules in one pass in C: a 4096 × 1024 block takes a
        # quarter of a second, where the loop below, kept to say where a quote opens, takes two.
        return None
    row = column = 1
    opened = (row, column)
    state = "start"  # of a cell; then "plain", "quoted", or "closed" (just after its quote)
    for char in text:
        if state == "quoted":
            if char == '"':
                state = "closed"
        elif char == '"' and state in ("start", "closed"):
            if state == "start":
                opened = (row, column)
            state = "quoted"  # a cell opened, or a doubled quote inside one
        elif char == separator:
            state, column = "start", column + 1
        elif char == "\n":
            state, row, column = "start", row + 1, 1
        else:
            state = "plain"
    return opened if state == "quoted" else None


def _one_number(line: str) -> bool:
    try:
        parse_number(line)
    except InputError:
        return False
    return True


def join_block(rows: list[list[str]]) -> str:
    """Tab-separated text that `split_block` (and a spreadsheet) reads back cell for cell.

    A single column has no tab to separate cells, and `split_block` reads such a block's
    unquoted lines as values separated by spaces ("0.1 0.2 0.3"): there a cell holding a space
    ("New York") is quoted too.
    """
    if rows and all(len(row) == 1 for row in rows):
        return "\n".join(_quoted(row[0]) if re.search(r'\s|^"', row[0]) else row[0] for row in rows)
    out = io.StringIO()
    csv.writer(out, delimiter="\t", lineterminator="\n").writerows(rows)
    return out.getvalue().removesuffix("\n")


def _quoted(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


# A quoted cell as the csv module reads one: from its opening quote to its closing one.
_QUOTED_CELL = re.compile(r'"(?:[^"]|"")*"')


def clean_token(text: str) -> str:
    """A token name as typed; refuses only the empty name (a token must be something)."""
    if text == "":
        raise InputError(_("A token needs a name (a space is allowed)."))
    return text
