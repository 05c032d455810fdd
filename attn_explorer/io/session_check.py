"""The checks of a parsed session document, field by field, each refusal one line for a learner.

A session file is user input, so every field is checked against the settings' declaration
(`attn_explorer.model.settings`): its type, its range or choices, the decimals its control
holds. Only structure, types and ranges: a config the engine refuses (d_out 5 split into
2 heads) is still a valid session, because the window explains such problems next to the
control that causes them, exactly as when the learner set them up by hand.

`session` reads the bytes and the JSON and adds the file's name to a refusal; the message
helpers at the end are shared with the data export.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import fields
from itertools import chain
from typing import Any

import numpy as np

from attn_explorer.engine.config import FLOAT32_MAX, is_int, is_number
from attn_explorer.engine.given import GivenWeights
from attn_explorer.engine.steps import STEP_KEYS
from attn_explorer.model.settings import MAX_DIMS, MAX_HEAD, MAX_TOKENS, SETTINGS
from attn_explorer.model.state import Controls, ExplorerState, TokenSequence, ViewState
from attn_explorer.model.views import HEADS_ARRAYS, SCORES_ARRAYS, TABS, WEIGHTS_ARRAYS
from attn_explorer.text.i18n import _, ngettext, pgettext
from attn_explorer.text.problems import or_list

TOP_FIELDS = (
    "format",
    "version",
    "saved_by",
    "queries",
    "kv",
    "controls",
    "view",
    "given",
    "pinned",
)
# What was pinned as A to compare with (format 5 on, and only while something is pinned).
PINNED_FIELDS = ("queries", "kv", "controls")
_SEQUENCE_FIELDS = ("tokens", "embeddings")
VIEW_FIELDS = tuple(f.name for f in fields(ViewState))

# Fields a format added: a file of an older format may lack them and is read with their
# defaults; a file of that format or newer always wrote them, so one lacking them is damaged
# or hand-edited, and is refused like one lacking any other field.
_NEWER_VIEW_FIELDS = ("scores_array", "weights_array", "all_heads")  # since format 2
_NEWER_VIEW_VERSION = 2
_NEWER_VIEW_DEFAULTS = {name: getattr(ViewState(), name) for name in _NEWER_VIEW_FIELDS}
# The controls each format added, by the format that added them.
_NEWER_CONTROLS = {
    3: ("reseed_dropout", "dropout_seed"),
    4: ("mask_before_scaling",),
    5: ("ablate", "ablate_mode"),
}


class InvalidError(Exception):
    """A problem found inside a document; the caller adds which file it is about."""


class _Repeated(dict[str, Any]):
    """A JSON object naming a field more than once: Python's json keeps the last value, other
    readers the first, so a hand edit that added a line without removing the old one would
    open with either. `repeated` is the first such field, for the message."""

    repeated: str


def json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A parsed JSON object, marked when it names a field more than once."""
    value = dict(pairs)
    if len(value) == len(pairs):
        return value
    marked = _Repeated(value)
    marked.repeated = next(key for key, n in Counter(key for key, _ in pairs).items() if n > 1)
    return marked


def repeated(value: object, where: str) -> str | None:
    """The problem with an object naming a field more than once, if it does."""
    if not isinstance(value, _Repeated):
        return None
    return _("{where} has the field {field} more than once.").format(
        where=where, field=quote(value.repeated)
    )


def the_document() -> str:
    """What a message calls the whole document, where it would name a field: "it"."""
    return pgettext("the session document, as the subject of a sentence", "it")


