"""Help → Lessons: every section of the five tutorials that an example reproduces, with the
numbers the tutorial prints there.

A learner knows where they are in a tutorial ("3.5.2 Dropout"), not which example holds it;
this table takes them from the section to its example, on the stage the section is about, and
lists the numbers the section prints so they can be found on screen. Every number here is
checked against the engine to the digits printed (tests/text/test_lessons.py): a table of
numbers nobody recomputes drifts from what the window shows.

The table is data (32 sections and their printouts) in two halves, text/lessons_chapter3.py
and text/lessons_more.py, on the shapes of text/lessons_types.py; where a tutorial's hand
arithmetic slips is decided by the same check a learner's numbers get (text/lessons_slips.py,
engine/check.py): one rule for both. This module puts them together under the names the
window and the tests import.

Qt-free data. The words are marked `N_` and translated where shown, so the table never holds
the language of the moment it was imported; section titles are translated into the headings
the Vietnamese tutorials themselves use. Code names (`attn_scores_2`, `SelfAttention_v1`) and
symbols are never translated.
"""

from __future__ import annotations

from attn_explorer.text import lessons_slips
from attn_explorer.text.lessons_chapter3 import CHAPTER_3
from attn_explorer.text.lessons_more import BLOG, D2L, DAY_43, NOTEBOOK
from attn_explorer.text.lessons_types import Printed, Section, Tutorial, Values, Written, rows
from attn_explorer.text.numbers import num

__all__ = [
    "TUTORIALS",
    "Printed",
    "Section",
    "Tutorial",
    "Values",
    "Written",
    "exact_rows",
    "follows",
    "rows",
    "sections",
    "slips",
]

TUTORIALS: tuple[Tutorial, ...] = (CHAPTER_3, NOTEBOOK, D2L, DAY_43, BLOG)


def sections() -> list[tuple[Tutorial, Section]]:
    """Every section of every tutorial, in the tutorials' order."""
    return [(tutorial, section) for tutorial in TUTORIALS for section in tutorial.sections]


def exact_rows(printed: Printed) -> list[list[str]]:
    """The exact numbers as the window writes them (4 decimals, "−∞"), as rows."""
    return [[num(value) for value in row] for row in rows(printed.values)]


def slips(printed: Printed) -> set[tuple[int, int]]:
    """(row, column) of the numbers the tutorial wrote by hand that "Check my numbers" calls
    wrong: its slips (see text/lessons_slips.py)."""
    return lessons_slips.slips(printed, TUTORIALS)


def follows(printed: Printed) -> set[tuple[int, int]]:
    """(row, column) of the numbers it wrote that are wrong only because an earlier number
    of its own was: done right from it (the check's `follows`)."""
    return lessons_slips.follows(printed, TUTORIALS)
