"""Sessions: an `ExplorerState` saved as versioned JSON, and read back without trusting the file.

A session file is user input: hand-edited, truncated by a full disk, written by a newer version
or not a session at all. Loading therefore checks every field against the same types and
ranges the window's controls allow, and any problem becomes one `SessionError` whose message
is a single line a learner can act on (the window shows it in a dialog, the command line
prints it). Nothing else escapes `load_session`/`loads`, whatever the bytes.

Only structure, types and ranges are checked: a config the engine refuses (d_out 5 split into
2 heads) is still a valid session, because the window explains such problems next to the
control that causes them, exactly as when the learner set them up by hand.

Saving writes a temporary file next to the target, syncs it and renames it over the target,
so a crash or a full disk never leaves a half-written session in place of a good one.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import math
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import fields, replace
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from attn_explorer import __version__
from attn_explorer.engine.config import FLOAT32_MAX, HEAD_LAYOUTS, MASK_METHODS, PROJECTIONS
from attn_explorer.engine.steps import STEP_KEYS
from attn_explorer.io import atomic
from attn_explorer.io.errors import folder_problem, shown_path
from attn_explorer.model.state import (
    CONTROL_DECIMALS,
    CONTROL_RANGES,
    MAX_DIMS,
    MAX_TOKENS,
    Controls,
    ExplorerState,
    TokenSequence,
    ViewState,
)
from attn_explorer.model.views import HEADS_ARRAYS, SCORES_ARRAYS, TABS, WEIGHTS_ARRAYS

FORMAT = "attn_explorer.session"
# 2 added the view's scores_array, weights_array and all_heads; 3 the controls'
# reseed_dropout and dropout_seed; 4 mask_before_scaling. Older formats are read with those at
# their defaults (a session of format 3 or older scales first, as it did).
SCHEMA_VERSION = 4
OLDEST_VERSION = 1
# The largest state the window holds (two 4096 x 1024 tables of full-precision floats) takes
# about 170 MB; anything bigger is not a session this app wrote.
MAX_BYTES = 256 * 1024 * 1024

MAX_HEAD = 15  # 0-based: the heads control stops at 16

_CHOICES: dict[str, tuple[str, ...]] = {
    "projection": PROJECTIONS,
    "head_layout": HEAD_LAYOUTS,
    "mask_method": MASK_METHODS,
}
_TOP_FIELDS = ("format", "version", "saved_by", "queries", "kv", "controls", "view")
_SEQUENCE_FIELDS = ("tokens", "embeddings")
_VIEW_FIELDS = tuple(f.name for f in fields(ViewState))
# Fields a format added: a file of an older format may lack them and is read with their
# defaults; a file of that format or newer always wrote them, so one lacking them is damaged
# or hand-edited, and is refused like one lacking any other field.
_NEWER_VIEW_FIELDS = ("scores_array", "weights_array", "all_heads")  # since format 2
_NEWER_VIEW_VERSION = 2
_NEWER_VIEW_DEFAULTS = {name: getattr(ViewState(), name) for name in _NEWER_VIEW_FIELDS}
# The controls each format added, by the format that added them.
_NEWER_CONTROLS = {3: ("reseed_dropout", "dropout_seed"), 4: ("mask_before_scaling",)}


class SessionError(Exception):
    """A session that cannot be saved or loaded; the message is one line meant for a learner."""

    def __init__(self, message: str) -> None:
        # A file name may hold line breaks (\n, but also U+0085 or U+2028); a dialog or a
        # command line wants one line.
        super().__init__(" ".join(message.splitlines()))


class _InvalidError(Exception):
    """A problem found inside a document; the caller adds which file it is about."""


class _NotFiniteError(Exception):
    """Raised by the JSON parser on NaN/Infinity, which Python's json accepts by default."""


class _Repeated(dict[str, Any]):
    """A JSON object naming a field more than once: Python's json keeps the last value, other
    readers the first, so a hand edit that added a line without removing the old one would
    open with either. `repeated` is the first such field, for the message."""

    repeated: str


# ---------------------------------------------------------------------------- public API


