"""Where a tutorial's hand arithmetic slips: decided by "Check my numbers" (engine/check.py),
the check a learner's own numbers get, so that the Lessons dialog and the check never
disagree. A rule of its own here (the exact value rounded to the decimals written) called
Ngày 43's context row 0.53 a slip, where the tutorial rounded its products to 2 decimals
before adding them (0.30 × 0.2 + 0.33 × 0.5 + 0.37 × 0.8): the check calls it right within
that rounding, and calls the rows computed right from an earlier slip `follows`, not slips.

A tutorial's printouts of one example are checked together, in the order of the
computation, as a learner's are: a row is judged against the tutorial's own earlier
numbers where those slipped."""

from __future__ import annotations

from functools import cache

from attn_explorer.engine import PRESETS, compute
from attn_explorer.engine.check import CHECKABLE, CheckResult, Given, check
from attn_explorer.text.lessons_types import Printed, Tutorial, rows


def _decimals(text: str) -> int:
    return len(text.partition(".")[2])


def _owner(printed: Printed, tutorials: tuple[Tutorial, ...]) -> tuple[Tutorial, str] | None:
    """The tutorial that prints `printed`, and the example of its section."""
    for tutorial in tutorials:
        for section in tutorial.sections:
            if any(p is printed for p in section.printed):
                return tutorial, section.preset
    return None


def checked(printed: Printed) -> bool:
    """Whether the check judges `printed`: written by hand, a whole array it checks (of one
    head: `index` is the head of a per-head array)."""
    return (
        printed.written is not None
        and printed.array in CHECKABLE
        and len(printed.index) <= 1
        and printed.times == 1.0
    )


@cache
def _result(tutorial: Tutorial, preset: str) -> CheckResult:
    """The check of every hand-written printout of the tutorial on that example (of the
    head they print)."""
    given: dict[str, Given] = {}
    head = 0
    for section in tutorial.sections:
        if section.preset != preset:
            continue
        for printed in section.printed:
            if checked(printed):
                head = printed.index[0] if printed.index else head
                given[printed.array] = Given.from_rows(
                    [
                        [(float(text), _decimals(text)) for text in row]
                        for row in rows(printed.written)
                    ]
                )
    return check(compute(PRESETS[preset].config), given, head)


def _cells(printed: Printed, tutorials: tuple[Tutorial, ...], verdict: str) -> set[tuple[int, int]]:
    owner = _owner(printed, tutorials)
    if owner is None or not checked(printed):
        return set()
    result = _result(*owner)
    return {(c.row, c.col) for c in result.of(printed.array) if c.verdict == verdict}


def slips(printed: Printed, tutorials: tuple[Tutorial, ...]) -> set[tuple[int, int]]:
    """(row, column) of every number the tutorial wrote by hand that the check calls
    `wrong`: its slips of hand arithmetic (its rounding is none). `tutorials`: the table
    that holds it."""
    return _cells(printed, tutorials, "wrong")


def follows(printed: Printed, tutorials: tuple[Tutorial, ...]) -> set[tuple[int, int]]:
    """(row, column) of every number the tutorial wrote that is wrong against the exact
    value but done right from its own earlier numbers (the check's `follows`)."""
    return _cells(printed, tutorials, "follows")
