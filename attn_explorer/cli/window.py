"""Command line: `attn-explorer [SESSION]` opens the window; `--screenshot` saves it and exits;
`attn-explorer export ...` writes figures, data or code without a window (see export_cli.py).

attn-explorer [SESSION.json] [--preset NAME] [--tokens N] [--d-in D]
              [--set FIELD=VALUE ...] [--stage STAGE] [--screenshot OUT.png]
"""

from __future__ import annotations

import argparse
import contextlib
import math
import re
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from attn_explorer.engine import PRESETS, STEP_KEYS, preset
from attn_explorer.engine.config import HEAD_LAYOUTS, MASK_METHODS, MAX_ATTENTION_CELLS, PROJECTIONS
from attn_explorer.model.state import (
    CONTROL_DECIMALS,
    CONTROL_RANGES,
    Controls,
    ExplorerState,
    default_state,
    random_sequence,
)

DEFAULT_SIZE = (1500, 940)  # the window's first size, where the screen has room for it

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from attn_explorer.engine import AttentionConfig


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


# A value kept while its switch is off (as the window keeps it): set through --set, it would
# change nothing unless the switch is on, so setting it turns the switch on, unless the same
# command sets the switch itself.
SWITCHED_BY = {"valid_len": "padding", "dropout_seed": "reseed_dropout"}


TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")
# A number as the controls take it: digits, a decimal point, an exponent. Python's float()
# also reads "1_0", "infinity" and other scripts' digits, which no box takes.
_WHOLE = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
CHOICES = {"projection": PROJECTIONS, "head_layout": HEAD_LAYOUTS, "mask_method": MASK_METHODS}


def _allowed(field: str) -> str:
    """What `--set FIELD=` takes, in words, for the message that refuses a value."""
    choices = CHOICES.get(field)
    if choices is not None:
        return f"{', '.join(choices[:-1])} or {choices[-1]}"
    kind = type(getattr(Controls(), field))
    if kind is bool:
        return "true or false (or yes/no, on/off, 1/0)"
    low, high = CONTROL_RANGES[field]
    if kind is int:
        return f"a whole number from {low:g} to {high:g}"
    return f"a number from {low:g} to {high:g}, with at most {CONTROL_DECIMALS[field]} decimals"


def _parse_value(field: str, text: str) -> object:
    """The value `--set FIELD=TEXT` gives the control, exactly as typed, or UsageError.

    `--set dropout=0.123` was rounded to 0.12, the two decimals its box holds, without a
    word (the box itself refuses 0.123 typed into it), and `temperature=1,5` or an empty
    value were refused without saying what the field takes. A value is now kept as given,
    or refused in one line naming the field, the value and what is allowed.
    """
    if field not in Controls.names():
        raise UsageError(f"--set: unknown field {field!r}; known: {', '.join(Controls.names())}")
    value, problem = _read(field, text)
    if problem is not None:
        raise UsageError(f"--set {field}: {problem}; allowed: {_allowed(field)}")
    return value


def _read(field: str, text: str) -> tuple[object, str | None]:
    """`text` read as the value of `field`, or what is wrong with it (a phrase)."""
    if not text:
        return None, "no value given"
    shown = repr(text)
    kind = type(getattr(Controls(), field))
    choices = CHOICES.get(field)
    if choices is not None:
        return (text, None) if text in choices else (None, f"{shown} is not among the choices")
    if kind is bool:
        word = text.lower()
        if word not in TRUE_WORDS + FALSE_WORDS:
            return None, f"{shown} is not true or false"
        return word in TRUE_WORDS, None
    if kind is int:
        if not _WHOLE.fullmatch(text):
            return None, f"{shown} is not a whole number"
        value: float = int(text)
    elif _DECIMAL.fullmatch(text):
        value = float(text) + 0.0  # "-0" is 0: no box shows a negative zero
    else:
        return None, f"{shown} {_not_a_number(text)}"
    low, high = CONTROL_RANGES[field]
    if value < low:
        return None, f"{shown} is below {low:g}"
    if value > high:  # 1e999 too, which float() reads as infinity
        return None, f"{shown} is above {high:g}"
    if kind is float and round(value, CONTROL_DECIMALS[field]) != value:
        return None, f"{shown} has more than {CONTROL_DECIMALS[field]} decimals"
    return value, None


