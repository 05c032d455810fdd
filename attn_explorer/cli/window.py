"""Command line: `attn-explorer [SESSION]` opens the window; `--screenshot` saves it and exits;
`attn-explorer export ...` writes figures, data or code without a window (see cli/export.py).

attn-explorer [SESSION.json] [--preset NAME] [--tokens N] [--d-in D]
              [--set FIELD=VALUE ...] [--stage STAGE] [--screenshot OUT.png] [--lang en|vi]

The window, its help and its refusals speak --lang, else the language chosen in the window last
time, else the system's.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from attn_explorer.cli import blas_threads
from attn_explorer.cli.parser import OneLineParser
from attn_explorer.cli.values import UsageError, brief, whole
from attn_explorer.text import i18n
from attn_explorer.text.i18n import _

PROG = "attn-explorer"

DEFAULT_SIZE = (1500, 940)  # the window's first size, where the screen has room for it

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from attn_explorer.model.state import ExplorerState


# Importing this module imports neither numpy nor Qt (cli/arguments.py and the engine, which
# need numpy, are imported where used): `main` limits numpy's threads before it is imported.


def parser() -> argparse.ArgumentParser:
    """The window's command line, its help in the current language."""
    from attn_explorer.cli.arguments import add_state_arguments, language_metavar
    from attn_explorer.engine import STEP_KEYS

    parser = OneLineParser(
        prog=PROG,
        description=_(
            "A desktop lab for attention. `attn-explorer export --help` for batch export."
        ),
    )
    parser.add_argument(
        "session", nargs="?", metavar=_("session"), help=_("a saved session (.json) to open")
    )
    add_state_arguments(parser)
    parser.add_argument(
        "--screenshot",
        metavar=_("OUT.png"),
        help=_("save the window once drawn, then exit"),
    )
    parser.add_argument(
        "--size",
        metavar="WxH",
        help=_(
            "window size (default: as last time; the first time 1500x940, or the whole "
            "screen if that does not fit)"
        ),
    )
    parser.add_argument(
        "--all-heads", action="store_true", help=_("start with all heads side by side")
    )
    parser.add_argument("--report-startup", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--model", metavar=_("MODEL"), help=_("open a GPT-2 or BERT model: a folder or a hub name")
    )
    parser.add_argument("--text", metavar=_("TEXT"), help=_("the sentence the model reads"))
    parser.add_argument(
        "--open-head",
        metavar=_("LAYER:HEAD"),
        help=_("open this head of the --model in the lab (counted from 1), e.g. 1:3"),
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda", "mps"),
        help=_("where the model runs (default: a GPU torch sees, else the CPU)"),
    )
    parser.add_argument(
        "--stage",
        choices=STEP_KEYS,
        metavar=_("STAGE"),
        help=_("open the step-through at a stage: {stages}").format(stages=", ".join(STEP_KEYS)),
    )
    parser.add_argument(
        "--lang",
        metavar=language_metavar(),
        help=_(
            "the language of the window and of these messages (default: the one chosen in "
            "the window last time, else the system's)"
        ),
    )
    return parser


def window_language() -> str:
    """The language the window would speak without --lang: the one chosen in it last time,
    else the system's. Read before the window exists, so that `attn-explorer --help` and a
    refused argument speak it too."""
    from PySide6.QtCore import QCoreApplication

    from attn_explorer.ui.i18n import chosen_language

    # Where create_app's QSettings are, before there is an application to name them.
    QCoreApplication.setOrganizationName("attn_explorer")
    QCoreApplication.setApplicationName("attn_explorer")
    return chosen_language()


class _Read(NamedTuple):
    """The command line read: the parser, its values, the state and size they ask for."""

    command: argparse.ArgumentParser
    args: argparse.Namespace
    language: str | None
    state: ExplorerState
    size: tuple[int, int] | None