def state_from_document(doc: Mapping[str, Any]) -> ExplorerState:
    _fields(doc, the_document(), TOP_FIELDS, optional=("saved_by", "given", "pinned"))
    if "saved_by" in doc and not isinstance(doc["saved_by"], str):
        raise InvalidError(
            _('"saved_by" must be text, not {value}.').format(value=describe(doc["saved_by"]))
        )
    version = doc["version"]  # checked by the caller
    queries, kv = _sequences(doc, "")
    controls = _controls(doc["controls"], version)
    view = _view(doc["view"], len(queries.tokens), older=version < _NEWER_VIEW_VERSION)
    pinned = None
    if doc.get("pinned") is not None:
        part = _fields(doc["pinned"], "pinned", PINNED_FIELDS)
        pinned_queries, pinned_kv = _sequences(part, "pinned.")
        pinned_controls = _controls(part["controls"], version, "pinned.controls")
        pinned = ExplorerState(queries=pinned_queries, kv=pinned_kv, controls=pinned_controls)
    given = given_weights(doc.get("given"))
    return ExplorerState(
        queries=queries, kv=kv, controls=controls, view=view, given=given, pinned=pinned
    )


def _sequences(doc: Mapping[str, Any], prefix: str) -> tuple[TokenSequence, TokenSequence | None]:
    """The queries and the key/values of a document (`prefix` "pinned." for A's)."""
    queries = _sequence(doc["queries"], prefix + "queries")
    kv = None
    if doc["kv"] is not None:
        kv = _sequence(doc["kv"], prefix + "kv")
        if kv.d_in != queries.d_in:
            raise InvalidError(
                ngettext(
                    "the key/value embeddings (kv) have {kv} dimension but the query embeddings "
                    "have {q}: both must live in the same embedding space.",
                    "the key/value embeddings (kv) have {kv} dimensions but the query embeddings "
                    "have {q}: both must live in the same embedding space.",
                    kv.d_in,
                ).format(kv=kv.d_in, q=queries.d_in)
            )
    return queries, kv


def _fields(
    value: object, where: str, names: tuple[str, ...], optional: tuple[str, ...] = ()
) -> Mapping[str, Any]:
    """`value` as an object with exactly these fields: unknown or missing ones are named."""
    if not isinstance(value, dict):
        raise InvalidError(
            _("{where} must be an object, not {value}.").format(where=where, value=describe(value))
        )
    problem = repeated(value, where)
    if problem is not None:
        raise InvalidError(problem)
    unknown = [key for key in value if key not in names]
    if unknown:
        listed = ", ".join(quote(k if isinstance(k, str) else repr(k)) for k in unknown[:3])
        if len(unknown) > 3:
            sentence = _("{where} has unknown fields {listed} and {more} more.")
        else:
            sentence = ngettext(
                "{where} has unknown field {listed}.",
                "{where} has unknown fields {listed}.",
                len(unknown),
            )
        raise InvalidError(sentence.format(where=where, listed=listed, more=len(unknown) - 3))
    missing = [key for key in names if key not in value and key not in optional]
    if missing:
        raise InvalidError(
            ngettext(
                "{where} lacks the field {fields}.",
                "{where} lacks the fields {fields}.",
                len(missing),
            ).format(where=where, fields=", ".join(missing))
        )
    return value


