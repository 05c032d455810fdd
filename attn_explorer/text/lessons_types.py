"""The shapes of Help → Lessons' table (text/lessons.py): a tutorial, its sections, and the
numbers a section prints. Apart from the table, so that its two halves (lessons_chapter3,
lessons_more) and the slip logic (lessons_slips) read them without reading each other."""

from __future__ import annotations

from dataclasses import dataclass

# A number, a row of numbers or a matrix, as nested tuples.
Values = float | tuple[float, ...] | tuple[tuple[float, ...], ...]
Written = str | tuple[str, ...] | tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Printed:
    """One printout of a section: what the tutorial prints and where the engine holds it.

    `code` is the tutorial's own name for it (its variable or expression, never translated)
    and `what` says in words what it is. The engine's value is `trace[array][index]` times
    `times` (dropout printed on a matrix of ones is the keep-mask × 1/(1 − p)). `values` are
    the exact numbers, as PyTorch prints them (4 decimals). Where the tutorial did the
    arithmetic by hand, `written` is what it wrote, as written ("0.30"): the dialog marks
    where that differs from the exact value at the tutorial's own precision (`slips`).
    """

    code: str
    what: str
    array: str
    index: tuple[int, ...]
    values: Values
    times: float = 1.0
    written: Written | None = None


@dataclass(frozen=True)
class Section:
    """A section of a tutorial and the example that reproduces it.

    `number` is the tutorial's own numbering ("3.5.2"), empty where it numbers none; `title`
    its heading, and `part` which of several examples of one section this is (3.4.2 prints
    both SelfAttention_v1 and _v2): words marked `N_`, or a class's name, which no
    catalogue translates. `preset` is the example (a key of
    `attn_explorer.engine.PRESETS`), `stage` the step-through stage it opens on (a key of
    `attn_explorer.engine.STEP_KEYS`), or None for the Matrices tab.
    """

    number: str
    title: str
    preset: str
    stage: str | None
    note: str
    printed: tuple[Printed, ...] = ()
    part: str = ""


@dataclass(frozen=True)
class Tutorial:
    """A tutorial as learners know it, and its sections the app reproduces, in its order."""

    key: str
    title: str
    sections: tuple[Section, ...]


def rows(values: Values | Written) -> list[list]:
    """`values` as rows of cells: a number is one row of one, a vector one row."""
    if not isinstance(values, tuple):
        return [[values]]
    if values and not isinstance(values[0], tuple):
        return [list(values)]
    return [list(row) for row in values]
