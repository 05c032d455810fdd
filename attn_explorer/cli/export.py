"""`attn-explorer export`: figures, data and code from a session or a preset, without a window.

For tutorial authors who regenerate their figures in batch:

    attn-explorer export SESSION.json --view weights --format svg -o out.svg
    attn-explorer export --preset mha --all-steps -o steps.pdf
    attn-explorer export --preset v1 --format npz -o v1.npz
    attn-explorer export --tokens 8 -o random.png    # the default example, 8 random tokens
    attn-explorer export --preset v1 --format json -o - | jq .config   # to standard output
    attn-explorer export --lang vi --preset v1 -o v1.py    # the script's comments in Vietnamese

Without --view, --stage or --all-steps a session's figure is what its window showed. Its words
(the messages, the figures' titles, the script's comments, the data's notes) are in the language
of --lang, else the system's.

On bad input it prints one line saying what was wrong and exits non-zero, never with a
traceback: 2 for arguments refused (by argparse, or as not fitting each other or the
configuration: a --format the name contradicts, a --size, --view or --head the figure cannot
take, a --set or --tokens the other settings cannot be computed with), 1 when the session
cannot be read, its own configuration cannot be computed or the output cannot be written.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path

from attn_explorer.cli.arguments import (
    UsageError,
    add_state_arguments,
    brief,
    glue_values,
    language_metavar,
    named_state,
    refuse_blank,
    whole,
)
from attn_explorer.cli.command import cannot_write, run_command
from attn_explorer.cli.export_output import (
    DATA_FORMATS,
    FORMATS,
    STANDARD_OUTPUT,
    ExportError,
    _check_folder,
    _choose_format,
    _output_path,
    _scale,
    _size,
    write_data,
)
from attn_explorer.cli.parser import OneLineParser
from attn_explorer.text import i18n
from attn_explorer.text.i18n import _

PROG = "attn-explorer export"


def _parser() -> argparse.ArgumentParser:
    from attn_explorer.engine import STEP_KEYS

    parser = OneLineParser(
        prog=PROG,
        description=_("Export figures, data or a PyTorch script without opening a window."),
    )
    parser.add_argument(
        "session", nargs="?", metavar=_("session"), help=_("a saved session (.json)")
    )
    add_state_arguments(parser)
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--view",
        metavar=_("NAME"),
        help=_(
            "'matrices' (the main window's seven matrices) or an array of the trace, e.g. "
            "weights, masked_scores, mask, queries, context (default: what the session showed: "
            "its stage, all its heads or the matrices)"
        ),
    )
    what.add_argument(
        "--stage", choices=STEP_KEYS, metavar=_("STAGE"), help=_("one step-through stage")
    )
    what.add_argument(
        "--all-steps", action="store_true", help=_("every stage: a multi-page PDF or a folder")
    )
    parser.add_argument(
        "--head",
        metavar=_("HEAD"),
        help=_("head number from 1, or 'all' (default: the session's head, else 1)"),
    )
    parser.add_argument(  # a whole number, read by `whole` once the tokens are known
        "--query",
        default=None,
        metavar=_("QUERY"),
        help=_(
            "the followed query token, from 1 (default: the session's or the example's "
            "followed query: 2, or 3 in the dropout example)"
        ),
    )
    parser.add_argument(
        "--compare",
        metavar=_("OTHER"),
        help=_(
            "compare with A, a session file or an example: the figure shows A, B (this "
            "session with its --set) and B − A of --view; npz and json hold all three"
        ),
    )
    parser.add_argument("--format", choices=FORMATS, help=_("default: the output's extension"))
    parser.add_argument(
        "--scale",
        metavar="{1,2,4}",
        default="1",
        help=_("pixels per figure pixel, png only (default 1)"),
    )
    parser.add_argument("--size", metavar="WxH", help=_("figure size in logical pixels"))
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar=_("OUT"),
        help=_("file or folder; '-' is standard output (json, npz or py)"),
    )
    parser.add_argument(
        "--lang",
        metavar=language_metavar(),
        help=_(
            "the language of the figures' words, the script's comments, the data's notes and "
            "these messages (default: the system's)"
        ),
    )
    return parser


def run(argv: list[str]) -> int:
    """The export `argv` asks for, in the current language (`main` sets it from --lang)."""
    args = _parser().parse_args(glue_values(argv))
    args.scale = _scale(args.scale)
    refuse_blank(
        {
            "--view": (args.view, _("'matrices' or an array of the trace, e.g. weights")),
            "-o": (args.output, _("name the file or folder to write")),
        }
    )
    from attn_explorer.io.errors import shown_path

    state = named_state(args, PROG, ExportError)
    config = state.config()
    # A number that names no head or token is said first, whatever the view: refused as
    # ignored ("--head would change nothing"), it would read as if head 0 existed.
    if args.query is not None:
        query_number = whole(args.query)
        if query_number is None or not 1 <= query_number <= config.n_q:
            raise UsageError(
                _("--query must be a query token's number from 1 to {n_q}, not {given}").format(
                    n_q=config.n_q, given=brief(args.query.strip(), quoted=False)
                )
            )
    # Without --view, --stage or --all-steps, the figure is what the session's window showed:
    # its stage, or every head side by side.
    shown = state.view
    named = args.view is not None or args.stage is not None or args.all_steps
    all_heads = not named and shown.tab == "matrices" and shown.all_heads
    stage = args.stage or (shown.stage if not named and shown.tab == "steps" else None)
    view = args.view or (shown.heads_array if all_heads else None)
    if args.head is None:
        # The session's head, as --query follows its query (a preset's is head 1); a head
        # the trace lacks shows as the last, as the window's head list shows it.
        head: int | None = None if all_heads else min(shown.head, config.heads - 1)
    elif args.head.strip().lower() == "all":
        head = None
    else:
        number = whole(args.head)
        if number is None:
            raise UsageError(
                _("--head must be a number from 1 or 'all', not {given}").format(
                    given=brief(args.head)
                )
            )
        head = number - 1
        if not 0 <= head < config.heads:
            raise UsageError(
                _("--head must be a head's number from 1 to {heads} or 'all', not {given}").format(
                    heads=config.heads, given=brief(args.head.strip(), quoted=False)
                )
            )
    fmt = _choose_format(args, Path(args.output))
    out = _output_path(args, fmt)
    size = _size(args.size)
    from attn_explorer.engine import ConfigError, compute
    from attn_explorer.engine.threads import use_threads_for
    from attn_explorer.text.problems import problem_text

    # As many kernel threads as the window's engine thread uses: matrix products round
    # differently on one thread and on two, and the export must hold the window's numbers.
    use_threads_for(config)
    try:
        trace = compute(config)
    except ConfigError as error:
        raise ExportError(
            _("this configuration cannot be computed: {reason}").format(reason=problem_text(error))
        ) from None
    # The session's query; one the tokens lack (--tokens fewer) is the last, as the window
    # shows it: drawn as it is, it would outline no row.
    query = query_number - 1 if args.query is not None else min(state.view.query, config.n_q - 1)
    if args.compare is not None:
        from attn_explorer.cli.export_compare import export_compare

        return export_compare(args, trace, fmt, out, size)

    if fmt in DATA_FORMATS or fmt == "py":
        figure_only = [
            flag
            for flag, given in (
                ("--view", args.view is not None),
                ("--stage", args.stage is not None),
                ("--all-steps", args.all_steps),
                ("--head", args.head is not None),
                ("--query", args.query is not None),
                ("--scale", args.scale != 1),
                ("--size", args.size is not None),
            )
            if given
        ]
        if figure_only:  # silently ignored, they would seem to have been obeyed
            if fmt == "py":
                message = i18n.ngettext(
                    "{options} only applies to figures (png, svg, pdf); {format} holds the "
                    "whole computation",
                    "{options} only apply to figures (png, svg, pdf); {format} holds the "
                    "whole computation",
                    len(figure_only),
                )
            else:
                message = i18n.ngettext(
                    "{options} only applies to figures (png, svg, pdf); {format} holds every array",
                    "{options} only apply to figures (png, svg, pdf); {format} holds every array",
                    len(figure_only),
                )
            raise UsageError(message.format(options=", ".join(figure_only), format=fmt))
        from attn_explorer.io.data_export import DataExportError

        if args.output in STANDARD_OUTPUT:
            try:
                return _stream_data(trace, fmt)
            except DataExportError as error:
                raise ExportError(str(error)) from None
        _check_folder(out)
        try:
            return write_data(trace, fmt, out)
        except OSError as error:
            raise ExportError(cannot_write(error, out)) from None
        except DataExportError as error:  # a token the format cannot hold
            raise ExportError(str(error)) from None
    if args.scale != 1 and fmt != "png":  # only a PNG has pixels to multiply
        raise UsageError(
            _(
                "--scale only applies to png; {format} is drawn as vectors, sharp at any zoom"
            ).format(format=fmt)
        )
    if head is None and (stage or args.all_steps or view in (None, "matrices")):
        raise UsageError(
            _(
                "--head all needs an array --view (e.g. --view weights): the matrices and the "
                "stages show one head"
            )
        )
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.export.figures import (
        FigureError,
        FigureSpec,
        FigureTooSmallError,
        check_size,
        check_spec,
        draws_head,
        export_all_stages,
        export_figure,
        outlines_query,
    )

    if stage:
        spec = FigureSpec("stage", stage, head or 0, query)
    elif view in (None, "matrices"):
        chosen = dict(scores=shown.scores_array, weights=shown.weights_array)
        spec = FigureSpec("matrices", "", head or 0, query, **chosen)
    else:
        spec = FigureSpec("array", view, head, query)
    try:  # refused as the arguments they are, before anything is drawn or written
        if not args.all_steps:
            check_spec(trace, spec)
        if size is not None:
            check_size(size, args.scale)
    except FigureError as error:
        raise UsageError(str(error)) from None
    # Ignored, they would seem to have been obeyed: the output is one array for all heads,
    # the keys have no query row to outline.
    if not args.all_steps and args.head is not None and not draws_head(spec):
        raise UsageError(
            _("--view {view} is the same for every head: --head would change nothing").format(
                view=view
            )
        )
    if not args.all_steps and args.query is not None and not outlines_query(spec):
        raise UsageError(
            _("--view {view} has no row per query to outline: --query would change nothing").format(
                view=view
            )
        )
    _check_folder(out)
    try:  # Qt names the files: a name with bytes not in UTF-8 would become another's name
        str(out).encode("utf-8")
    except UnicodeEncodeError:
        raise ExportError(
            _(
                "Cannot write {path}: the figure writer needs a name in UTF-8; choose another name."
            ).format(path=shown_path(out))
        ) from None
    # In the language of the command, not the one the window last spoke.
    create_app(["attn-explorer-export"], language=i18n.language())
    try:
        if args.all_steps:
            written = export_all_stages(trace, out, fmt, head or 0, query, args.scale, size)
        else:
            written = [export_figure(trace, spec, out, fmt, args.scale, size)]
    except FigureTooSmallError as error:  # a size refused, as --size 100x100 is
        raise UsageError(str(error)) from None
    except FigureError as error:
        raise ExportError(str(error)) from None
    except OSError as error:  # a folder of PNG or SVG stages where a file is
        raise ExportError(cannot_write(error, out)) from None
    for path in written:
        print(path)
    return 0


def _stream_data(trace: object, fmt: str) -> int:
    """Write a json, npz or py export to standard output, and nothing else there."""
    from attn_explorer.io import code_export, data_export

    sys.stdout.flush()
    raw = sys.stdout.buffer
    try:
        if fmt == "json":
            data_export.stream_json(trace, raw)
        elif fmt == "npz":
            data_export.stream_npz(trace, raw)
        else:
            raw.write(code_export.pytorch_script(trace.config).encode("utf-8"))
        raw.flush()
    except OSError as error:  # a closed pipe ("| head"), a full disk behind "> file"
        # Python's own flush at exit would fail again, with a traceback-like warning.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sentence = _("Cannot write to standard output: {1}.")
        raise ExportError(cannot_write(error, "-", sentence)) from None
    return 0


def main(argv: list[str]) -> int:
    """`attn-explorer export ARGV`, in the language of --lang, else the system's."""
    return run_command(PROG, argv, _run_any, (ExportError,))


def _run_any(argv: list[str]) -> int:
    """A real model's export where `argv` names one, else the toy's."""
    from attn_explorer.cli.model_export import run as run_model
    from attn_explorer.cli.model_export import wants_model

    return run_model(argv) if wants_model(argv) else run(argv)
