"""The arguments the window's command line and `attn-explorer export` share: where the state
comes from (a session, `--preset`, `--tokens`) and `--set FIELD=VALUE`, read as the settings'
declaration says (`attn_explorer.model.settings`), every refusal one line naming the argument;
and `--lang`, read before the rest so that `--help` and every refusal speak the language asked.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import re
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from attn_explorer.cli.head_args import (
    ablate_change,
    add_ablate_argument,
    allowed_heads,
    check_heads,
    read_heads,
)
from attn_explorer.cli.parser import OneLineParser
from attn_explorer.cli.values import BEYOND as BEYOND
from attn_explorer.cli.values import UsageError as UsageError
from attn_explorer.cli.values import brief as brief
from attn_explorer.cli.values import whole as whole
from attn_explorer.engine import PRESETS, preset
from attn_explorer.engine.config import MAX_ATTENTION_CELLS, or_list
from attn_explorer.model.settings import MAX_DIMS, MAX_TOKENS, SETTINGS
from attn_explorer.model.state import Controls, ExplorerState, default_state, random_sequence
from attn_explorer.text.i18n import LANGUAGES, _
from attn_explorer.text.problems import problem_text

if TYPE_CHECKING:
    from attn_explorer.engine import AttentionConfig


def language_metavar() -> str:
    """`--lang`'s value as the help writes it: {en,vi}."""
    return "{" + ",".join(LANGUAGES) + "}"


def language_from(argv: list[str], prog: str) -> str | None:
    """The language `--lang` asks for in `argv`, or None; read before the other arguments,
    so that `--help` and their refusals speak it. Abbreviated as argparse takes it ("--la vi").

    A language we have no words for is a UsageError naming the choices; `--lang` without a
    value is refused as argparse refuses it, in the language already chosen."""
    parser = OneLineParser(prog=prog, add_help=False)
    parser.add_argument("--lang")
    code = parser.parse_known_args(argv)[0].lang
    if code is not None and code not in LANGUAGES:
        choices = ", ".join(f"{key} ({name})" for key, name in LANGUAGES.items())
        raise UsageError(
            _("--lang must be one of {choices}, not {given}").format(
                choices=choices, given=brief(code)
            )
        )
    return code


# A value kept while its switch is off (as the window keeps it): set through --set, it would
# change nothing unless the switch is on, so setting it turns the switch on, unless the same
# command sets the switch itself.
SWITCHED_BY = {name: s.switch for name, s in SETTINGS.items() if s.switch is not None}


TRUE_WORDS = ("true", "1", "yes", "on")
FALSE_WORDS = ("false", "0", "no", "off")
# A number as the controls take it: digits, a decimal point, an exponent. Python's float()
# also reads "1_0", "infinity" and other scripts' digits, which no box takes.
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def whole_in_range(flag: str, text: str, low: int, high: int) -> int:
    """`text`, the value of option `flag`, as a whole number from `low` to `high`, or
    UsageError naming the option, its range and the value."""
    value = whole(text)
    if value is None:
        raise UsageError(
            _("{option} must be a whole number between {low} and {high}, not {given}").format(
                option=flag, low=low, high=high, given=brief(text)
            )
        )
    if not low <= value <= high:
        raise UsageError(
            _("{option} must be between {low} and {high}, not {given}").format(
                option=flag, low=low, high=high, given=brief(text.strip(), quoted=False)
            )
        )
    return value


def _allowed(field: str) -> str:
    """What `--set FIELD=` takes, in words, for the message that refuses a value."""
    setting = SETTINGS[field]
    if setting.choices:
        return or_list(setting.choices)
    if setting.kind is bool:
        return _("true or false (or yes/no, on/off, 1/0)")
    low, high = setting.range
    if setting.kind is tuple:
        return allowed_heads(low, high)
    if setting.kind is int:
        return _("a whole number from {low} to {high}").format(low=f"{low:g}", high=f"{high:g}")
    return _("a number from {low} to {high}, with at most {decimals} decimals").format(
        low=f"{low:g}", high=f"{high:g}", decimals=setting.decimals
    )