def _read(argv: list[str]) -> _Read:
    """Read the window's command line, or exit saying what is wrong with it."""
    from attn_explorer.cli.arguments import (
        glue_values,
        language_from,
        refuse_blank,
        state_from_args,
    )

    try:
        language = language_from(argv, PROG)
    except UsageError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    i18n.set_language(language or i18n.language())
    command = parser()
    args = command.parse_args(glue_values(argv))
    from attn_explorer.io.session import SessionError

    try:
        refuse_blank({"--screenshot": (args.screenshot, _("name a .png file"))})
        state = state_from_args(args)
        if args.stage:
            state = replace(state, view=replace(state.view, tab="steps", stage=args.stage))
        size = None
        if args.size is not None:
            size = _window_size(args.size)
        elif args.screenshot or args.report_startup:
            size = DEFAULT_SIZE  # figures and timings of a known size, whatever the last one
        if args.screenshot:
            _check_screenshot(args.screenshot)
    except UsageError as error:
        command.exit(2, f"{PROG}: {error}\n")
    except (SessionError, _CannotWriteError) as error:  # as `export` says them: status 1
        command.exit(1, f"{PROG}: {error}\n")
    return _Read(command, args, language, state, size)


def gui_main(argv: list[str]) -> int:
    i18n.set_language(window_language())  # what a refused --lang is said in
    from attn_explorer.ui import start_frame
    from attn_explorer.ui.app import create_app, quiet_offscreen_notices

    # A plain start shows the window with the picture of its last start before anything
    # else is imported (ui/start_frame.py); with no picture kept, or any other command line,
    # the command line is read and the window built before it is shown.
    frame_key = frame = None
    if start_frame.plain(argv):
        app = create_app(language=start_frame.language(argv), plots=False)
        quiet_offscreen_notices(app)
        frame_key = start_frame.key(argv, app)
        frame = start_frame.load(frame_key)
    from attn_explorer.ui.main_window import MainWindow

    if frame is None:
        read = _read(argv)
        args = read.args
        # A plain start shows the window before its matrices are built (pyqtgraph takes
        # 0.3-0.5 s to import): see ui/start_picture.py. A session, a model, a screenshot or
        # all heads act on the views at once, so those build them first.
        later = not (args.session or args.model or args.screenshot or args.all_heads)
        app = create_app(language=read.language, plots=not later)
        quiet_offscreen_notices(app)
        window = MainWindow(read.state, views_later=later)
    else:
        reads: list[_Read] = []

        def first(window: QWidget) -> ExplorerState:
            start_frame.show(window, frame)
            reads.append(_read(argv))
            return reads[0].state

        window = MainWindow(views_later=True, first=first)
        read = reads[0]
    args, size, command = read.args, read.size, read.command
    if frame is not None and frame.maximized:
        # Placed and maximized before it was shown (start_frame.show): a shown maximized
        # window resized to its normal size would not be the picture. Its place is kept.
        window.window_layout.remember_place_on_close()
    elif size is None:
        window.place_on_screen(DEFAULT_SIZE)
    else:
        window.resize(*size)
    if args.session:
        from pathlib import Path

        once = bool(args.screenshot or args.report_startup)  # closes itself: must not ask
        window.files.adopt(
            Path(args.session),
            changed=not once and (args.tokens is not None or bool(args.set)),
            remember=not once,
        )
    if args.all_heads:
        window.board.show_all_heads(True)
    window.show()
    if frame is not None:
        start_frame.uncover(window)
    elif frame_key is not None:
        start_frame.keep_when_painted(window, frame_key)
    _collect_after_first_paint(window)
    # numpy's threads, one while the window started (see `main`), all again once it has
    # computed its first picture (or cannot), or before a model's matrix products.
    for done in (window.firstPicture, window.problemsShown, window.bridge.failed):
        done.connect(lambda *_: blas_threads.restore())
    if args.model:
        blas_threads.restore()
        from attn_explorer.lens.errors import LensError
        from attn_explorer.ui.lens.open_model import open_model

        try:
            model_view = open_model(window, args.model, args.text, args.device, wait=True)
            if args.open_head:
                from attn_explorer.ui.lens.open_model import open_head

                open_head(window, model_view, args.open_head, args.stage)
        except LensError as error:
            _dispose(window)
            command.exit(error.status, f"{PROG}: {error}\n")
        if args.screenshot and not args.open_head:  # the model view is the picture
            from attn_explorer.ui.lens.open_model import save_model_view

            try:
                return save_model_view(app, model_view, args.screenshot)
            finally:
                _dispose(window)
    try:
        if args.screenshot:
            from attn_explorer.ui.screenshot import save_when_drawn

            return save_when_drawn(app, window, args.screenshot)
        if args.report_startup:
            from attn_explorer.ui.startup_report import report_startup

            return report_startup(app, window)
        return app.exec()
    finally:
        _dispose(window)