def state_to_document(state: ExplorerState) -> dict[str, Any]:
    """The JSON-ready document of a state.

    The followed query is clamped into the token list: deleting tokens in the window does not
    move it, and a stale index must not make the saved file unreadable.
    """
    n_q = len(state.queries.tokens)
    view = state.view
    if isinstance(view.query, int) and n_q and view.query >= n_q:
        view = replace(view, query=n_q - 1)
    return {
        "format": FORMAT,
        "version": SCHEMA_VERSION,
        "saved_by": f"attn_explorer {__version__}",
        "queries": _sequence_document(state.queries),
        "kv": None if state.kv is None else _sequence_document(state.kv),
        "controls": {name: getattr(state.controls, name) for name in Controls.names()},
        "view": {name: getattr(view, name) for name in _VIEW_FIELDS},
    }


def document_to_state(doc: object, *, name: str = "The document") -> ExplorerState:
    """The state a parsed document describes; SessionError on anything wrong with it.

    `name` starts the error message: the file name when loading a file.
    """
    if not isinstance(doc, dict):
        raise SessionError(
            f"{name} is not an attn_explorer session: it holds {_describe(doc)}, not a JSON object."
        )
    problem = _repeated(doc, "it")  # before reading "format" or "version": which one is meant?
    if problem is not None:
        raise SessionError(f"{name} is not a valid session: {problem}")
    if "format" not in doc:
        raise SessionError(f'{name} is not an attn_explorer session: it has no "format" field.')
    if doc["format"] != FORMAT:
        raise SessionError(
            f'{name} is not an attn_explorer session: its "format" is '
            f"{_describe(doc['format'])}, not {json.dumps(FORMAT)}."
        )
    _check_version(doc.get("version", _MISSING), name)
    try:
        return _state(doc)
    except _InvalidError as problem:
        raise SessionError(f"{name} is not a valid session: {problem}") from None


def dumps(state: ExplorerState, *, name: str = "the session") -> str:
    """The session text of a state, checked so that what is written can always be read back."""
    doc = state_to_document(state)
    try:
        _state(doc)
    except _InvalidError as problem:
        raise SessionError(f"Cannot save {name}: {problem}") from None
    text = json_text(doc) + "\n"
    if len(text) > MAX_BYTES:
        raise SessionError(_too_big_to_save(name, len(text)))
    return text


def loads(text: str, *, name: str = "The text") -> ExplorerState:
    """The state in a session's text; SessionError (and nothing else) when it is not one."""
    if not isinstance(text, str):
        raise SessionError(f"{name} is not text.")
    if len(text) > MAX_BYTES:
        raise SessionError(_too_big(name, len(text)))
    return document_to_state(_parse(text.removeprefix("\ufeff"), name), name=name)


def save_session(path: str | os.PathLike[str], state: ExplorerState) -> None:
    """Write a session atomically: the target is either the old file or the complete new one."""
    path = Path(path)
    name = shown_path(path.name or path)
    data = dumps(state, name=name).encode("utf-8")
    if len(data) > MAX_BYTES:  # never write what load_session would refuse
        raise SessionError(_too_big_to_save(name, len(data)))
    # The rename would put a plain file in place of a device or a pipe (as root, even of
    # /dev/full); `atomic.replacing` would write into one, which a session must not do.
    target = Path(os.path.realpath(path))  # through a link: the file it points to
    if target.exists() and not target.is_file() and not target.is_dir():
        raise SessionError(f"Cannot save {name}: it is not a regular file (a device or a pipe).")
    try:
        atomic.write_bytes(path, data)  # the old file, or the complete new one
    except OSError as error:
        reason = folder_problem(path) or _reason(error)
        raise SessionError(f"Cannot save {name}: {reason}.") from error


def load_session(path: str | os.PathLike[str]) -> ExplorerState:
    """Read a session file; SessionError (and nothing else) for any file that is not one."""
    path = Path(path)
    name = shown_path(path.name or path)
    try:
        # A pipe or a device would block open() or read() until it is written to or
        # forever: only a regular file (or a link to one) is read.
        if path.exists() and not path.is_dir() and not path.is_file():
            raise SessionError(f"{name} is not a session: it is not a regular file.")
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size > MAX_BYTES:
                raise SessionError(_too_big(name, size))
            data = file.read(MAX_BYTES + 1)  # a device or a growing file can outrun st_size
    except OSError as error:
        reason = folder_problem(path) or _reason(error)
        raise SessionError(f"{name} cannot be read: {reason}.") from error
    if len(data) > MAX_BYTES:
        raise SessionError(_too_big(name, len(data), at_least=True))
    encoding = _wide_unicode(data)
    if encoding is not None:
        raise SessionError(f"{name} is not a session: it is {encoding} text; save it as UTF-8.")
    try:
        text = data.decode("utf-8-sig")  # tolerate the BOM some Windows editors add
    except UnicodeDecodeError as error:
        # At a line and column, as editors show them (a byte offset can be found in none).
        # The error counts from the end of a byte order mark: error.object lacks it.
        before = error.object[: error.start].decode("utf-8")
        line, column = _position(before, len(before))
        raise SessionError(
            f"{name} is not a session: it is not UTF-8 text "
            f"(byte 0x{error.object[error.start]:02x} at line {line}, column {column})."
        ) from None
    return document_to_state(_parse(text, name), name=name)