def _not_a_number(text: str) -> str:
    """Why `text` is no number the controls take: "inf" and "nan" are read by Python."""
    with contextlib.suppress(ValueError):
        if math.isinf(float(text)):
            return "is infinite"
    comma = text.replace(",", ".", 1)
    if _DECIMAL.fullmatch(comma):  # 1,5 in a language that writes decimal commas
        return f"is not a number (a decimal takes a point: {comma})"
    return "is not a number"


def refuse_blank(values: dict[str, tuple[str | None, str]]) -> None:
    """Refuse an option given an empty (or blank) value: {flag: (value, what it takes)}.

    `export --view ''` drew the matrices and `--preset ''` opened the default example, as if
    the option had not been given; `--screenshot ''` opened the window and never saved or
    closed it. An empty value is a mistake (an unset shell variable), not a choice."""
    for flag, (value, wanted) in values.items():
        if value is not None and not value.strip():
            raise UsageError(f"{flag}: no value given; {wanted}")


def glue_values(argv: list[str], options: tuple[str, ...] = ("--size",)) -> list[str]:
    """`--size -5x-5` as `--size=-5x-5`: argparse takes a value that starts with "-" for an
    option and said only "expected one argument"; glued, the value is read and refused
    saying what sizes are allowed."""
    glued: list[str] = []
    index = 0
    while index < len(argv):
        item = argv[index]
        following = argv[index + 1] if index + 1 < len(argv) else None
        if (
            item in options
            and following is not None
            and following.startswith("-")
            and not following.startswith("--")  # another option: the value is missing
            and following != "-"
        ):
            glued.append(f"{item}={following}")
            index += 2
            continue
        if item == "--":  # what follows is positional
            glued += argv[index:]
            break
        glued.append(item)
        index += 1
    return glued


def add_state_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--preset", metavar="NAME", help=f"start from an example: {', '.join(PRESETS)}"
    )
    parser.add_argument("--tokens", type=int, metavar="N", help="use N random tokens instead")
    parser.add_argument(
        "--d-in",
        type=int,
        default=None,
        metavar="D",
        help="embedding width for --tokens (default 3)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="set a control, e.g. --set num_heads=4 --set causal=true; valid_len turns "
        "padding on and dropout_seed turns reseed_dropout on, unless also set",
    )


def state_from_args(args: argparse.Namespace, prog: str = "attn-explorer") -> ExplorerState:
    """The state the arguments describe: a session file, a preset or the default example,
    then --tokens and --set. A bad session raises SessionError, bad arguments UsageError.
    What the arguments change besides what they name is said on stderr, after `prog`.

    `--set valid_len=3` alone used to change nothing (the state keeps a valid length while
    padding is off): whoever sets it means padding, so it turns padding on, as dropout_seed
    turns reseed_dropout on, unless the same command sets the switch."""
    refuse_blank(
        {
            "--preset": (args.preset, f"known presets: {', '.join(PRESETS)}"),
            "session": (getattr(args, "session", None), "name a saved session file (.json)"),
        }
    )
    if getattr(args, "session", None) and args.preset:
        raise UsageError("give a session file or --preset, not both")
    if args.preset:
        try:
            state = ExplorerState.from_preset(preset(args.preset))
        except KeyError as error:
            raise UsageError(str(error.args[0])) from None
    elif getattr(args, "session", None):
        from attn_explorer.io.session import load_session

        state = load_session(args.session)
    else:
        state = default_state()
    changes: dict[str, object] = {}
    typed: dict[str, str] = {}  # each field's value as the command gave it, for messages
    for item in args.set:
        field, sep, text = item.partition("=")
        if not sep:
            raise UsageError(f"--set needs FIELD=VALUE, got {item!r}")
        changes[field.strip()] = _parse_value(field.strip(), text.strip())
        typed[field.strip()] = text.strip()
    for field, switch in SWITCHED_BY.items():
        if field in changes and switch not in changes:
            changes[switch] = True
    if args.tokens is not None:
        if not 1 <= args.tokens <= 4096:
            raise UsageError("--tokens must be between 1 and 4096")
        d_in = args.d_in if args.d_in is not None else (state.queries.d_in or 3)
        if not 1 <= d_in <= 1024:
            raise UsageError("--d-in must be between 1 and 1024")
        sequence = random_sequence(args.tokens, d_in)
        if state.controls.cross and "cross" not in changes:
            _note_cross_off(prog, args.tokens)
        state = _with_tokens(replace(state, queries=sequence, kv=sequence), args.tokens, changes)
    elif args.d_in is not None:
        raise UsageError("--d-in goes with --tokens N (the width of N random embeddings)")
    if changes:
        state = state.with_controls(**changes)
    _check_fits(state, args.tokens, typed, changes)
    return state


