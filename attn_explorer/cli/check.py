"""`attn-explorer check`: a learner's hand-computed numbers checked against the computation.

    attn-explorer check --preset happy --values weights=weights.csv --values context=ctx.txt
    attn-explorer check SESSION.json --values scores=- --head 2 --format json < printout.txt

Each FILE is a CSV grid (a blank cell is a number not given; a first row and column of
tokens, as the data export writes them, are skipped) or a notebook's printout
(`tensor([[0.1, …]])`); `-` reads standard input. The arrays take the names of the export's
--view. Every cell is right, follows (from the learner's own earlier numbers), wrong or not
given, with the first real slip first (`attn_explorer.engine.check`).

Exit status: 0 when the check ran, whatever it found; 2 for arguments that cannot be
followed; 1 for a file that cannot be read (or a session, or numbers that do not fit the
array), each said in one line in the language of --lang.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

from attn_explorer.cli.arguments import (
    UsageError,
    add_state_arguments,
    brief,
    language_metavar,
    named_state,
    refuse_blank,
    whole,
)
from attn_explorer.cli.command import run_command
from attn_explorer.cli.parser import OneLineParser
from attn_explorer.text.i18n import _

PROG = "attn-explorer check"
FORMATS = ("text", "json")


class CheckFileError(Exception):
    """A file (or session) that cannot be read, or numbers that do not fit: exit status 1."""


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description=_(
            "Check numbers computed by hand against the computation: each cell right, "
            "following from your own earlier numbers, wrong (with the likely slip) or not given."
        ),
    )
    parser.add_argument(
        "session", nargs="?", metavar=_("session"), help=_("a saved session (.json)")
    )
    add_state_arguments(parser)
    parser.add_argument(
        "--values",
        action="append",
        default=[],
        metavar=_("ARRAY=FILE"),
        help=_(
            "the numbers of one array (as --view names it in export, e.g. weights, "
            "scaled_scores, context): a CSV grid, blank cells not given, or a printed "
            "tensor; '-' is standard input"
        ),
    )
    parser.add_argument(
        "--head", metavar=_("HEAD"), help=_("head number from 1 (default: the session's, else 1)")
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help=_("default: text"))
    parser.add_argument(
        "--lang",
        metavar=language_metavar(),
        help=_("the language of the verdicts and these messages (default: the system's)"),
    )
    return parser


def _values(items: list[str], trace: object) -> list[tuple[str, str]]:
    from attn_explorer.engine.check import CHECKABLE

    if not items:
        raise UsageError(_("give at least one --values {form}").format(form=_("ARRAY=FILE")))
    known = [name for name in CHECKABLE if name in trace]
    pairs: list[tuple[str, str]] = []
    for item in items:
        name, sep, file = item.partition("=")
        name = name.strip()
        if not sep or not name or not file:
            raise UsageError(
                _("--values needs {form}, got {given}").format(
                    form=_("ARRAY=FILE"), given=brief(item)
                )
            )
        if name not in known:
            raise UsageError(
                _("--values: {array} cannot be checked here; the arrays are: {names}").format(
                    array=brief(name), names=", ".join(known)
                )
            )
        if any(name == seen for seen, _file in pairs):
            raise UsageError(_("--values: {array} is given twice").format(array=name))
        pairs.append((name, file))
    if sum(file == "-" for _name, file in pairs) > 1:
        raise UsageError(_("--values: only one array can be read from standard input ('-')"))
    return pairs


def _read(name: str, file: str, trace: object, head: int) -> object:
    from attn_explorer.engine.check import Given
    from attn_explorer.io.errors import shown_path
    from attn_explorer.io.grid_input import fit_grid, read_grid
    from attn_explorer.io.textinput import InputError
    from attn_explorer.text.titles import array_title

    info = trace.info(name)
    shown = _("standard input") if file == "-" else shown_path(Path(file))
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise CheckFileError(
            _("Cannot read {file}: it is not text in UTF-8.").format(file=shown)
        ) from None
    except OSError as error:
        reason = error.strerror or str(error)
        raise CheckFileError(
            _("Cannot read {file}: {reason}.").format(file=shown, reason=reason)
        ) from None
    matrix = trace.matrix(name, head if info.per_head else 0)
    labels = trace.axis_labels(info.cols, _)
    try:
        grid = fit_grid(read_grid(text, labels), matrix.shape, array_title(trace.config, name))
    except InputError as error:
        raise CheckFileError(f"{shown}: {error}") from None
    return Given.from_rows(grid)


def _number(value: float) -> float | str | None:
    """A number for JSON, which has no infinity: −∞ (a masked score) as the string "-inf"."""
    if math.isnan(value):
        return None
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    return round(value, 6)


def as_json(trace: object, result: object) -> dict:
    """The check as the JSON output writes it: rows, columns and heads counted from 1."""
    cells = []
    for cell in result.cells:
        entry = {
            "array": cell.array,
            "row": cell.row + 1,
            "col": cell.col + 1,
            "given": _number(cell.given),
            "expected": _number(cell.expected),
            "verdict": cell.verdict,
        }
        if cell.verdict != "missing":
            entry["decimals"] = cell.decimals
        if cell.verdict in ("follows", "wrong"):
            entry["recomputed"] = _number(cell.recomputed)
        if cell.slip:
            entry["slip"] = cell.slip
            if cell.slip_key >= 0:
                entry["slip_key"] = cell.slip_key + 1
        if cell.rounding:
            entry["rounding"] = True
        cells.append(entry)
    first = result.first_slip
    summary = {
        "head": result.head + 1,
        "arrays": list(result.arrays),
        **dict(result.counts),
        "first_slip": None
        if first is None
        else {"array": first.array, "row": first.row + 1, "col": first.col + 1},
        "follow_rows": {
            name: [r + 1 for r in result.follow_rows(name)]
            for name in result.arrays
            if result.follow_rows(name)
        },
    }
    return {"cells": cells, "summary": summary}


def run(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    refuse_blank({"--head": (args.head, _("a head's number from 1"))})

    state = named_state(args, PROG, CheckFileError)
    config = state.config()
    from attn_explorer.engine import ConfigError, compute
    from attn_explorer.engine.check import check
    from attn_explorer.engine.threads import use_threads_for
    from attn_explorer.text.problems import problem_text

    use_threads_for(config)  # the window's numbers, to the last bit
    try:
        trace = compute(config)
    except ConfigError as error:
        raise CheckFileError(
            _("this configuration cannot be computed: {reason}").format(reason=problem_text(error))
        ) from None
    pairs = _values(args.values, trace)
    if args.head is None:
        head = min(state.view.head, config.heads - 1)
    else:
        number = whole(args.head)
        if number is None or not 1 <= number <= config.heads:
            raise UsageError(
                _("--head must be a head's number from 1 to {heads}, not {given}").format(
                    heads=config.heads, given=brief(args.head.strip(), quoted=False)
                )
            )
        head = number - 1
    given = {name: _read(name, file, trace, head) for name, file in pairs}
    result = check(trace, given, head)
    if args.format == "json":
        out = json.dumps(as_json(trace, result), ensure_ascii=False, indent=1)
    else:
        from attn_explorer.text.check_words import report

        out = report(trace, result)
    try:
        print(out, flush=True)
    except BrokenPipeError:  # "| head" has read what it wanted: not a failure
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def main(argv: list[str]) -> int:
    """`attn-explorer check ARGV`, in the language of --lang, else the system's."""
    return run_command(PROG, argv, run, (CheckFileError,))