# ---------------------------------------------------------------------------- reading


_MISSING = object()


def _wide_unicode(data: bytes) -> str | None:
    """The encoding `data` is in if it is UTF-16 (which Windows editors call "Unicode") or
    UTF-32, else None.

    Without a byte order mark they also decode as UTF-8 (a zero byte is a valid character),
    and were refused as JSON "expecting property name" at line 1, column 2. A session starts
    with ASCII characters, which they spell as one nonzero byte and one or three zero bytes."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):  # FF FE 00 00 first
        return "UTF-32"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "UTF-16"
    if len(data) < 4 or max(data[:4]) >= 0x80:
        return None
    zeros = tuple(byte == 0 for byte in data[:4])
    if zeros in ((False, True, False, True), (True, False, True, False)):
        return "UTF-16"
    if zeros in ((False, True, True, True), (True, True, True, False)):
        return "UTF-32"
    return None


def _parse(text: str, name: str) -> object:
    def refuse_constant(literal: str) -> object:
        raise _NotFiniteError(literal)

    if not text.strip():
        raise SessionError(f"{name} is empty: there is no session in it.")
    try:
        return json.loads(text, parse_constant=refuse_constant, object_pairs_hook=_object)
    except _NotFiniteError as literal:
        line, column = _position(text, _first_constant(text))
        raise SessionError(
            f"{name} is not a valid session: it contains {literal} at line {line}, column "
            f"{column}, and every value must be a finite number."
        ) from None
    except json.JSONDecodeError as error:
        if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
            hint = " (the file ends too soon: was it cut off?)"
        else:
            hint = ""
        # json's "Unterminated string starting at" already ends with the "at".
        raise SessionError(
            f"{name} is not valid JSON: {error.msg.removesuffix(' at')} at line {error.lineno}, "
            f"column {error.colno}{hint}."
        ) from None
    except RecursionError:
        raise SessionError(
            f"{name} is not a session: its lists and objects are nested too deeply."
        ) from None
    except ValueError:
        # int() refuses numbers of more than 4300 digits, json passes that on as ValueError.
        raise SessionError(
            f"{name} is not a session: a number in it has far too many digits."
        ) from None


# Everything before the first NaN or Infinity outside a string: the text before the literal
# the parser refused had parsed, so outside strings only JSON's own letters and signs occur.
_BEFORE_CONSTANT = re.compile(
    r'(?:[^"NI-]++|"[^"\\]*+(?:\\.[^"\\]*+)*+"|N(?!aN)|I(?!nfinity)|-(?!Infinity))*+'
)


def _first_constant(text: str) -> int:
    """Where the NaN or Infinity the parser refused starts: it does not say."""
    match = _BEFORE_CONSTANT.match(text)
    return match.end() if match else 0


def _position(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column of `pos`, counted as json counts them in its errors."""
    line = text.count("\n", 0, pos) + 1
    return line, pos - text.rfind("\n", 0, pos)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A parsed JSON object, marked when it names a field more than once."""
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    marked = _Repeated(value)
    marked.repeated = next(key for key, n in Counter(key for key, _ in pairs).items() if n > 1)
    return marked


def _repeated(value: object, where: str) -> str | None:
    """The problem with an object naming a field more than once, if it does."""
    if not isinstance(value, _Repeated):
        return None
    return f"{where} has the field {_quote(value.repeated)} more than once."


def _check_version(version: object, name: str) -> None:
    if version is _MISSING:
        raise SessionError(f'{name} has no format version (its "version" field is missing).')
    if not _is_int(version):
        raise SessionError(
            f'{name} has a bad format version: "version" must be a whole number, '
            f"not {_describe(version)}."
        )
    assert isinstance(version, int)
    if version > SCHEMA_VERSION:
        raise SessionError(
            f"{name} was saved by a newer attn_explorer (format {_short_int(version)}); "
            f"this one reads formats {OLDEST_VERSION} to {SCHEMA_VERSION}."
        )
    if version < OLDEST_VERSION:
        raise SessionError(
            f"{name} has format version {_short_int(version)}, which no attn_explorer wrote; "
            f"this one reads formats {OLDEST_VERSION} to {SCHEMA_VERSION}."
        )


def _state(doc: Mapping[str, Any]) -> ExplorerState:
    _fields(doc, "it", _TOP_FIELDS, optional=("saved_by",))
    if "saved_by" in doc and not isinstance(doc["saved_by"], str):
        raise _InvalidError(f'"saved_by" must be text, not {_describe(doc["saved_by"])}.')
    queries = _sequence(doc["queries"], "queries")
    kv = None
    if doc["kv"] is not None:
        kv = _sequence(doc["kv"], "kv")
        if kv.d_in != queries.d_in:
            raise _InvalidError(
                f"the key/value embeddings (kv) have {_count(kv.d_in, 'dimension')} but the "
                f"query embeddings have {queries.d_in}: both must live in the same embedding "
                "space."
            )
    version = doc["version"]  # checked by the caller
    controls = _controls(doc["controls"], version)
    view = _view(doc["view"], len(queries.tokens), older=version < _NEWER_VIEW_VERSION)
    return ExplorerState(queries=queries, kv=kv, controls=controls, view=view)


def _fields(
    value: object, where: str, names: tuple[str, ...], optional: tuple[str, ...] = ()
) -> Mapping[str, Any]:
    """`value` as an object with exactly these fields: unknown or missing ones are named."""
    if not isinstance(value, dict):
        raise _InvalidError(f"{where} must be an object, not {_describe(value)}.")
    problem = _repeated(value, where)
    if problem is not None:
        raise _InvalidError(problem)
    unknown = [key for key in value if key not in names]
    if unknown:
        listed = ", ".join(_quote(k if isinstance(k, str) else repr(k)) for k in unknown[:3])
        more = f" and {len(unknown) - 3} more" if len(unknown) > 3 else ""
        plural = "s" if len(unknown) > 1 else ""
        raise _InvalidError(f"{where} has unknown field{plural} {listed}{more}.")
    missing = [key for key in names if key not in value and key not in optional]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        raise _InvalidError(f"{where} lacks the field{plural} {', '.join(missing)}.")
    return value


def _sequence(value: object, where: str) -> TokenSequence:
    doc = _fields(value, where, _SEQUENCE_FIELDS)
    tokens, rows = doc["tokens"], doc["embeddings"]
    if not isinstance(tokens, list):
        raise _InvalidError(f"{where}.tokens must be a list of texts, not {_describe(tokens)}.")
    if not tokens:
        raise _InvalidError(f"{where}.tokens is empty: a sequence needs at least one token.")
    if len(tokens) > MAX_TOKENS:
        raise _InvalidError(
            f"{where} has {len(tokens)} tokens; the most the window holds is {MAX_TOKENS}."
        )
    for i, token in enumerate(tokens):
        if not isinstance(token, str):
            raise _InvalidError(
                f"{where}.tokens item {i + 1} must be text, not {_describe(token)}."
            )
    if not isinstance(rows, list):
        raise _InvalidError(f"{where}.embeddings must be a list of rows, not {_describe(rows)}.")
    if len(rows) != len(tokens):
        raise _InvalidError(
            f"{where} has {_count(len(tokens), 'token')} but "
            f"{_count(len(rows), 'embedding row')}: each token needs exactly one row."
        )
    for i, row in enumerate(rows):
        if not isinstance(row, list):
            raise _InvalidError(
                f"{where}.embeddings row {i + 1} must be a list of numbers, not {_describe(row)}."
            )
    width = len(rows[0])
    if width == 0:
        raise _InvalidError(f"{where}.embeddings rows are empty: they need at least one dimension.")
    if width > MAX_DIMS:
        raise _InvalidError(
            f"{where}.embeddings have {width} dimensions; the most the window holds is {MAX_DIMS}."
        )
    if _numbers(rows, width, where, tokens):
        return TokenSequence(tuple(tokens), tuple(map(tuple, rows)))  # floats already
    table = np.array(rows, dtype=np.float64)  # ints (checked in range) become floats
    return TokenSequence(tuple(tokens), tuple(map(tuple, table.tolist())))


def _numbers(rows: list[list[Any]], width: int, where: str, tokens: list[str]) -> bool:
    """Check the table: in C for big tables, in Python to explain what is wrong.

    Returns whether every value is already a float (nothing to convert).
    """
    kinds = set(map(type, chain.from_iterable(rows)))
    if set(map(len, rows)) == {width} and kinds <= {float, int}:
        with contextlib.suppress(OverflowError):  # ints beyond float64 go to the slow path
            if np.all(np.abs(np.array(rows, dtype=np.float64)) <= FLOAT32_MAX):
                return kinds == {float}
    for i, row in enumerate(rows):
        label = f"{where}.embeddings row {i + 1} ({_quote(tokens[i])})"
        if len(row) != width:
            raise _InvalidError(
                f"{label} has {_count(len(row), 'number')} but row 1 has {width}: every "
                "embedding needs the same number of dimensions."
            )
        for j, value in enumerate(row):
            if not _is_number(value):
                raise _InvalidError(
                    f"{label}, dimension {j + 1} must be a number, not {_describe(value)}."
                )
            if isinstance(value, float) and math.isnan(value):
                raise _InvalidError(
                    f"{label}, dimension {j + 1} is NaN: every value must be a number."
                )
            if not abs(value) <= FLOAT32_MAX:
                raise _InvalidError(
                    f"{label}, dimension {j + 1} is {_describe(value)}, beyond the float32 "
                    "range (about ±3.4e38) the engine computes in."
                )
    raise AssertionError("the fast check refused a table the slow check accepts")


def _controls(value: object, version: int) -> Controls:
    """The controls of a file of format `version`: those a later format added may be
    missing, and are then at their defaults."""
    optional = tuple(
        name for added, names in _NEWER_CONTROLS.items() if version < added for name in names
    )
    doc = _fields(value, "controls", Controls.names(), optional=optional)
    return Controls(
        **{
            name: _control(name, doc[name], f"controls.{name}")
            for name in Controls.names()
            if name in doc
        }
    )


_DEFAULT_CONTROLS = Controls()  # each control's type is its default's


def _control(name: str, item: object, where: str) -> Any:
    kind = type(getattr(_DEFAULT_CONTROLS, name))
    if name in _CHOICES:
        return _choice(item, where, _CHOICES[name])
    if kind is bool:
        if not isinstance(item, bool):
            raise _InvalidError(f"{where} must be true or false, not {_describe(item)}.")
        return item
    if kind is int:
        if not _is_int(item):
            raise _InvalidError(f"{where} must be a whole number, not {_describe(item)}.")
        return _in_range(item, where, *CONTROL_RANGES[name])
    if not _is_number(item):
        raise _InvalidError(f"{where} must be a number, not {_describe(item)}.")
    # Read at the precision of its control (the range's ends have no more decimals).
    return round(float(_in_range(item, where, *CONTROL_RANGES[name])), CONTROL_DECIMALS[name])


def _view(value: object, n_q: int, older: bool) -> ViewState:
    """The view; `older`: the file's format predates the matrix choices."""
    optional = _NEWER_VIEW_FIELDS if older else ()
    doc = {**_NEWER_VIEW_DEFAULTS, **_fields(value, "view", _VIEW_FIELDS, optional)}
    if not isinstance(doc["all_heads"], bool):
        raise _InvalidError(
            f"view.all_heads must be true or false, not {_describe(doc['all_heads'])}."
        )
    head, query = doc["head"], doc["query"]
    if not _is_int(head):
        raise _InvalidError(f"view.head must be a whole number, not {_describe(head)}.")
    if not _is_int(query):
        raise _InvalidError(f"view.query must be a whole number, not {_describe(query)}.")
    if not 0 <= query < n_q:
        raise _InvalidError(
            f"view.query is {_short_int(query)}, but the {n_q} query tokens are numbered "
            f"0 to {n_q - 1}."
        )
    return ViewState(
        tab=_choice(doc["tab"], "view.tab", TABS),
        head=_in_range(head, "view.head", 0, MAX_HEAD),
        query=query,
        stage=_choice(doc["stage"], "view.stage", STEP_KEYS),
        heads_array=_choice(doc["heads_array"], "view.heads_array", HEADS_ARRAYS),
        scores_array=_choice(doc["scores_array"], "view.scores_array", SCORES_ARRAYS),
        weights_array=_choice(doc["weights_array"], "view.weights_array", WEIGHTS_ARRAYS),
        all_heads=doc["all_heads"],
    )