def _note_cross_off(prog: str, n: int) -> None:
    """`--preset cross --tokens 8` turned cross-attention off without a word: the figure
    showed self-attention under the cross example's name. Said in one line, and the command
    goes on; with `--set cross=...` the command decides it itself, and nothing is said."""
    print(
        f"{prog}: --tokens {n} replaces the key/value sequence too: cross-attention is off "
        "(--set cross=true keeps it on, keys and values the same random tokens)",
        file=sys.stderr,
    )


def _with_tokens(state: ExplorerState, n: int, changes: dict[str, object]) -> ExplorerState:
    """`state` on `n` random tokens: cross-attention off (both tables are the new tokens),
    and a valid length kept while padding is off lowered to `n` (nothing reads it).

    `--preset padding --tokens 3` lowered the example's valid length 4 to 3 without a word:
    every key visible, the padding the example is about gone. A valid length the tokens
    cannot hold while padding masks keys is refused, saying what to add, as a --set value
    is: the command's own `--set valid_len` or `padding=false` decides it instead.
    """
    c = state.controls
    padded = changes.get("padding", c.padding)
    if c.valid_len > n and padded and "valid_len" not in changes:
        tokens = "1 token" if n == 1 else f"{n} tokens"
        lengths = "valid_len=1" if n == 1 else f"valid_len=N (from 1 to {n})"
        raise UsageError(
            f"--tokens {n}: the session masks the keys after the valid length {c.valid_len}, "
            f"more than {tokens}; add --set {lengths} or --set padding=false"
        )
    return state.with_controls(cross=False, valid_len=min(c.valid_len, n))


# What a problem of the engine (named by its field) can be caused by on the command line:
# the field itself, a switch that brings it into effect, the settings it must agree with.
_CAUSES: dict[str, tuple[str, ...]] = {
    "valid_len": ("valid_len", "padding", "cross", "--tokens"),
    "num_heads": ("num_heads", "d_out", "head_layout", "projection", "--tokens"),
    "causal": ("causal", "cross"),
    "kv_embeddings": ("cross",),
    "tokens": ("--tokens",),
}


def _check_fits(
    state: ExplorerState, tokens: int | None, typed: dict[str, str], changes: dict[str, object]
) -> None:
    """Refuse, as a usage error, a value the command gave that the session cannot compute.

    `--set valid_len=10` on six tokens passed the control's range (1 to 4096) and failed
    later as "this configuration cannot be computed" with status 1, the status of a bad
    session, naming no argument; the window opened on the error instead. A problem the
    session had before the command changed anything is still the session's (status 1).
    """
    given = [*changes, *(["--tokens"] if tokens is not None else [])]
    if not given:
        return
    config = state.config()
    for problem in config.problems():
        causes = [f for f in given if f in _CAUSES.get(problem.field, (problem.field,))]
        if not causes:
            continue
        blamed = problem.field if problem.field in causes else causes[0]
        if blamed == "--tokens":
            said = f"--tokens {tokens}"
        else:
            said = f"--set {blamed}: {typed.get(blamed, changes[blamed])!r}"
        reason = problem.message.rstrip(".")
        raise UsageError(
            f"{said} does not fit the other settings: {reason}; allowed here: "
            f"{_allowed_here(blamed, config)}"
        )


