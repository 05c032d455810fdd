"""`attn-explorer export --model FOLDER --text "…" --view importance`: every head of a real
model switched off alone, and how much its prediction changes (`attn_explorer.lens.importance`),
as data or as the model view's importance figure.

    attn-explorer export --model ./gpt2 --text "Your journey starts" --view importance -o i.csv

JSON and CSV are one file each (`-o -` writes them to standard output); PNG, SVG and PDF are
the figure the window saves. A refusal is one line, with the statuses of `model_export`.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from attn_explorer.cli.arguments import UsageError
from attn_explorer.cli.export_output import STANDARD_OUTPUT, ExportError, _check_folder
from attn_explorer.text.i18n import _
from attn_explorer.text.problems import or_list

DATA = ("json", "csv")
FIGURES = ("png", "svg", "pdf")


def _format(args: argparse.Namespace) -> str:
    chosen = args.format or Path(args.output).suffix.lower().lstrip(".")
    if chosen not in (*DATA, *FIGURES):
        raise UsageError(
            _("--view importance writes {formats}: add --format or name -o with one").format(
                formats=or_list((*DATA, *FIGURES))
            )
        )
    if args.output in STANDARD_OUTPUT and chosen not in DATA:
        raise UsageError(
            _("--format {format} cannot go to standard output: only {formats} can").format(
                format=chosen, formats=or_list(DATA)
            )
        )
    return chosen


def export_importance(args: argparse.Namespace) -> int:
    """Measure every head of `args.model` on `args.text` and write it as `--format`."""
    from attn_explorer.lens.errors import LensError

    fmt = _format(args)
    out = Path(args.output)
    if args.output not in STANDARD_OUTPUT:
        from attn_explorer.io.data_export import file_for

        out = out if args.output.endswith(("/", os.sep)) else file_for(out, fmt)
        _check_folder(out)
    try:
        from attn_explorer.lens.importance import importance
        from attn_explorer.lens.loading import load

        result = importance(load(args.model, args.device), args.text)
    except LensError as error:
        if error.status == 2:
            raise UsageError(str(error)) from None
        raise ExportError(str(error)) from None
    if fmt in DATA:
        from attn_explorer.io import atomic
        from attn_explorer.lens.importance import to_csv, to_json

        text = to_csv(result) if fmt == "csv" else to_json(result)
        if args.output in STANDARD_OUTPUT:
            sys.stdout.write(text)
            return 0
        print(atomic.write_text(out, text))
        return 0
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from attn_explorer.text import i18n
    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.export.spec import FigureError
    from attn_explorer.ui.lens.importance_figure import export_importance_figure

    create_app(["attn-explorer-export"], language=i18n.language())
    try:
        print(export_importance_figure(result, out, fmt))
    except FigureError as error:
        raise ExportError(str(error)) from None
    return 0
