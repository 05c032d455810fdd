"""`attn-explorer export --model FOLDER_OR_NAME --text "…"`: a real model's attention, without
a window.

    attn-explorer export --model ./gpt2 --text "Your journey starts" --view model -o grid.png
    attn-explorer export --model ./gpt2 --text "Your journey starts" --layer 5 --head 1 \
        --view weights --format npz -o head.npz
    attn-explorer export --model ./gpt2 --text "Your journey starts" --view importance -o i.csv

`--view importance` is each head switched off alone (cli/model_importance.py).

`--view model` is every layer × head (png, svg, pdf). Any other view is one head, --layer and
--head counted from 1 as the window counts them, taken into the lab (`attn_explorer.lens.lab`):
its arrays as data (npz, json, csv, npy), its PyTorch script (py), or one array as a figure.
One line on bad input, status 2 for arguments that cannot fit the model (a layer or head out of
range, text too long, a family the lens does not take apart), 1 for what cannot be read or
written (a folder with no model, no transformers).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from attn_explorer.cli.arguments import UsageError
from attn_explorer.cli.export_output import (
    DATA_FORMATS,
    ExportError,
    _check_folder,
    _choose_format,
    _output_path,
    write_data,
)
from attn_explorer.cli.parser import OneLineParser
from attn_explorer.text.i18n import _

PROG = "attn-explorer export"


def wants_model(argv: list[str]) -> bool:
    return any(a == "--model" or a.startswith("--model=") for a in argv)


def parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG, description=_("Export a real model's attention without opening a window.")
    )
    parser.add_argument(
        "--model", required=True, metavar=_("MODEL"), help=_("a model folder or a hub name")
    )
    parser.add_argument("--text", required=True, metavar=_("TEXT"), help=_("what the model reads"))
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda", "mps"),
        help=_("where the model runs (default: a GPU torch sees, else the CPU)"),
    )
    parser.add_argument("--layer", type=int, default=1, help=_("the layer, from 1 (default 1)"))
    parser.add_argument("--head", type=int, default=1, help=_("the head, from 1 (default 1)"))
    parser.add_argument(
        "--view",
        default="model",
        metavar=_("NAME"),
        help=_(
            "'model' (every layer × head), 'importance' (each head switched off alone) or an "
            "array of the head: weights, scores, queries…"
        ),
    )
    parser.add_argument("--format", choices=("png", "svg", "pdf", *DATA_FORMATS, "py"))
    parser.add_argument("-o", "--output", required=True, metavar=_("OUT"))
    parser.add_argument("--lang", help=argparse.SUPPRESS)  # read before parsing, by export.main
    return parser


def run(argv: list[str]) -> int:
    from attn_explorer.lens.errors import LensError

    args = parser().parse_args(argv)
    if args.view == "importance":  # every head switched off in turn: a measurement, not a view
        from attn_explorer.cli.model_importance import export_importance

        return export_importance(args)
    args.all_steps = False
    out = Path(args.output)
    fmt = _choose_format(args, out)
    if args.view == "model" and fmt not in ("png", "svg", "pdf"):
        raise UsageError(
            _("--view model is a figure: choose png, svg or pdf, not {format}").format(format=fmt)
        )
    out = _output_path(args, fmt)
    try:
        from attn_explorer.lens.capture import run as run_model
        from attn_explorer.lens.loading import load

        loaded = load(args.model, args.device)
        model_run = run_model(loaded, args.text)
        trace = None
        if args.view != "model":
            from attn_explorer.engine import compute
            from attn_explorer.lens.heads import check_head
            from attn_explorer.lens.lab import head_config

            check_head(model_run, args.layer, args.head)
            trace = compute(head_config(model_run, args.layer - 1, args.head - 1))
    except LensError as error:
        if error.status == 2:
            raise UsageError(str(error)) from None
        raise ExportError(str(error)) from None
    _check_folder(out)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if trace is None:
        from attn_explorer.text import i18n
        from attn_explorer.ui.app import create_app
        from attn_explorer.ui.lens.figure import export_model_figure

        create_app(["attn-explorer-export"], language=i18n.language())
        print(export_model_figure(model_run, out, fmt))
        return 0
    if fmt == "py":  # the model itself, from the same folder or name
        return _write_model_script(model_run, args, out)
    if fmt in DATA_FORMATS:
        return write_data(trace, fmt, out)
    if args.view not in trace.arrays:
        raise UsageError(
            _("--view {view} is not an array of the head: choose one of {names}").format(
                view=args.view, names=", ".join(trace.names)
            )
        )
    from attn_explorer.text import i18n
    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.export.figures import FigureSpec, export_figure

    create_app(["attn-explorer-export"], language=i18n.language())
    print(export_figure(trace, FigureSpec("array", args.view, 0, None), out, fmt, 1, None))
    return 0


def _write_model_script(model_run: object, args: argparse.Namespace, out: Path) -> int:
    import math

    from attn_explorer.io import atomic
    from attn_explorer.io.model_script import model_script

    loaded = model_run.loaded
    scale, temperature = loaded.scale_temperature(args.layer - 1)
    divisor = (math.sqrt(loaded.d_head) if scale else 1.0) * temperature
    script = model_script(
        loaded.source, loaded.family, args.text, args.layer, args.head, loaded.causal, divisor
    )
    print(atomic.write_text(out, script))
    return 0
