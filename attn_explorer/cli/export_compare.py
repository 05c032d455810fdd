"""`attn-explorer export ... --compare OTHER`: A (OTHER, a session file or an example) beside B
(the session or example the command names, with its --set, --ablate and --tokens), as a
figure of A, B and B − A, or as data holding all three.

B is what the command changes, as in the window B is what the learner goes on changing after
pinning A: `export --preset mha --ablate 2 --compare mha --view context` shows what switching
head 2 off does to the output.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from attn_explorer.cli.export_output import STANDARD_OUTPUT, ExportError, _check_folder
from attn_explorer.cli.values import UsageError, brief
from attn_explorer.engine import ARRAY_INFO, PRESETS, ConfigError, Trace, preset
from attn_explorer.model.state import ExplorerState
from attn_explorer.text import i18n
from attn_explorer.text.i18n import _

COMPARE_FORMATS = ("png", "svg", "pdf", "npz", "json")


def other_state(name: str) -> ExplorerState:
    """A: a session file where one is at `name`, else the example of that name."""
    from attn_explorer.io.session import SessionError, load_session

    if os.path.exists(name):
        try:
            return load_session(name)
        except SessionError as error:
            raise ExportError(str(error)) from None
    if name in PRESETS:
        return ExplorerState.from_preset(preset(name))
    raise UsageError(
        _("--compare: {given} is neither a session file nor an example ({names})").format(
            given=brief(name), names=", ".join(PRESETS)
        )
    )


def export_compare(
    args: argparse.Namespace, trace: Trace, fmt: str, out: Path, size: tuple[int, int] | None
) -> int:
    """Compare the command's trace (B) with --compare's (A) and write what `fmt` asks."""
    from attn_explorer.engine import compute
    from attn_explorer.engine.compare import compare
    from attn_explorer.text.problems import problem_text

    if not args.compare.strip():
        raise UsageError(
            _("{option}: no value given; {wanted}").format(
                option="--compare", wanted=_("name a saved session file (.json) or an example")
            )
        )
    if fmt not in COMPARE_FORMATS:
        raise UsageError(
            _("--compare writes {formats}, not {format}").format(
                formats=", ".join(COMPARE_FORMATS), format=fmt
            )
        )
    if args.stage is not None or args.all_steps:
        raise UsageError(_("--compare shows one array: give --view ARRAY, not a stage"))
    view = args.view
    figure = fmt in ("png", "svg", "pdf")
    if view is not None and view not in ARRAY_INFO:
        raise UsageError(
            _("--view {view} is not an array of the trace; --compare takes e.g. weights").format(
                view=brief(view, quoted=False)
            )
        )
    if figure and view is None:
        raise UsageError(_("a --compare figure shows one array: add --view ARRAY, e.g. weights"))
    state_a = other_state(args.compare.strip())
    try:
        trace_a = compute(state_a.config())
    except ConfigError as error:
        raise ExportError(
            _("the configuration of --compare cannot be computed: {reason}").format(
                reason=problem_text(error)
            )
        ) from None
    comparison = compare(trace_a, trace)
    if view is not None and view not in comparison.arrays:
        raise UsageError(_("--view {view}: neither A nor B computes this array").format(view=view))
    if not figure:
        return _write_data(comparison, fmt, out, args.output, None if view is None else (view,))
    head = 0
    if args.head is not None:
        from attn_explorer.cli.values import whole

        number = whole(args.head)
        heads = max(trace.heads, trace_a.heads)
        if number is None or not 1 <= number <= heads:
            raise UsageError(
                _("--head with --compare must be a head's number from 1 to {heads}").format(
                    heads=heads
                )
            )
        head = number - 1
    return _write_figure(comparison, view, head, fmt, out, args.scale, size)


def cannot_write(error: OSError, path: object) -> str:
    """As `export.cannot_write` says it (that module calls this one)."""
    from attn_explorer.io import errors

    return errors.cannot_write(
        error,
        path,
        sentence=_("Cannot write {0}: {1}."),
        in_the_way=_("a file of that name is in the way"),
    )


def _write_data(comparison, fmt: str, out: Path, output: str, names) -> int:
    import sys

    from attn_explorer.io import compare_export

    if output in STANDARD_OUTPUT:
        sys.stdout.flush()
        stream = compare_export.stream_json if fmt == "json" else compare_export.stream_npz
        stream(comparison, sys.stdout.buffer, names)
        sys.stdout.buffer.flush()
        return 0
    _check_folder(out)
    writer = compare_export.write_json if fmt == "json" else compare_export.write_npz
    try:
        print(writer(comparison, out, names))
    except OSError as error:
        raise ExportError(cannot_write(error, out)) from None
    return 0


def _write_figure(comparison, view: str, head: int, fmt: str, out: Path, scale, size) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.compare.figure import export_compare_figure
    from attn_explorer.ui.export.figures import FigureError, check_size

    try:
        if size is not None:
            check_size(size, scale)
    except FigureError as error:
        raise UsageError(str(error)) from None
    _check_folder(out)
    create_app(["attn-explorer-export"], language=i18n.language())
    try:
        print(export_compare_figure(comparison, view, head, out, fmt, scale, size))
    except FigureError as error:
        raise ExportError(str(error)) from None
    except OSError as error:
        raise ExportError(cannot_write(error, out)) from None
    return 0