def _choice(value: object, where: str, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise _InvalidError(f"{where} is {_describe(value)}; choose {_or_list(allowed)}.")
    return value


def _in_range(value: Any, where: str, low: float, high: float) -> Any:
    if not low <= value <= high:
        raise _InvalidError(f"{where} is {_describe(value)}, outside {low:g} to {high:g}.")
    return value


# ---------------------------------------------------------------------------- writing


def _sequence_document(sequence: TokenSequence) -> dict[str, Any]:
    rows = [list(row) for row in sequence.embeddings]
    kinds = set(map(type, chain.from_iterable(rows)))
    if not kinds <= {float, int} and all(
        issubclass(k, int | float | np.integer | np.floating) and not issubclass(k, bool | np.bool_)
        for k in kinds
    ):
        rows = np.array(rows, dtype=np.float64).tolist()  # numpy scalars: plain floats for JSON
    return {"tokens": list(sequence.tokens), "embeddings": rows}


def json_text(value: Any, indent: int = 0) -> str:
    """Strict JSON with one line per field and per row of numbers: readable, diffable, compact.

    Shared with the data export, whose matrices read best the same way. Raises ValueError on
    NaN or infinity (a file that Python's own reader would accept but others would not).
    """
    if isinstance(value, dict):
        pad = " " * (indent + 1)
        items = [
            f"{pad}{_scalar_json_text(key)}: {json_text(item, indent + 1)}"
            for key, item in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}" if items else "{}"
    if isinstance(value, list) and not {dict, list}.isdisjoint(map(type, value)):
        pad = " " * (indent + 1)
        items = [pad + json_text(item, indent + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    return _scalar_json_text(value)


def _scalar_json_text(value: Any) -> str:
    """Tokens as written (emoji, Vietnamese, Arabic); only lone surrogates need \\u escapes."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, allow_nan=False)
    return text


# ---------------------------------------------------------------------------- messages


def _describe(value: object) -> str:
    """A short, JSON-spelled account of a value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _short_int(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "an infinite number" if value > 0 else "a negative infinite number"
        return repr(value)
    if isinstance(value, str):
        return "the text " + _quote(value)
    if isinstance(value, list):
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _count(n: int, noun: str) -> str:
    """A count and its noun, singular for one: "1 embedding row", not "1 embedding rows"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _short_int(value: int) -> str:
    if value.bit_length() > 64:  # repr() of a 5000-digit number is refused, and unreadable
        return f"a number of about {int(value.bit_length() * math.log10(2))} digits"
    return str(value)


def _quote(text: str, limit: int = 40) -> str:
    """A token or key as JSON spells it, unprintable characters (line breaks too) escaped."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return "".join(
        c if c.isprintable() else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
        for c in json.dumps(shown, ensure_ascii=False)
    )


def _too_big(name: str, size: int, at_least: bool = False) -> str:
    limit = MAX_BYTES // 2**20
    if at_least or round(size / 2**20, 1) <= limit:  # read up to the limit, or just over it
        return f"{name} is too big for a session (more than the {limit} MB limit)."
    return f"{name} is too big for a session ({size / 2**20:.1f} MB; the limit is {limit} MB)."


def _too_big_to_save(name: str, size: int) -> str:
    return (
        f"Cannot save {name}: it would take {size / 2**20:.1f} MB, more than the "
        f"{MAX_BYTES // 2**20} MB a session may hold; use fewer tokens or dimensions."
    )


def _reason(error: OSError) -> str:
    return error.strerror or str(error)


def _or_list(items: tuple[str, ...]) -> str:
    quoted = [json.dumps(item) for item in items]
    return ", ".join(quoted[:-1]) + " or " + quoted[-1] if len(quoted) > 1 else quoted[0]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
