"""The words of "Check my numbers": each verdict's name and symbol, and the sentences that
say what a checked cell is, what it should be, how it is derived and what slip likely made it.

The cells come from `attn_explorer.engine.check`; a wrong cell's derivation is the hover's
(`explain`), with the real numbers. Verdict symbols are the same in every language, so a grid
reads without colour in any.
"""

from __future__ import annotations

import math

from attn_explorer.engine.check import Cell, CheckResult
from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.trace import Trace
from attn_explorer.text.explain import explain
from attn_explorer.text.i18n import N_, _, ngettext
from attn_explorer.text.numbers import num
from attn_explorer.text.titles import array_symbol, array_title, divisor_symbol

VERDICT_NAMES = {
    "right": N_("right"),
    "follows": N_("follows from an earlier slip"),
    "wrong": N_("wrong"),
    "missing": N_("not given"),
}
VERDICT_SYMBOLS = {"right": "✓", "follows": "↳", "wrong": "✗", "missing": "·"}


def verdict_name(verdict: str) -> str:
    return _(VERDICT_NAMES[verdict])


def written(value: float, decimals: int) -> str:
    """A number as the learner wrote it: with their decimals, −∞ as a masked score."""
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    return f"{value:.{max(decimals, 0)}f}"


def _per_head(trace: Trace, name: str) -> bool:
    return trace.info(name).per_head