def _sequence(value: object, where: str) -> TokenSequence:
    doc = _fields(value, where, _SEQUENCE_FIELDS)
    tokens, rows = doc["tokens"], doc["embeddings"]
    if not isinstance(tokens, list):
        raise InvalidError(
            _("{where}.tokens must be a list of texts, not {value}.").format(
                where=where, value=describe(tokens)
            )
        )
    if not tokens:
        raise InvalidError(
            _("{where}.tokens is empty: a sequence needs at least one token.").format(where=where)
        )
    if len(tokens) > MAX_TOKENS:
        raise InvalidError(
            _("{where} has {n} tokens; the most the window holds is {most}.").format(
                where=where, n=len(tokens), most=MAX_TOKENS
            )
        )
    for i, token in enumerate(tokens):
        if not isinstance(token, str):
            raise InvalidError(
                _("{where}.tokens item {item} must be text, not {value}.").format(
                    where=where, item=i + 1, value=describe(token)
                )
            )
    if not isinstance(rows, list):
        raise InvalidError(
            _("{where}.embeddings must be a list of rows, not {value}.").format(
                where=where, value=describe(rows)
            )
        )
    if len(rows) != len(tokens):
        raise InvalidError(
            _("{where} has {tokens} but {rows}: each token needs exactly one row.").format(
                where=where,
                tokens=ngettext("{n} token", "{n} tokens", len(tokens)).format(n=len(tokens)),
                rows=ngettext("{n} embedding row", "{n} embedding rows", len(rows)).format(
                    n=len(rows)
                ),
            )
        )
    for i, row in enumerate(rows):
        if not isinstance(row, list):
            raise InvalidError(
                _("{where}.embeddings row {row} must be a list of numbers, not {value}.").format(
                    where=where, row=i + 1, value=describe(row)
                )
            )
    width = len(rows[0])
    if width == 0:
        raise InvalidError(
            _("{where}.embeddings rows are empty: they need at least one dimension.").format(
                where=where
            )
        )
    if width > MAX_DIMS:
        raise InvalidError(
            _(
                "{where}.embeddings have {n} dimensions; the most the window holds is {most}."
            ).format(where=where, n=width, most=MAX_DIMS)
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
        cell = dict(where=where, row=i + 1, token=quote(tokens[i]))
        if len(row) != width:
            raise InvalidError(
                ngettext(
                    "{where}.embeddings row {row} ({token}) has {n} number but row 1 has "
                    "{width}: every embedding needs the same number of dimensions.",
                    "{where}.embeddings row {row} ({token}) has {n} numbers but row 1 has "
                    "{width}: every embedding needs the same number of dimensions.",
                    len(row),
                ).format(**cell, n=len(row), width=width)
            )
        for j, value in enumerate(row):
            if not is_number(value):
                raise InvalidError(
                    _(
                        "{where}.embeddings row {row} ({token}), dimension {dimension} must be a "
                        "number, not {value}."
                    ).format(**cell, dimension=j + 1, value=describe(value))
                )
            if isinstance(value, float) and math.isnan(value):
                raise InvalidError(
                    _(
                        "{where}.embeddings row {row} ({token}), dimension {dimension} is NaN: "
                        "every value must be a number."
                    ).format(**cell, dimension=j + 1)
                )
            if not abs(value) <= FLOAT32_MAX:
                raise InvalidError(
                    _(
                        "{where}.embeddings row {row} ({token}), dimension {dimension} is "
                        "{value}, beyond the float32 range (about ±3.4e38) the engine computes in."
                    ).format(**cell, dimension=j + 1, value=describe(value))
                )
    raise AssertionError("the fast check refused a table the slow check accepts")


def _controls(value: object, version: int, where: str = "controls") -> Controls:
    """The controls of a file of format `version`: those a later format added may be
    missing, and are then at their defaults."""
    optional = tuple(
        name for added, names in _NEWER_CONTROLS.items() if version < added for name in names
    )
    doc = _fields(value, where, Controls.names(), optional=optional)
    return Controls(
        **{
            name: _control(name, doc[name], f"{where}.{name}")
            for name in Controls.names()
            if name in doc
        }
    )


def _control(name: str, item: object, where: str) -> Any:
    """`item` as the setting `name`, checked as its declaration says."""
    setting = SETTINGS[name]
    if setting.choices:
        return _choice(item, where, setting.choices)
    if setting.kind is bool:
        if not isinstance(item, bool):
            raise InvalidError(_not_bool(where, item))
        return item
    if setting.kind is tuple:
        if not isinstance(item, list):
            raise InvalidError(
                _("{where} must be a list of whole numbers, not {value}.").format(
                    where=where, value=describe(item)
                )
            )
        for index, number in enumerate(item):
            if not is_int(number):
                raise InvalidError(_not_whole(f"{where}[{index}]", number))
            _in_range(number, f"{where}[{index}]", *setting.range)
        return tuple(sorted(set(item)))
    if setting.kind is int:
        if not is_int(item):
            raise InvalidError(_not_whole(where, item))
        return _in_range(item, where, *setting.range)
    if not is_number(item):
        raise InvalidError(
            _("{where} must be a number, not {value}.").format(where=where, value=describe(item))
        )
    # Read at the precision of its control (the range's ends have no more decimals).
    return round(float(_in_range(item, where, *setting.range)), setting.decimals)


def _view(value: object, n_q: int, older: bool) -> ViewState:
    """The view; `older`: the file's format predates the matrix choices."""
    optional = _NEWER_VIEW_FIELDS if older else ()
    doc = {**_NEWER_VIEW_DEFAULTS, **_fields(value, "view", VIEW_FIELDS, optional)}
    if not isinstance(doc["all_heads"], bool):
        raise InvalidError(_not_bool("view.all_heads", doc["all_heads"]))
    head, query = doc["head"], doc["query"]
    if not is_int(head):
        raise InvalidError(_not_whole("view.head", head))
    if not is_int(query):
        raise InvalidError(_not_whole("view.query", query))
    if not 0 <= query < n_q:
        raise InvalidError(
            _("view.query is {value}, but the {n} query tokens are numbered 0 to {last}.").format(
                value=short_int(query), n=n_q, last=n_q - 1
            )
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
        quoted = tuple(json.dumps(item) for item in allowed)
        raise InvalidError(
            _("{where} is {value}; choose {choices}.").format(
                where=where, value=describe(value), choices=or_list(quoted)
            )
        )
    return value


def _in_range(value: Any, where: str, low: float, high: float) -> Any:
    if not low <= value <= high:
        raise InvalidError(
            _("{where} is {value}, outside {low:g} to {high:g}.").format(
                where=where, value=describe(value), low=low, high=high
            )
        )
    return value


def _not_bool(where: str, value: object) -> str:
    return _("{where} must be true or false, not {value}.").format(
        where=where, value=describe(value)
    )


def _not_whole(where: str, value: object) -> str:
    return _("{where} must be a whole number, not {value}.").format(
        where=where, value=describe(value)
    )


# ---------------------------------------------------------------------------- messages


def describe(value: object) -> str:
    """A short, JSON-spelled account of a value for an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return short_int(value)
    if isinstance(value, float):
        if math.isinf(value):
            return _("an infinite number") if value > 0 else _("a negative infinite number")
        return repr(value)
    if isinstance(value, str):
        return _("the text {text}").format(text=quote(value))
    if isinstance(value, list):
        return ngettext("a list of {n} item", "a list of {n} items", len(value)).format(
            n=len(value)
        )
    if isinstance(value, dict):
        return _("an object")
    return type(value).__name__


def short_int(value: int) -> str:
    if value.bit_length() > 64:  # repr() of a 5000-digit number is refused, and unreadable
        return _("a number of about {n} digits").format(n=int(value.bit_length() * math.log10(2)))
    return str(value)


def quote(text: str, limit: int = 40) -> str:
    """A token or key as JSON spells it, unprintable characters (line breaks too) escaped."""
    shown = text if len(text) <= limit else text[: limit - 1] + "…"
    return "".join(
        c if c.isprintable() else f"\\u{ord(c):04x}" if ord(c) < 0x10000 else f"\\U{ord(c):08x}"
        for c in json.dumps(shown, ensure_ascii=False)
    )


def given_weights(value: object) -> GivenWeights | None:
    """A real head's weights ("Open in the lab"): W_q, W_k, W_v as (heads, d_in, d_head) lists
    of numbers and their biases, or null; absent from sessions without them."""
    if value is None:
        return None
    names = ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value")
    fields_ = _fields(value, '"given"', names, optional=names[3:])
    try:
        array = np.array([fields_[name] for name in names[:3]], dtype=np.float64)
        biases = [fields_.get(name) for name in names[3:]]
        if any(b is not None for b in biases):
            array = np.concatenate([array.ravel(), np.array(biases, dtype=np.float64).ravel()])
        finite = bool(np.all(np.abs(array) <= FLOAT32_MAX))
        given = GivenWeights(**{name: fields_.get(name) for name in names})
    except (ValueError, TypeError) as error:
        raise InvalidError(
            _('"given" must hold W_q, W_k and W_v as (heads, d_in, d_head) tables of numbers.')
        ) from error
    if not finite:
        raise InvalidError(_('"given" holds a number that is not finite or too large.'))
    return given
