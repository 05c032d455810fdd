"""Sessions: an `ExplorerState` saved as versioned JSON, and read back without trusting the file.

A session file is user input: hand-edited, truncated by a full disk, written by a newer version
or not a session at all. This module reads its bytes, its text and its JSON; `session_check`
checks every field against the settings' declaration, the types and ranges the window's
controls allow. Any problem becomes one `SessionError` whose message is a single line a
learner can act on (the window shows it in a dialog, the command line prints it). Nothing
else escapes `load_session`/`loads`, whatever the bytes.

Saving writes a temporary file next to the target, syncs it and renames it over the target,
so a crash or a full disk never leaves a half-written session in place of a good one.
"""

from __future__ import annotations

import codecs
import json
import os
import re
from dataclasses import replace
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np

from attn_explorer import __version__
from attn_explorer.engine.config import is_int
from attn_explorer.io import atomic
from attn_explorer.io.errors import folder_problem, impossible_path, shown_path
from attn_explorer.io.session_check import (
    VIEW_FIELDS,
    InvalidError,
    describe,
    json_object,
    repeated,
    short_int,
    state_from_document,
    the_document,
)
from attn_explorer.model.state import Controls, ExplorerState, TokenSequence
from attn_explorer.text.i18n import N_, _

FORMAT = "attn_explorer.session"
# 2 added the view's scores_array, weights_array and all_heads; 3 the controls'
# reseed_dropout and dropout_seed; 4 mask_before_scaling; 5 the heads switched off (ablate,
# ablate_mode) and what is pinned as A (pinned, written only while something is). Older
# formats are read with those at their defaults (a session of format 3 or older scales first,
# as it did).
SCHEMA_VERSION = 5
OLDEST_VERSION = 1
# The largest state the window holds (two 4096 x 1024 tables of full-precision floats) takes
# about 170 MB; anything bigger is not a session this app wrote.
MAX_BYTES = 256 * 1024 * 1024


class SessionError(Exception):
    """A session that cannot be saved or loaded; the message is one line meant for a learner."""

    def __init__(self, message: str) -> None:
        # A file name may hold line breaks (\n, but also U+0085 or U+2028); a dialog or a
        # command line wants one line.
        super().__init__(" ".join(message.splitlines()))


class _NotFiniteError(Exception):
    """Raised by the JSON parser on NaN/Infinity, which Python's json accepts by default."""


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
    doc = {
        "format": FORMAT,
        "version": SCHEMA_VERSION,
        "saved_by": f"attn_explorer {__version__}",
        "queries": _sequence_document(state.queries),
        "kv": None if state.kv is None else _sequence_document(state.kv),
        "controls": _controls_document(state.controls),
        "view": {name: getattr(view, name) for name in VIEW_FIELDS},
        **_given_document(state),
    }
    if state.pinned is not None:
        pinned = state.pinned
        doc["pinned"] = {
            "queries": _sequence_document(pinned.queries),
            "kv": None if pinned.kv is None else _sequence_document(pinned.kv),
            "controls": _controls_document(pinned.controls),
        }
    return doc


def _controls_document(controls: Controls) -> dict[str, Any]:
    """The controls as JSON writes them: the heads switched off as a list."""
    values = {name: getattr(controls, name) for name in Controls.names()}
    return {name: list(v) if isinstance(v, tuple) else v for name, v in values.items()}


def _given_document(state: ExplorerState) -> dict[str, Any]:
    """A real head's weights, only in the sessions that have them (older files stay as
    they were)."""
    if state.given is None:
        return {}
    g = state.given
    names = ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value")
    return {"given": {n: g.lists(n) for n in names if getattr(g, n) is not None}}


def document_to_state(doc: object, *, name: str | None = None) -> ExplorerState:
    """The state a parsed document describes; SessionError on anything wrong with it.

    `name` starts the error message: the file name when loading a file ("The document" by
    default).
    """
    if name is None:
        name = _("The document")
    if not isinstance(doc, dict):
        raise SessionError(
            _(
                "{name} is not an attn_explorer session: it holds {value}, not a JSON object."
            ).format(name=name, value=describe(doc))
        )
    # Before reading "format" or "version": which one is meant?
    problem = repeated(doc, the_document())
    if problem is not None:
        raise SessionError(_invalid(name, problem))
    if "format" not in doc:
        raise SessionError(
            _('{name} is not an attn_explorer session: it has no "format" field.').format(name=name)
        )
    if doc["format"] != FORMAT:
        raise SessionError(
            _(
                '{name} is not an attn_explorer session: its "format" is {value}, not {format}.'
            ).format(name=name, value=describe(doc["format"]), format=json.dumps(FORMAT))
        )
    _check_version(doc.get("version", _MISSING), name)
    try:
        return state_from_document(doc)
    except InvalidError as problem:
        raise SessionError(_invalid(name, problem)) from None


