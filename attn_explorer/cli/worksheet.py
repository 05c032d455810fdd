"""`attn-explorer worksheet`: a printable exercise with its answer key, without a window.

For a teacher who prints one per learner:

    attn-explorer worksheet --preset causal --blank scores,weights -o causal.pdf
    attn-explorer worksheet --preset v1 --blank weights,context --variants 30 -o class.pdf
    attn-explorer worksheet lesson.json --blank weights --paper letter --lang vi -o bai.pdf

The PDF gives the tokens, X and the weights drawn from the seed, the formulas of the stages
up to the last blanked array and an empty grid for each; its answer key, from a new page,
every blanked value and each row's worked line. Each exercise says how to open it in the
window, where "Check my numbers" checks a learner's grid: the command that made it, or for
`--variants` (embeddings drawn anew) a session written beside the PDF.

Its messages and exit statuses are `export`'s: one line saying what was wrong, 2 for
arguments refused (an array that cannot be blanked, a grid too large for the paper), 1 for a
session that cannot be read, a configuration that cannot be computed or a file that cannot
be written.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from attn_explorer.cli.arguments import (
    UsageError,
    add_state_arguments,
    glue_values,
    language_metavar,
    named_state,
    refuse_blank,
    whole_in_range,
)
from attn_explorer.cli.command import run_command
from attn_explorer.cli.export import cannot_write
from attn_explorer.cli.export_output import STANDARD_OUTPUT, ExportError, _check_folder
from attn_explorer.cli.parser import OneLineParser
from attn_explorer.text import i18n
from attn_explorer.text.i18n import _

PROG = "attn-explorer worksheet"
PAPERS = ("a4", "letter")


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description=_(
            "Print a worksheet: the inputs, the formulas and empty grids to fill, then an "
            "answer key, as a PDF."
        ),
    )
    parser.add_argument(
        "session", nargs="?", metavar=_("session"), help=_("a saved session (.json)")
    )
    add_state_arguments(parser)
    parser.add_argument(
        "--blank",
        action="append",
        default=[],
        required=True,
        metavar=_("ARRAY[,ARRAY…]"),
        help=_(
            "the arrays the learner computes, e.g. scores,weights,context (the names of "
            "export --view)"
        ),
    )
    parser.add_argument(
        "--variants",
        metavar="N",
        help=_(
            "N different exercises, each its own seed and embeddings, each with its key "
            "(default: the session's exercise itself)"
        ),
    )
    parser.add_argument("--paper", choices=PAPERS, default="a4", help=_("paper size (default a4)"))
    parser.add_argument(
        "--lang",
        metavar=language_metavar(),
        help=_("the language of the worksheet and of these messages (default: the system's)"),
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar=_("OUT.pdf"), help=_("the PDF to write")
    )
    return parser


def _blanks(given: list[str]) -> tuple[str, ...]:
    """--blank weights,context --blank scores as ("weights", "context", "scores")."""
    names = [name.strip() for item in given for name in item.split(",")]
    if not any(names) or not all(names):
        raise UsageError(
            _("--blank: name the arrays to compute, separated by commas, e.g. {example}").format(
                example="scores,weights"
            )
        )
    return tuple(dict.fromkeys(names))


def _output(text: str) -> Path:
    """-o as the PDF to write: "sheet" is sheet.pdf, another extension is refused."""
    from attn_explorer.io.errors import shown_path

    if text in STANDARD_OUTPUT:
        raise UsageError(_("a worksheet cannot go to standard output: name a .pdf file with -o"))
    out = Path(text)
    if out.suffix.lower() == ".pdf":
        return out
    if out.suffix and not text.endswith(("/", os.sep)):
        raise UsageError(
            _("a worksheet is a PDF: name a .pdf file, not '{name}'").format(
                name=shown_path(out.name)
            )
        )
    if text.endswith(("/", os.sep)) or out.is_dir():
        raise UsageError(
            _("{folder} is a folder: name the .pdf file to write").format(folder=shown_path(out))
        )
    return out.with_name(out.name + ".pdf")


def _opens_itself(args: argparse.Namespace) -> str:
    """The command that opens the exercise the arguments describe, in the window."""
    from attn_explorer.ui.export.worksheet_files import command

    parts: list[str] = []
    if args.session:
        parts.append(args.session)
    if args.preset:
        parts += ["--preset", args.preset]
    if args.tokens is not None:
        parts += ["--tokens", str(args.tokens).strip()]
        if args.d_in is not None:
            parts += ["--d-in", str(args.d_in).strip()]
    for item in args.set:
        parts += ["--set", item.strip()]
    return command(*parts)


def _source(args: argparse.Namespace) -> str:
    """What the worksheet was made from, for its title."""
    from attn_explorer.io.errors import shown_path
    from attn_explorer.text.examples import example_text

    if args.tokens is not None:
        return _("{n} random tokens").format(n=str(args.tokens).strip())
    if args.preset:
        return example_text(args.preset).title
    return shown_path(Path(args.session).name) if args.session else ""


def run(argv: list[str]) -> int:
    """The worksheet `argv` asks for, in the current language (`main` sets it from --lang)."""
    args = _parser().parse_args(glue_values(argv))
    refuse_blank({"-o": (args.output, _("name the .pdf file to write"))})
    blanks = _blanks(args.blank)
    variants = 0
    if args.variants is not None:
        from attn_explorer.ui.export.worksheet_files import MAX_VARIANTS

        variants = whole_in_range("--variants", args.variants, 1, MAX_VARIANTS)
    out = _output(args.output)
    state = named_state(args, PROG, ExportError)
    config = state.config()
    problems = config.problems()
    if problems:
        from attn_explorer.text.problems import problem_text

        raise ExportError(
            _("this configuration cannot be computed: {reason}").format(
                reason=problem_text(problems[0])
            )
        )
    _check_folder(out)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.export.worksheet_files import (
        WorksheetError,
        WorksheetRequest,
        make_worksheet,
    )
    from attn_explorer.ui.export.worksheet_pdf import WorksheetTooLargeError

    request = WorksheetRequest(
        config,
        blanks,
        variants=variants,
        paper=args.paper,
        source=_source(args),
        open_with=_opens_itself(args),
    )
    # In the language of the command, not the one the window last spoke.
    create_app(["attn-explorer-worksheet"], language=i18n.language())
    from attn_explorer.io.session import SessionError

    try:
        written = make_worksheet(request, out)
    except (WorksheetError, WorksheetTooLargeError) as error:
        raise UsageError(str(error)) from None
    except SessionError as error:  # a variant's session beside the PDF
        raise ExportError(str(error)) from None
    except OSError as error:
        raise ExportError(cannot_write(error, out)) from None
    for path in written:
        print(path)
    return 0


def main(argv: list[str]) -> int:
    """`attn-explorer worksheet ARGV`, in the language of --lang, else the system's."""
    return run_command(PROG, argv, run, (ExportError,))