def parse_value(field: str, text: str) -> object:
    """The value `--set FIELD=TEXT` gives the control, exactly as typed, or UsageError.

    A value is kept as given or refused in one line naming the field, the value and what is
    allowed: rounded to the decimals its box holds (the box itself refuses 0.123 typed into
    it), it would compute what the learner did not type.
    """
    if field not in Controls.names():
        raise UsageError(
            _("--set: unknown field {field}; known: {fields}").format(
                field=repr(field), fields=", ".join(Controls.names())
            )
        )
    value, problem = _read(field, text)
    if problem is not None:
        raise UsageError(
            _("--set {field}: {problem}; allowed: {allowed}").format(
                field=field, problem=problem, allowed=_allowed(field)
            )
        )
    return value


def _read(field: str, text: str) -> tuple[object, str | None]:
    """`text` read as the value of `field`, or what is wrong with it (a phrase)."""
    if not text:
        return None, _("no value given")
    shown = brief(text)
    setting = SETTINGS[field]
    kind = setting.kind
    if setting.choices:
        if text in setting.choices:
            return text, None
        return None, _("{value} is not among the choices").format(value=shown)
    if kind is tuple:
        return read_heads(text, *setting.range)
    if kind is bool:
        word = text.lower()
        if word not in TRUE_WORDS + FALSE_WORDS:
            return None, _("{value} is not true or false").format(value=shown)
        return word in TRUE_WORDS, None
    if kind is int:
        number = whole(text)
        if number is None:
            return None, _("{value} is not a whole number").format(value=shown)
        value: float = number
    elif _DECIMAL.fullmatch(text):
        value = float(text) + 0.0  # "-0" is 0: no box shows a negative zero
    else:
        return None, _not_a_number(text, shown)
    low, high = setting.range
    if value < low:
        return None, _("{value} is below {low}").format(value=shown, low=f"{low:g}")
    if value > high:  # 1e999 too, which float() reads as infinity
        return None, _("{value} is above {high}").format(value=shown, high=f"{high:g}")
    if kind is float and round(value, setting.decimals) != value:
        return None, _("{value} has more than {decimals} decimals").format(
            value=shown, decimals=setting.decimals
        )
    return value, None


def _not_a_number(text: str, shown: str) -> str:
    """Why `text` (`shown` in the message) is no number the controls take: "inf" and "nan"
    are read by Python."""
    with contextlib.suppress(ValueError):
        if math.isinf(float(text)):
            return _("{value} is infinite").format(value=shown)
    comma = text.replace(",", ".", 1)
    if _DECIMAL.fullmatch(comma):  # 1,5 in a language that writes decimal commas
        return _("{value} is not a number (a decimal takes a point: {number})").format(
            value=shown, number=comma
        )
    return _("{value} is not a number").format(value=shown)


def refuse_blank(values: dict[str, tuple[str | None, str]]) -> None:
    """Refuse an option given an empty (or blank) value: {flag: (value, what it takes)}.

    An empty value is a mistake (an unset shell variable), not a choice: taken as the option
    not given, `export --view ''` would draw the matrices, `--preset ''` open the default
    example, and `--screenshot ''` open a window that never saves or closes."""
    for flag, (value, wanted) in values.items():
        if value is not None and not value.strip():
            raise UsageError(
                _("{option}: no value given; {wanted}").format(option=flag, wanted=wanted)
            )


