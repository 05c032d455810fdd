"""A worksheet's files: the PDF of its exercises and, where no command line can open an
exercise, a session beside it that can.

Shared by the command line (`attn-explorer worksheet`) and the File menu. An exercise must
open in the window exactly as printed, so that "Check my numbers" checks the learner against
the numbers of the sheet: the session's own exercise opens with the command that made it
(`attn-explorer --preset v1 --set seed=7`); a variant, whose embeddings were drawn anew, with
a session written beside the PDF (`attn-explorer sheet-exercise-2.json`), as no option
of the command line takes a table of embeddings.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from attn_explorer.engine import AttentionConfig, Trace
from attn_explorer.engine.variants import variants
from attn_explorer.io.errors import shown_path
from attn_explorer.io.session import save_session
from attn_explorer.model.state import ExplorerState
from attn_explorer.text.worksheet import Sheet, blank_problem, worksheet
from attn_explorer.ui.export.worksheet_pdf import check_fits, write_worksheet

PROGRAM = "attn-explorer"
MAX_VARIANTS = 200  # a large lecture hall; more is a mistyped number


class WorksheetError(ValueError):
    """An array that cannot be blanked; the message (current language) says which and why."""


@dataclass(frozen=True)
class WorksheetRequest:
    """What to print: `config`'s exercise itself (`variants` 0) or `variants` new ones,
    `blanks` to fill, on `paper`. `open_with` is the command that opens `config` itself in
    the window ("" where none can: a session is then written beside the PDF); `source`
    names what the sheet was made from."""

    config: AttentionConfig
    blanks: tuple[str, ...]
    variants: int = 0
    paper: str = "a4"
    source: str = ""
    open_with: str = ""


def command(*args: str) -> str:
    """`attn-explorer ARGS`, each argument quoted as a shell needs it."""
    return " ".join([PROGRAM, *(shlex.quote(a) for a in args)])


def session_path(out: Path, number: int) -> Path:
    """Where exercise `number` of the worksheet `out` is saved: beside it, named after it."""
    return out.with_name(f"{out.stem}-exercise-{number}.json")


def exercises(request: WorksheetRequest) -> tuple[AttentionConfig, ...]:
    """The configs of the exercises printed."""
    if request.variants:
        return variants(request.config, request.variants)
    return (request.config,)


def check_blanks(trace: Trace, blanks: tuple[str, ...]) -> None:
    """Raise WorksheetError for the first array of `blanks` that cannot be blanked."""
    for name in blanks:
        problem = blank_problem(trace, name)
        if problem is not None:
            raise WorksheetError(problem)


def sheets_for(request: WorksheetRequest, out: Path) -> tuple[list[Sheet], list[AttentionConfig]]:
    """The sheets of `request`, and the configs of the exercises that need a session beside
    `out` (in the sheets' order, numbered from 1)."""
    from attn_explorer.engine import compute
    from attn_explorer.engine.threads import use_threads_for

    configs = exercises(request)
    sheets: list[Sheet] = []
    saved: list[AttentionConfig] = []
    for number, config in enumerate(configs, start=1):
        # The window's kernel threads: products round differently on one thread and two.
        use_threads_for(config)
        trace = compute(config)
        if number == 1:
            check_blanks(trace, request.blanks)
        if request.variants or not request.open_with:
            saved.append(config)
            opens = command(shown_path(session_path(out, number).name))
        else:
            opens = request.open_with
        sheets.append(
            worksheet(
                trace,
                request.blanks,
                number=number,
                count=len(configs),
                source=request.source,
                open_with=opens,
            )
        )
    return sheets, saved


def make_worksheet(request: WorksheetRequest, out: Path) -> list[Path]:
    """Write the worksheet's PDF at `out` and the sessions its exercises open from; the
    paths written, the PDF first. WorksheetError or WorksheetTooLargeError (from
    `worksheet_pdf`) before anything is written; OSError where a file cannot be."""
    sheets, saved = sheets_for(request, out)
    check_fits(sheets, request.paper)
    written = [write_worksheet(sheets, out, request.paper)]
    for number, config in enumerate(saved, start=1):
        path = session_path(out, number)
        save_session(path, ExplorerState.from_config(config))
        written.append(path)
    return written