def _allowed_here(field: str, config: AttentionConfig) -> str:
    """What `field` may be given the rest of `config`, for the message refusing it."""
    heads = config.heads
    if field == "valid_len":
        return f"a whole number from 1 to {config.n_k}, the number of keys"
    if field == "--tokens":
        most = MAX_ATTENTION_CELLS // heads
        return f"at most {math.isqrt(most)} tokens with {heads} heads"
    if field == "num_heads":
        if config.projection == "none":
            return "1 (without projections every head is Q = K = V = X)"
        most = min(16, MAX_ATTENTION_CELLS // (config.n_q * config.n_k))
        fits = list(range(1, most + 1))
        if config.head_layout == "split":
            fits = [h for h in fits if config.d_out % h == 0]
            return f"{_or(fits)} (the split layout needs d_out {config.d_out} divisible by them)"
        return f"a whole number from 1 to {most}"
    if field == "d_out":
        return f"a multiple of {heads} from {heads} to {64 - 64 % heads}, the number of heads"
    if field == "head_layout":
        return f"stacked (d_out {config.d_out} is not a multiple of {heads} heads)"
    if field == "projection":
        return f"rand or linear with {heads} heads"
    if field == "padding":
        return f"false, or true with --set valid_len=N from 1 to {config.n_k}"
    if field == "causal":
        return f"false while there are {config.n_q} queries and {config.n_k} keys"
    if field == "cross":
        return "false with the session's key/value sequence"
    return _allowed(field)


def _or(values: list[int]) -> str:
    words = [str(v) for v in values]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def gui_main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="attn-explorer",
        description="A desktop lab for attention. `attn-explorer export --help` for batch export.",
    )
    parser.add_argument("session", nargs="?", help="a saved session (.json) to open")
    add_state_arguments(parser)
    parser.add_argument(
        "--screenshot", metavar="OUT.png", help="save the window once drawn, then exit"
    )
    parser.add_argument(
        "--size",
        metavar="WxH",
        help="window size (default: as last time; the first time 1500x940, or the whole "
        "screen if that does not fit)",
    )
    parser.add_argument(
        "--all-heads", action="store_true", help="start with all heads side by side"
    )
    parser.add_argument("--report-startup", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--stage",
        choices=STEP_KEYS,
        metavar="STAGE",
        help=f"open the step-through at a stage: {', '.join(STEP_KEYS)}",
    )
    args = parser.parse_args(glue_values(argv))
    from attn_explorer.io.session import SessionError

    try:
        refuse_blank({"--screenshot": (args.screenshot, "name a .png file")})
        state = state_from_args(args)
        if args.stage:
            state = replace(state, view=replace(state.view, tab="steps", stage=args.stage))
        size = None
        if args.size is not None:
            size = tuple(int(v) for v in args.size.lower().split("x"))
            if len(size) != 2:
                raise ValueError(args.size)
            if not all(200 <= v <= 8000 for v in size):
                raise UsageError(f"--size must be between 200x200 and 8000x8000, not {args.size}")
        elif args.screenshot or args.report_startup:
            size = DEFAULT_SIZE  # figures and timings of a known size, whatever the last one
        if args.screenshot:
            _check_screenshot(args.screenshot)
    except UsageError as error:
        parser.exit(2, f"attn-explorer: {error}\n")
    except ValueError:
        parser.exit(2, f"attn-explorer: --size must look like 1500x940, not {args.size!r}\n")
    except (SessionError, _CannotWriteError) as error:  # as `export` says them: status 1
        parser.exit(1, f"attn-explorer: {error}\n")

    from attn_explorer.ui.app import create_app, quiet_offscreen_notices
    from attn_explorer.ui.main_window import MainWindow

    app = create_app()
    quiet_offscreen_notices(app)
    window = MainWindow(state)
    if size is None:
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
    try:
        if args.screenshot:
            from attn_explorer.ui.screenshot import save_when_drawn

            return save_when_drawn(app, window, args.screenshot)
        if args.report_startup:
            from attn_explorer.ui.screenshot import report_startup

            return report_startup(app, window)
        return app.exec()
    finally:
        _dispose(window)


class _CannotWriteError(Exception):
    """A screenshot that could not be saved where asked: exit status 1, as for export."""


def _check_screenshot(path: str) -> None:
    """Refuse, before the window is built, a screenshot that could not be saved.

    Qt's image writer fails without a reason: "--screenshot notes.txt" or a mistyped folder
    ran the whole window and then said only "could not write".
    """
    from pathlib import Path

    from PySide6.QtGui import QImageWriter

    from attn_explorer.io.errors import missing_folder, shown_path

    suffix = Path(path).suffix.lower().lstrip(".")
    known = sorted(bytes(f.data()).decode() for f in QImageWriter.supportedImageFormats())
    if suffix not in known:
        name = Path(path).name or path
        raise UsageError(
            f"--screenshot: cannot tell the image type from '{shown_path(name)}': name a .png "
            f"file (or {', '.join('.' + k for k in known if k in ('jpg', 'bmp', 'webp', 'tiff'))})"
        )
    problem = missing_folder(path)
    if problem is not None:
        raise _CannotWriteError(problem)


def _dispose(window: QWidget) -> None:
    """Destroy the window's widgets now, while Python is whole.

    Left to the interpreter's exit, PySide tears the widget tree down after Python has begun
    finalizing; a graphics item's Python override then runs in a half-dead interpreter and the
    process dies with a segmentation fault (seen after the step-through was shown).
    """
    import shiboken6

    window.close()
    if shiboken6.isValid(window):
        shiboken6.delete(window)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "export":
        from attn_explorer.cli.export import main as export_main

        return export_main(argv[1:])
    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main())