def _labels(trace: Trace, name: str, head: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    info = trace.info(name)
    return trace.axis_labels(info.rows, _), trace.axis_labels(info.cols, _)


def array_name(config: AttentionConfig, name: str) -> str:
    """An array's title with its symbol ("Attention weights α"), where the title lacks it and
    the symbol is one ("out", the output, is a word the title says better)."""
    title, symbol = array_title(config, name), array_symbol(config, name)
    return title if symbol in title or symbol == "out" else f"{title} {symbol}"


def place(trace: Trace, cell: Cell, head: int = 0) -> str:
    """ "Attention weights α, row 2 (am), column 3 (happy)": a cell as the grid labels it."""
    rows, cols = _labels(trace, cell.array, head)
    named = array_name(trace.config, cell.array)
    row_label = rows[cell.row] if cell.row < len(rows) else ""
    col_label = cols[cell.col] if cell.col < len(cols) else ""
    # A dimension's label is its number: "column 2 (2)" would say it twice.
    if row_label in ("", str(cell.row + 1)):
        row = _("row {row}").format(row=cell.row + 1)
    else:
        row = _("row {row} ({label})").format(row=cell.row + 1, label=row_label)
    if col_label in ("", str(cell.col + 1)):
        col = _("column {col}").format(col=cell.col + 1)
    else:
        col = _("column {col} ({label})").format(col=cell.col + 1, label=col_label)
    return _("{array}, {row}, {column}").format(array=named, row=row, column=col)


def _token(trace: Trace, name: str, index: int) -> str:
    cols = trace.axis_labels(trace.info(name).cols, _)
    return cols[index] if index < len(cols) else str(index + 1)


def slip_sentence(trace: Trace, cell: Cell) -> str:
    """The likely slip of a wrong cell, in words; "" where none of the known ones fits."""
    if cell.slip == "not_scaled":
        return _("Likely slip: the scores were not divided by {divisor}.").format(
            divisor=divisor_symbol(trace.config)
        )
    if cell.slip == "masked_keys_summed":
        return _(
            "Likely slip: the row was summed over the masked keys too; softmax sums only the "
            "keys this query may see."
        )
    if cell.slip == "wrong_score":
        return _(
            "Likely slip: the exponent of the wrong score: {given} is the weight of key "
            "{key} ({token}), not of key {col}."
        ).format(
            given=written(cell.given, cell.decimals),
            key=cell.slip_key + 1,
            token=_token(trace, cell.array, cell.slip_key),
            col=cell.col + 1,
        )
    if cell.slip == "transposed" and cell.array == "scores":
        return _("Likely slip: a transposed product, K·Qᵀ instead of Q·Kᵀ.")
    if cell.slip == "transposed":
        return _("Likely slip: a transposed product, αᵀ·V instead of α·V.")
    return ""


def describe(trace: Trace, result: CheckResult, cell: Cell) -> str:
    """What the check found at one cell, in sentences: a wrong cell with its exact value,
    its derivation with the real numbers, and its likely slip."""
    where = place(trace, cell, result.head)
    given = written(cell.given, cell.decimals)
    exact = num(cell.expected)
    if cell.verdict == "missing":
        return _("{place}: not given (exact value {exact}).").format(place=where, exact=exact)
    if cell.verdict == "right" and cell.rounding:
        return _(
            "{place}: {given} is right within the rounding of your earlier numbers (exact "
            "value {exact})."
        ).format(place=where, given=given, exact=exact)
    if cell.verdict == "right":
        return _("{place}: {given} is right (exact value {exact}).").format(
            place=where, given=given, exact=exact
        )
    if cell.verdict == "follows":
        return _(
            "{place}: you wrote {given}, which is what your own earlier numbers give "
            "({own}); the exact value is {exact}. This step was done right: the slip is "
            "earlier."
        ).format(place=where, given=given, own=num(cell.recomputed), exact=exact)
    lines = [
        _(
            "{place}: you wrote {given}; the exact value is {exact} ({rounded} to {decimals} "
            "decimals)."
        ).format(
            place=where,
            given=given,
            exact=exact,
            rounded=written(cell.expected, cell.decimals),
            decimals=max(cell.decimals, 0),
        )
    ]
    if math.isfinite(cell.recomputed) and abs(cell.recomputed - cell.expected) > 0.5 * 10.0 ** -max(
        cell.decimals, 0
    ):
        lines.append(
            _("From your own earlier numbers it would be {own}.").format(own=num(cell.recomputed))
        )
    head = result.head if _per_head(trace, cell.array) else 0
    lines.append(explain(trace, cell.array, head, cell.row, cell.col))
    slip = slip_sentence(trace, cell)
    if slip:
        lines.append(slip)
    return "\n".join(lines)


def summary(result: CheckResult) -> str:
    """ "Checked 45 cells: 33 right, 6 following from an earlier slip, 6 wrong, 0 not given.\""""
    counts = result.counts
    total = sum(counts.values())
    return ngettext(
        "Checked {cells} cell: {right} right, {follows} following from an earlier slip, "
        "{wrong} wrong, {missing} not given.",
        "Checked {cells} cells: {right} right, {follows} following from an earlier slip, "
        "{wrong} wrong, {missing} not given.",
        total,
    ).format(cells=total, **counts)


def first_slip(trace: Trace, result: CheckResult) -> str:
    cell = result.first_slip
    if cell is None:
        return _("No slip found.")
    return _("The first slip: {place}.").format(place=place(trace, cell, result.head))


def follow_rows(trace: Trace, result: CheckResult) -> list[str]:
    """One sentence per array with rows that only follow from an earlier slip."""
    out = []
    for name in result.arrays:
        rows = result.follow_rows(name)
        if not rows:
            continue
        labels = _labels(trace, name, result.head)[0]
        listed = ", ".join(f"{r + 1} ({labels[r]})" for r in rows)
        out.append(
            ngettext(
                "{array}: row {rows} only follows from an earlier slip.",
                "{array}: rows {rows} only follow from an earlier slip.",
                len(rows),
            ).format(array=array_title(trace.config, name), rows=listed)
        )
    return out


def listed(result: CheckResult) -> list[Cell]:
    """The cells a report lists, the first real slip first: the wrong cells in the
    computation's order, then those that follow, then those right only within rounding."""
    order = {"wrong": 0, "follows": 1}
    cells = [c for c in result.cells if c.verdict in order]
    cells.sort(key=lambda c: order[c.verdict])  # stable: the computation's order within
    return cells + [c for c in result.cells if c.verdict == "right" and c.rounding]


def report(trace: Trace, result: CheckResult) -> str:
    """The whole check in words, as the command line prints it."""
    lines = [summary(result), first_slip(trace, result), *follow_rows(trace, result)]
    for cell in listed(result):
        lines.append("")
        lines.append(f"{VERDICT_SYMBOLS[cell.verdict]} {describe(trace, result, cell)}")
    return "\n".join(lines)