def glue_values(argv: list[str], options: tuple[str, ...] = ("--size",)) -> list[str]:
    """`--size -5x-5` as `--size=-5x-5`: argparse takes a value that starts with "-" for an
    option and says only "expected one argument"; glued, the value is read and refused
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


def and_list(items: list[str]) -> str:
    """Items in a sentence, "a, b and c", in the current language."""
    if len(items) < 2:
        return "".join(items)
    return _("{items} and {last}").format(items=", ".join(items[:-1]), last=items[-1])


def add_state_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--preset",
        metavar=_("NAME"),
        help=_("start from an example: {names}").format(names=", ".join(PRESETS)),
    )
    # Whole numbers are read by whole_in_range, not argparse's int: it says "invalid int
    # value" without the range, and cannot read a number of thousands of digits.
    parser.add_argument("--tokens", metavar="N", help=_("use N random tokens instead"))
    parser.add_argument(
        "--d-in",
        default=None,
        metavar="D",
        help=_("embedding width for --tokens (default 3)"),
    )
    add_ablate_argument(parser)
    switches = [
        _("{field} turns {switch} on").format(field=field, switch=switch)
        for field, switch in SWITCHED_BY.items()
    ]
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar=_("FIELD=VALUE"),
        help=_(
            "set a control, e.g. --set num_heads=4 --set causal=true; {switches}, unless also set"
        ).format(switches=and_list(switches)),
    )


def named_state(args: argparse.Namespace, prog: str, file_error: type[Exception]) -> ExplorerState:
    """The state of a command that works on one (export, worksheet, check): a session, an
    example or --tokens must be named; a session that cannot be read raises `file_error`
    (status 1), arguments that cannot be followed UsageError (2)."""
    from attn_explorer.io.session import SessionError

    # --tokens alone starts from the default example, as the window's command line does.
    if args.session is None and args.preset is None and args.tokens is None:
        raise UsageError(
            _("give a session file, --preset {name} or --tokens N").format(name=_("NAME"))
        )
    try:
        return state_from_args(args, prog=prog)
    except SessionError as error:
        raise file_error(str(error)) from None


def state_from_args(args: argparse.Namespace, prog: str = "attn-explorer") -> ExplorerState:
    """The state the arguments describe: a session file, a preset or the default example,
    then --tokens and --set. A bad session raises SessionError, bad arguments UsageError.
    What the arguments change besides what they name is said on stderr, after `prog`.

    Whoever sets a value its switch keeps (the valid length while padding is off) means the
    switch: `--set valid_len=3` turns padding on, as dropout_seed turns reseed_dropout on,
    unless the same command sets the switch."""
    refuse_blank(
        {
            "--preset": (
                args.preset,
                _("known presets: {names}").format(names=", ".join(PRESETS)),
            ),
            _("session"): (
                getattr(args, "session", None),
                _("name a saved session file (.json)"),
            ),
        }
    )
    if getattr(args, "session", None) and args.preset:
        raise UsageError(_("give a session file or --preset, not both"))
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
            raise UsageError(
                _("--set needs {form}, got {given}").format(form=_("FIELD=VALUE"), given=repr(item))
            )
        changes[field.strip()] = parse_value(field.strip(), text.strip())
        typed[field.strip()] = text.strip()
    ablate_change(args, changes, typed, _allowed("ablate"))
    for field, switch in SWITCHED_BY.items():
        if field in changes and switch not in changes:
            changes[switch] = True
    tokens = None
    if args.tokens is not None:
        tokens = whole_in_range("--tokens", str(args.tokens), 1, MAX_TOKENS)
        d_in = state.queries.d_in or 3
        if args.d_in is not None:
            d_in = whole_in_range("--d-in", str(args.d_in), 1, MAX_DIMS)
        sequence = random_sequence(tokens, d_in)
        if state.controls.cross and "cross" not in changes:
            _note_cross_off(prog, tokens)
        state = _with_tokens(replace(state, queries=sequence, kv=sequence), tokens, changes)
    elif args.d_in is not None:
        raise UsageError(_("--d-in goes with --tokens N (the width of N random embeddings)"))
    if changes:
        state = state.with_controls(**changes)
    _check_fits(state, tokens, typed, changes)
    return state


def _note_cross_off(prog: str, n: int) -> None:
    """Say in one line that `--tokens` turned cross-attention off, and go on: unsaid, a
    figure of self-attention would carry the cross example's name. With `--set cross=...`
    the command decides it itself, and nothing is said."""
    notice = _(
        "--tokens {n} replaces the key/value sequence too: cross-attention is off "
        "(--set cross=true keeps it on, keys and values the same random tokens)"
    ).format(n=n)
    print(f"{prog}: {notice}", file=sys.stderr)


def _with_tokens(state: ExplorerState, n: int, changes: dict[str, object]) -> ExplorerState:
    """`state` on `n` random tokens: cross-attention off (both tables are the new tokens),
    and a valid length kept while padding is off lowered to `n` (nothing reads it).

    A valid length the tokens cannot hold while padding masks keys is refused, saying what
    to add, as a --set value is: lowered without a word, it would leave every key visible
    and the padding the example is about gone. The command's own `--set valid_len` or
    `padding=false` decides it instead.
    """
    c = state.controls
    padded = changes.get("padding", c.padding)
    if c.valid_len > n and padded and "valid_len" not in changes:
        if n == 1:
            message = _(
                "--tokens {n}: the session masks the keys after the valid length {length}, "
                "more than 1 token; add --set valid_len=1 or --set padding=false"
            )
        else:
            message = _(
                "--tokens {n}: the session masks the keys after the valid length {length}, "
                "more than {n} tokens; add --set valid_len=N (from 1 to {n}) or --set "
                "padding=false"
            )
        raise UsageError(message.format(n=n, length=c.valid_len))
    return state.with_controls(cross=False, valid_len=min(c.valid_len, n))


# What a problem of the engine (named by its field) can be caused by on the command line:
# the field itself, a switch that brings it into effect, the settings it must agree with
# ("tokens", the number of tokens, is --tokens here); the sequences are changed by cross
# (a second sequence or none) and --tokens.
_CAUSES: dict[str, tuple[str, ...]] = {
    **{
        name: (
            name,
            *([s.switch] if s.switch else []),
            *("--tokens" if other == "tokens" else other for other in s.agrees_with),
        )
        for name, s in SETTINGS.items()
        if s.agrees_with
    },
    "kv_embeddings": ("cross",),
    "tokens": ("--tokens",),
}


def _check_fits(
    state: ExplorerState, tokens: int | None, typed: dict[str, str], changes: dict[str, object]
) -> None:
    """Refuse, as a usage error, a value the command gave that the session cannot compute.

    A value within its control's range can still not fit the rest (`--set valid_len=10` on
    six tokens): it is the argument that is wrong, so it is named, with status 2, before a
    window opens or an export computes. A problem the session had before the command
    changed anything is still the session's (status 1).
    """
    given = [*changes, *(["--tokens"] if tokens is not None else [])]
    if not given:
        return
    config = state.config()
    check_heads(config, changes)
    for problem in config.problems():
        causes = [f for f in given if f in _CAUSES.get(problem.field, (problem.field,))]
        if not causes:
            continue
        blamed = problem.field if problem.field in causes else causes[0]
        if blamed == "--tokens":
            said = f"--tokens {tokens}"
        else:
            said = f"--set {blamed}: {typed.get(blamed, changes[blamed])!r}"
        reason = problem_text(problem).rstrip(".")
        raise UsageError(
            _("{given} does not fit the other settings: {reason}; allowed here: {allowed}").format(
                given=said, reason=reason, allowed=_allowed_here(blamed, config)
            )
        )


def _allowed_here(field: str, config: AttentionConfig) -> str:
    """What `field` may be given the rest of `config`, for the message refusing it."""
    heads = config.heads
    if field == "valid_len":
        return _("a whole number from 1 to {n_k}, the number of keys").format(n_k=config.n_k)
    if field == "--tokens":
        most = MAX_ATTENTION_CELLS // heads
        return _("at most {n} tokens with {heads} heads").format(n=math.isqrt(most), heads=heads)
    if field == "num_heads":
        if config.projection == "none":
            return _("1 (without projections every head is Q = K = V = X)")
        most = min(_high("num_heads"), MAX_ATTENTION_CELLS // (config.n_q * config.n_k))
        fits = list(range(1, most + 1))
        if config.head_layout == "split":
            fits = [h for h in fits if config.d_out % h == 0]
            return _("{numbers} (the split layout needs d_out {d_out} divisible by them)").format(
                numbers=or_list(tuple(map(str, fits))), d_out=config.d_out
            )
        return _("a whole number from 1 to {most}").format(most=most)
    if field == "d_out":
        most = _high("d_out")
        return _("a multiple of {heads} from {heads} to {most}, the number of heads").format(
            heads=heads, most=most - most % heads
        )
    if field == "head_layout":
        return _("stacked (d_out {d_out} is not a multiple of {heads} heads)").format(
            d_out=config.d_out, heads=heads
        )
    if field == "projection":
        return _("rand or linear with {heads} heads").format(heads=heads)
    if field == "padding":
        return _("false, or true with --set valid_len=N from 1 to {n_k}").format(n_k=config.n_k)
    if field == "causal":
        return _("false while there are {n_q} queries and {n_k} keys").format(
            n_q=config.n_q, n_k=config.n_k
        )
    if field == "cross":
        return _("false with the session's key/value sequence")
    return _allowed(field)


def _high(field: str) -> int:
    return int(SETTINGS[field].range[1])