def _collect_after_first_paint(window: QWidget) -> None:
    """Python's cyclic garbage collector back on in the event loop's turn after the window's
    first paint (see `main`), or after a second if it is never painted."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    class AfterPaint(QObject):
        def eventFilter(self, watched: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint:
                watched.removeEventFilter(self)
                QTimer.singleShot(0, window, gc.enable)
            return False

    window.installEventFilter(AfterPaint(window))
    QTimer.singleShot(1000, window, gc.enable)


def _window_size(text: str) -> tuple[int, int]:
    """`--size WxH` as (width, height), or UsageError saying the form or the range."""
    sides = [whole(side) for side in text.lower().split("x")]
    if len(sides) != 2 or None in sides:
        raise UsageError(
            _("--size must look like {example}, not {given}").format(
                example="1500x940", given=brief(text)
            )
        )
    width, height = sides
    if not all(200 <= side <= 8000 for side in (width, height)):
        raise UsageError(
            _("--size must be between {smallest} and {largest}, not {given}").format(
                smallest="200x200", largest="8000x8000", given=brief(text, False)
            )
        )
    return width, height


class _CannotWriteError(Exception):
    """A screenshot that could not be saved where asked: exit status 1, as for export."""


def _check_screenshot(path: str) -> None:
    """Refuse, before the window is built, a screenshot that could not be saved.

    Qt's image writer fails without a reason, and only once the whole window has been
    built: an image type it cannot tell ("--screenshot notes.txt") or a missing folder is
    said first, in words.
    """
    from pathlib import Path

    from PySide6.QtGui import QImageWriter

    from attn_explorer.io.errors import missing_folder, shown_path

    suffix = Path(path).suffix.lower().lstrip(".")
    known = sorted(bytes(f.data()).decode() for f in QImageWriter.supportedImageFormats())
    if suffix not in known:
        name = Path(path).name or path
        others = ", ".join("." + k for k in known if k in ("jpg", "bmp", "webp", "tiff"))
        raise UsageError(
            _(
                "--screenshot: cannot tell the image type from '{name}': name a .png file "
                "(or {others})"
            ).format(name=shown_path(name), others=others)
        )
    problem = missing_folder(
        path,
        missing=_("Cannot write {0}: the folder {1} does not exist."),
        not_a_folder=_("Cannot write {0}: {1} is a file, not a folder."),
    )
    if problem is not None:
        raise _CannotWriteError(problem)


def _dispose(window: QWidget) -> None:
    """Destroy the window's widgets now, while Python is whole.

    Left to the interpreter's exit, PySide tears the widget tree down after Python has begun
    finalizing; a graphics item's Python override then runs in a half-dead interpreter and the
    process dies with a segmentation fault.
    """
    import shiboken6

    window.close()
    if shiboken6.isValid(window):
        shiboken6.delete(window)


# The commands besides the window, each a module with its own `main(argv)`: imported only
# when named, so that starting the window imports none of them.
COMMANDS = {
    "export": "attn_explorer.cli.export",
    "worksheet": "attn_explorer.cli.worksheet",
    "check": "attn_explorer.cli.check",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # `attn-explorer --lang vi export ...` is `attn-explorer export --lang vi ...`.
    first = 2 if argv[:1] == ["--lang"] else 1 if argv[:1] and argv[0].startswith("--lang=") else 0
    command = argv[first] if len(argv) > first else None
    if command in COMMANDS:
        run = importlib.import_module(COMMANDS[command]).main
        return run(argv[:first] + argv[first + 1 :])
    blas_threads.limit()  # the window's start: numpy on one thread until its first picture
    # Until the window's first paint, nothing the start makes is garbage worth a collection:
    # the collector's passes over the start's modules, classes and widgets cost 42 M
    # instructions of the 1,515 M to the first paint (callgrind). It is on again in the turn
    # after that paint (`_collect_after_first_paint`).
    gc.disable()
    try:
        return gui_main(argv)
    finally:
        gc.enable()
        blas_threads.restore()


if __name__ == "__main__":
    sys.exit(main())
