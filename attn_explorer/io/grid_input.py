"""A learner's grid of numbers for "Check my numbers": a CSV or spreadsheet block (a blank
cell is a number not given), or a notebook's printout (`tensor([[0.1, …]])`, NumPy's
`[[0.1 0.2] …]`, a tutorial's `[0.30, 0.33, 0.37]` row per line).

Every number keeps the decimals it was written with, as the check needs them: 0.30 is right
for 0.2994, 0.3 is right for 0.2994 too, 0.299 is not. Cells are read by `textinput`'s rules
(a decimal comma, a typographic minus), plus −∞ as a masked score is written. Qt-free, so the
command line and the window read the same text the same way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

from attn_explorer.io.textinput import InputError, parse_number, split_block
from attn_explorer.text.i18n import _

Cell = tuple[float, int] | None  # (value, decimals written), or None where nothing is written

_INFINITY = {"inf": math.inf, "infinity": math.inf, "∞": math.inf}
# A printout's row: the innermost brackets. Its wrapper (`tensor(`, `array(`) and what trails
# it (`, grad_fn=<…>)`, `dtype=float32)`) hold no brackets of a row.
_ROW = re.compile(r"\[([^\[\]]*)\]")
_MANTISSA = re.compile(r"[-+]?(?:\d*\.(\d*)|\d+)(?:[eE]([-+]?\d+))?")


class GridError(InputError):
    """A cell that is not a number; `row` and `column` (from 1, as the grid shows them) say
    which, the message says it in the current language."""

    def __init__(self, message: str, row: int, column: int) -> None:
        super().__init__(message)
        self.row, self.column = row, column


def decimals_of(text: str) -> int:
    """Digits written after the point, counting an exponent: "2.994e-01" has 4."""
    match = _MANTISSA.fullmatch(text.strip().replace("\u2212", "-").replace(",", "."))
    if not match:
        return 0
    decimals = len(match.group(1) or "")
    exponent = int(match.group(2) or 0)
    return max(0, decimals - exponent)


def parse_cell(text: str) -> Cell:
    """One cell: None when blank, else (value, decimals). Raises InputError with a message."""
    stripped = text.strip().replace("\u2212", "-")
    if not stripped:
        return None
    sign = -1.0 if stripped.startswith("-") else 1.0
    word = stripped.lstrip("+-").lower()
    if word in _INFINITY:
        return sign * _INFINITY[word], 0
    return parse_number(stripped), decimals_of(stripped)


def _printout_rows(text: str) -> list[list[str]]:
    rows = []
    for inside in _ROW.findall(text):
        cells = [cell for cell in re.split(r"[,\s]+", inside.strip()) if cell]
        rows.append(cells)
    return rows


def _is_number(text: str) -> bool:
    try:
        parse_cell(text)
    except InputError:
        return False
    return True


def grid_texts(text: str, labels: Sequence[str] = ()) -> list[list[str]]:
    """The cells of `text` as written, row by row, without a first row or column of labels
    (tokens, as the data export writes them, or words); `labels` names column labels
    that read as numbers ("1", "2"). A paste keeps these texts, a cell that is no number
    included, to mark it where it landed."""
    text = text.lstrip("\ufeff")
    block = _printout_rows(text) if "[" in text else split_block(text)
    block = [row for row in block if any(cell.strip() for cell in row)]
    # Labels are words, not one mistyped number among numbers: a row (a column) is taken
    # for labels only where none of its cells is a number, or it is the labels themselves.
    if block and (
        not any(_is_number(cell) and cell.strip() for cell in block[0])
        or (labels and [c.strip() for c in block[0][-len(labels) :]] == list(labels))
    ):
        header, block = block[0], block[1:]
        # A blank corner, as the data export writes it: the first column holds row labels
        # even where they read as numbers.
        if header and not header[0].strip() and len(header) > 1:
            return [row[1:] for row in block]
    if block and not any(_is_number(row[0]) and row[0].strip() for row in block if row):
        block = [row[1:] for row in block]
    return block


def read_grid(text: str, labels: Sequence[str] = ()) -> list[list[Cell]]:
    """The numbers of `text` (see `grid_texts`), row by row. Raises GridError at the first
    cell that is not a number."""
    block = grid_texts(text, labels)
    grid: list[list[Cell]] = []
    for r, row in enumerate(block):
        cells: list[Cell] = []
        for c, cell in enumerate(row):
            try:
                cells.append(parse_cell(cell))
            except InputError as error:
                raise GridError(
                    _("Row {row}, column {column}: {reason}").format(
                        row=r + 1, column=c + 1, reason=error
                    ),
                    r + 1,
                    c + 1,
                ) from None
        grid.append(cells)
    return grid


def fit_grid(grid: list[list[Cell]], shape: tuple[int, int], what: str) -> list[list[Cell]]:
    """`grid` padded with blanks to `shape`; raises InputError when it is larger, naming
    `what` (the array as the user knows it)."""
    rows, cols = shape
    width = max((len(row) for row in grid), default=0)
    if len(grid) > rows or width > cols:
        raise InputError(
            _(
                "{what} has {rows} rows and {cols} columns, but the numbers given have "
                "{given_rows} rows and {given_cols} columns."
            ).format(what=what, rows=rows, cols=cols, given_rows=len(grid), given_cols=width)
        )
    return [list(row) + [None] * (cols - len(row)) for row in grid] + [
        [None] * cols for _row in range(rows - len(grid))
    ]


def read_grid_file(path: Path, labels: Sequence[str] = ()) -> list[list[Cell]]:
    """`read_grid` of a file (UTF-8, a BOM allowed). Raises OSError or UnicodeDecodeError
    when it cannot be read, GridError for a cell that is not a number."""
    return read_grid(path.read_text(encoding="utf-8-sig"), labels)