def dumps(state: ExplorerState, *, name: str | None = None) -> str:
    """The session text of a state, checked so that what is written can always be read back.
    `name` is what a refusal calls it ("the session" by default)."""
    if name is None:
        name = _("the session")
    doc = state_to_document(state)
    try:
        state_from_document(doc)
    except InvalidError as problem:
        raise SessionError(
            _("Cannot save {name}: {problem}").format(name=name, problem=problem)
        ) from None
    text = json_text(doc) + "\n"
    if len(text) > MAX_BYTES:
        raise SessionError(_too_big_to_save(name, len(text)))
    return text


def loads(text: str, *, name: str | None = None) -> ExplorerState:
    """The state in a session's text; SessionError (and nothing else) when it is not one.
    `name` starts the error message ("The text" by default)."""
    if name is None:
        name = _("The text")
    if not isinstance(text, str):
        raise SessionError(_("{name} is not text.").format(name=name))
    if len(text) > MAX_BYTES:
        raise SessionError(_too_big(name, len(text)))
    return document_to_state(_parse(text.removeprefix("\ufeff"), name), name=name)


def save_session(path: str | os.PathLike[str], state: ExplorerState) -> None:
    """Write a session atomically: the target is either the old file or the complete new one."""
    path = Path(path)
    name = shown_path(path.name or path)
    impossible = impossible_path(path)
    if impossible is not None:
        raise SessionError(_cannot_save(name, impossible))
    data = dumps(state, name=name).encode("utf-8")
    if len(data) > MAX_BYTES:  # never write what load_session would refuse
        raise SessionError(_too_big_to_save(name, len(data)))
    # The rename would put a plain file in place of a device or a pipe (as root, even of
    # /dev/full); `atomic.replacing` would write into one, which a session must not do.
    target = Path(os.path.realpath(path))  # through a link: the file it points to
    if target.exists() and not target.is_file() and not target.is_dir():
        raise SessionError(
            _("Cannot save {name}: it is not a regular file (a device or a pipe).").format(
                name=name
            )
        )
    try:
        atomic.write_bytes(path, data)  # the old file, or the complete new one
    except OSError as error:
        reason = folder_problem(path) or _reason(error)
        raise SessionError(_cannot_save(name, reason)) from error


def load_session(path: str | os.PathLike[str]) -> ExplorerState:
    """Read a session file; SessionError (and nothing else) for any file that is not one."""
    path = Path(path)
    name = shown_path(path.name or path)
    impossible = impossible_path(path)
    if impossible is not None:
        raise SessionError(_cannot_read(name, impossible))
    try:
        # A pipe or a device would block open() or read() until it is written to or
        # forever: only a regular file (or a link to one) is read.
        if path.exists() and not path.is_dir() and not path.is_file():
            raise SessionError(
                _("{name} is not a session: it is not a regular file.").format(name=name)
            )
        with open(path, "rb") as file:
            size = os.fstat(file.fileno()).st_size
            if size > MAX_BYTES:
                raise SessionError(_too_big(name, size))
            data = file.read(MAX_BYTES + 1)  # a device or a growing file can outrun st_size
    except OSError as error:
        reason = folder_problem(path) or _reason(error)
        raise SessionError(_cannot_read(name, reason)) from error
    if len(data) > MAX_BYTES:
        raise SessionError(_too_big(name, len(data), at_least=True))
    encoding = _wide_unicode(data)
    if encoding is not None:
        raise SessionError(
            _("{name} is not a session: it is {encoding} text; save it as UTF-8.").format(
                name=name, encoding=encoding
            )
        )
    try:
        text = data.decode("utf-8-sig")  # tolerate the BOM some Windows editors add
    except UnicodeDecodeError as error:
        # At a line and column, as editors show them (a byte offset can be found in none).
        # The error counts from the end of a byte order mark: error.object lacks it.
        before = error.object[: error.start].decode("utf-8")
        line, column = _position(before, len(before))
        raise SessionError(
            _(
                "{name} is not a session: it is not UTF-8 text (byte 0x{byte:02x} at line "
                "{line}, column {column})."
            ).format(name=name, byte=error.object[error.start], line=line, column=column)
        ) from None
    return document_to_state(_parse(text, name), name=name)


# ---------------------------------------------------------------------------- reading


_MISSING = object()


def _wide_unicode(data: bytes) -> str | None:
    """The encoding `data` is in if it is UTF-16 (which Windows editors call "Unicode") or
    UTF-32, else None.

    Without a byte order mark they also decode as UTF-8 (a zero byte is a valid character),
    and JSON would refuse them as "expecting property name" at line 1, column 2, which does
    not name the encoding. A session starts with ASCII characters, which they spell as one
    nonzero byte and one or three zero bytes."""
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
        raise SessionError(_("{name} is empty: there is no session in it.").format(name=name))
    try:
        return json.loads(text, parse_constant=refuse_constant, object_pairs_hook=json_object)
    except _NotFiniteError as literal:
        line, column = _position(text, _first_constant(text))
        raise SessionError(
            _(
                "{name} is not a valid session: it contains {literal} at line {line}, column "
                "{column}, and every value must be a finite number."
            ).format(name=name, literal=literal, line=line, column=column)
        ) from None
    except json.JSONDecodeError as error:
        if error.pos >= len(text.rstrip()) or error.msg.startswith("Unterminated string"):
            sentence = _(
                "{name} is not valid JSON: {error} at line {line}, column {column} (the file "
                "ends too soon: was it cut off?)."
            )
        else:
            sentence = _("{name} is not valid JSON: {error} at line {line}, column {column}.")
        # json's "Unterminated string starting at" already ends with the "at".
        said = error.msg.removesuffix(" at")
        raise SessionError(
            sentence.format(
                name=name,
                error=_(said) if said in _JSON_ERRORS else said,
                line=error.lineno,
                column=error.colno,
            )
        ) from None
    except RecursionError:
        raise SessionError(
            _("{name} is not a session: its lists and objects are nested too deeply.").format(
                name=name
            )
        ) from None
    except ValueError:
        # int() refuses numbers of more than 4300 digits, json passes that on as ValueError.
        raise SessionError(
            _("{name} is not a session: a number in it has far too many digits.").format(name=name)
        ) from None


# What Python's JSON reader says is wrong (its C scanner's words, and 3.13's trailing
# commas), translated where it says one of these; anything else it says is kept as said.
_JSON_ERRORS = (
    N_("Expecting value"),
    N_("Expecting property name enclosed in double quotes"),
    N_("Expecting ':' delimiter"),
    N_("Expecting ',' delimiter"),
    N_("Extra data"),
    N_("Unterminated string starting"),
    N_("Invalid control character"),
    N_("Invalid \\escape"),
    N_("Invalid \\uXXXX escape"),
    N_("Illegal trailing comma before end of object"),
    N_("Illegal trailing comma before end of array"),
)


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


def _check_version(version: object, name: str) -> None:
    if version is _MISSING:
        raise SessionError(
            _('{name} has no format version (its "version" field is missing).').format(name=name)
        )
    if not is_int(version):
        raise SessionError(
            _(
                '{name} has a bad format version: "version" must be a whole number, not {value}.'
            ).format(name=name, value=describe(version))
        )
    assert isinstance(version, int)
    formats = dict(name=name, version=short_int(version), oldest=OLDEST_VERSION)
    if version > SCHEMA_VERSION:
        raise SessionError(
            _(
                "{name} was saved by a newer attn_explorer (format {version}); this one reads "
                "formats {oldest} to {newest}."
            ).format(**formats, newest=SCHEMA_VERSION)
        )
    if version < OLDEST_VERSION:
        raise SessionError(
            _(
                "{name} has format version {version}, which no attn_explorer wrote; this one "
                "reads formats {oldest} to {newest}."
            ).format(**formats, newest=SCHEMA_VERSION)
        )


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


def _invalid(name: str, problem: object) -> str:
    return _("{name} is not a valid session: {problem}").format(name=name, problem=problem)


def _cannot_save(name: str, reason: str) -> str:
    return _("Cannot save {name}: {reason}.").format(name=name, reason=reason)


def _cannot_read(name: str, reason: str) -> str:
    return _("{name} cannot be read: {reason}.").format(name=name, reason=reason)


def _too_big(name: str, size: int, at_least: bool = False) -> str:
    limit = MAX_BYTES // 2**20
    if at_least or round(size / 2**20, 1) <= limit:  # read up to the limit, or just over it
        return _("{name} is too big for a session (more than the {limit} MB limit).").format(
            name=name, limit=limit
        )
    return _("{name} is too big for a session ({size:.1f} MB; the limit is {limit} MB).").format(
        name=name, size=size / 2**20, limit=limit
    )


def _too_big_to_save(name: str, size: int) -> str:
    return _(
        "Cannot save {name}: it would take {size:.1f} MB, more than the {limit} MB a session "
        "may hold; use fewer tokens or dimensions."
    ).format(name=name, size=size / 2**20, limit=MAX_BYTES // 2**20)


def _reason(error: OSError) -> str:
    return error.strerror or str(error)
