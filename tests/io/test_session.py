"""Sessions: exact round trips, atomic saves, and one readable SessionError for any bad file."""

import codecs
import copy
import json
import math
import os
import stat
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_explorer import __version__
from attn_explorer.engine import PRESETS, STEP_KEYS, ConfigError, compute
from attn_explorer.engine.config import FLOAT32_MAX, HEAD_LAYOUTS, MASK_METHODS, PROJECTIONS
from attn_explorer.io import session
from attn_explorer.io.session import (
    MAX_BYTES,
    SessionError,
    document_to_state,
    dumps,
    load_session,
    loads,
    save_session,
    state_to_document,
)
from attn_explorer.model.settings import MAX_DIMS, MAX_TOKENS
from attn_explorer.model.settings import SETTINGS as DECLARED
from attn_explorer.model.state import (
    Controls,
    ExplorerState,
    TokenSequence,
    ViewState,
)
from attn_explorer.model.views import HEADS_ARRAYS, SCORES_ARRAYS, TABS, WEIGHTS_ARRAYS

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ODD_TOKENS = ("😀 emoji", "مرحبا", "line\nbreak", 'quote " and \\ back', "", "tab\there")


# ---------------------------------------------------------------------------- fixtures


def preset_state(name: str) -> ExplorerState:
    return ExplorerState.from_config(PRESETS[name].config)


@pytest.fixture
def cross_doc() -> dict:
    """A valid document with kv present: the base every rejection case breaks one way."""
    return state_to_document(preset_state("cross"))


@pytest.fixture
def odd_state() -> ExplorerState:
    """Tokens a file format can trip on: emoji, right-to-left, newline, quotes, empty."""
    rows = tuple((0.1 * i, -0.2 * i, 3.5) for i in range(len(ODD_TOKENS)))
    queries = TokenSequence(ODD_TOKENS, rows)
    kv = TokenSequence(("κλειδί", "🔑"), ((1.0, 2.0, 3.0), (-1e-7, 0.0, 3.4e38)))
    return ExplorerState(queries=queries, kv=kv, controls=Controls(cross=True))


def save_and_load(state: ExplorerState, path) -> ExplorerState:
    save_session(path, state)
    return load_session(path)


def assert_same_trace(a: ExplorerState, b: ExplorerState) -> None:
    """The engine sees no difference: same arrays bit for bit (or the same refusal)."""
    try:
        first = compute(a.config())
    except ConfigError as error:
        with pytest.raises(ConfigError, match=str(error)[:30]):
            compute(b.config())
        return
    second = compute(b.config())
    assert first.names == second.names
    for name in first.names:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)


def refused(path) -> str:
    """The message of the SessionError loading `path` raises; it must be one line."""
    with pytest.raises(SessionError) as caught:
        load_session(path)
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    return message


# ---------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_round_trips(name, tmp_path):
    state = preset_state(name)
    loaded = save_and_load(state, tmp_path / "session.json")
    assert loaded == state
    assert_same_trace(state, loaded)


@pytest.mark.parametrize("cross", [True, False])
def test_odd_tokens_round_trip_with_kv_on_and_off(odd_state, cross, tmp_path):
    state = odd_state.with_controls(cross=cross)
    path = tmp_path / "odd.json"
    loaded = save_and_load(state, path)
    assert loaded == state
    assert loaded.kv == state.kv  # kept even while cross-attention is off
    assert_same_trace(state, loaded)
    text = path.read_bytes().decode("utf-8")
    assert "😀 emoji" in text and "مرحبا" in text  # written as text, not \u escapes


def test_without_kv_round_trips(tmp_path):
    state = ExplorerState(TokenSequence(("a", "b"), ((1.0, 2.0), (3.0, 4.0))), kv=None)
    loaded = save_and_load(state, tmp_path / "s.json")
    assert loaded == state and loaded.kv is None


def test_lone_surrogate_survives_as_an_escape(tmp_path):
    state = ExplorerState(TokenSequence(("bad\ud800half",), ((1.0,),)), view=ViewState(query=0))
    path = tmp_path / "s.json"
    assert save_and_load(state, path) == state
    assert "\\ud800" in path.read_text(encoding="utf-8")


def test_document_layout(tmp_path):
    state = preset_state("padding")
    path = tmp_path / "s.json"
    save_session(path, state)
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert list(doc) == ["format", "version", "saved_by", "queries", "kv", "controls", "view"]
    assert doc["format"] == "attn_explorer.session"
    assert doc["version"] == 4
    assert doc["saved_by"] == f"attn_explorer {__version__}"
    assert doc["queries"]["tokens"] == ["Your", "journey", "starts", "with", "<pad>", "<pad>"]
    assert doc["queries"]["embeddings"][1] == [0.55, 0.87, 0.66]
    assert doc["kv"] is None
    assert list(doc["controls"]) == list(Controls.names())
    assert doc["controls"]["padding"] is True and doc["controls"]["valid_len"] == 4
    assert doc["view"] == {
        "tab": "matrices",
        "head": 0,
        "query": 1,
        "stage": "embeddings",
        "heads_array": "weights",
        "scores_array": "masked_scores",
        "weights_array": "weights",
        "all_heads": False,
    }
    # One embedding row per line: pretty but compact.
    assert "   [0.55, 0.87, 0.66],\n" in path.read_text(encoding="utf-8")


def test_int_where_a_float_is_expected_is_read_as_float(cross_doc):
    cross_doc["controls"]["temperature"] = 2
    cross_doc["queries"]["embeddings"][0] = [1, 0, -3]
    state = document_to_state(cross_doc)
    assert state.controls.temperature == 2.0 and type(state.controls.temperature) is float
    assert state.queries.embeddings[0] == (1.0, 0.0, -3.0)
    assert all(type(v) is float for v in state.queries.embeddings[0])


def test_temperature_and_dropout_are_read_at_their_controls_precision(cross_doc):
    """0.123 was computed while its box showed 0.12, and typing 0.12 then changed nothing."""
    cross_doc["controls"].update(temperature=0.123, dropout=0.335)
    controls = document_to_state(cross_doc).controls
    assert (controls.temperature, controls.dropout) == (0.12, 0.34)


def test_a_config_the_engine_refuses_is_still_a_session():
    """Only structure is checked: the window explains engine problems next to the control."""
    state = preset_state("v2").with_controls(d_out=5, num_heads=2, head_layout="split")
    loaded = loads(dumps(state))
    assert loaded == state
    assert "cannot be split into 2 heads" in loaded.config().problems()[0].message


def test_a_stale_followed_query_is_clamped_on_save(tmp_path):
    """Deleting tokens does not move the followed query; the file must still load."""
    state = ExplorerState(TokenSequence(("only",), ((0.5, 0.5),)))  # ViewState().query is 1
    loaded = save_and_load(state, tmp_path / "s.json")
    assert loaded.view.query == 0
    assert loaded.queries == state.queries


def test_an_out_of_range_state_is_not_saved(tmp_path):
    path = tmp_path / "s.json"
    state = preset_state("v1").with_controls(seed=20_000)  # e.g. `--set seed=20000`
    with pytest.raises(SessionError, match=r"^Cannot save s\.json: controls\.seed is 20000"):
        save_session(path, state)
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []


def test_dumps_and_loads_agree_with_the_file_functions(tmp_path):
    state = preset_state("mha")
    path = tmp_path / "s.json"
    save_session(path, state)
    assert path.read_text(encoding="utf-8") == dumps(state)
    assert loads(dumps(state)) == state


def test_a_utf8_bom_is_tolerated(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(b"\xef\xbb\xbf" + dumps(preset_state("v1")).encode("utf-8"))
    assert load_session(path) == preset_state("v1")


# ---------------------------------------------------------------------------- atomic saving


@pytest.fixture
def existing(tmp_path):
    """A session file already on disk, and its exact bytes."""
    path = tmp_path / "session.json"
    save_session(path, preset_state("v1"))
    return path, path.read_bytes()


def assert_untouched(existing) -> None:
    path, before = existing
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == ["session.json"], "a temp file remained"


def test_failed_rename_leaves_the_old_file(existing, monkeypatch):
    def broken_replace(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(session.os, "replace", broken_replace)
    with pytest.raises(SessionError, match=r"^Cannot save session\.json: Permission denied\.$"):
        save_session(existing[0], preset_state("mha"))
    assert_untouched(existing)


def test_disk_full_halfway_through_the_write_leaves_the_old_file(existing, monkeypatch):
    real_fdopen = os.fdopen

    class HalfWriter:
        def __init__(self, file):
            self.file = file

        def write(self, data):
            self.file.write(data[: len(data) // 2])
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.file, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

    monkeypatch.setattr(session.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    with pytest.raises(SessionError, match="No space left on device"):
        save_session(existing[0], preset_state("mha"))
    assert_untouched(existing)


def test_a_crash_before_the_rename_leaves_the_old_file(existing, monkeypatch):
    def crash(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(session.os, "fsync", crash)
    with pytest.raises(KeyboardInterrupt):
        save_session(existing[0], preset_state("mha"))
    assert_untouched(existing)


def test_saving_into_a_missing_directory_names_it(tmp_path):
    """It said "No such file or directory", as if s.json alone were missing."""
    with pytest.raises(SessionError) as refusal:
        save_session(tmp_path / "nowhere" / "s.json", preset_state("v1"))
    assert (
        str(refusal.value) == f"Cannot save s.json: the folder {tmp_path}/nowhere does not exist."
    )
    (tmp_path / "notes").write_text("mine\n")
    with pytest.raises(SessionError) as refusal:
        save_session(tmp_path / "notes" / "s.json", preset_state("v1"))
    assert str(refusal.value) == f"Cannot save s.json: {tmp_path}/notes is a file, not a folder."
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_overwriting_keeps_the_file_mode(existing):
    path = existing[0]
    path.chmod(0o640)
    save_session(path, preset_state("mha"))
    assert path.stat().st_mode & 0o777 == 0o640
    assert load_session(path) == preset_state("mha")


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_saving_through_a_link_replaces_the_file_it_points_to(tmp_path):
    """A lesson kept in a shared folder and linked from the desktop: saving replaced the link
    with a plain file, and the shared file kept the old session."""
    shared = tmp_path / "shared" / "lesson.json"
    shared.parent.mkdir()
    save_session(shared, preset_state("v1"))
    link = tmp_path / "lesson.json"
    link.symlink_to(shared)
    save_session(link, preset_state("mha"))
    assert link.is_symlink() and link.resolve() == shared
    assert load_session(shared) == preset_state("mha")
    assert sorted(p.name for p in shared.parent.iterdir()) == ["lesson.json"]  # no temp left


# ---------------------------------------------------------------------------- rejections


def bad_bytes_cases():
    nested = b"[" * 100_000
    return [
        (b"", "is empty"),
        (b"  \n", "is empty"),
        (b"{\xe9}", "not UTF-8 text (byte 0xe9 at line 1, column 2)."),  # Latin-1
        (b'{\n "a": "caf\xe9"}', "not UTF-8 text (byte 0xe9 at line 2, column 11)."),
        (codecs.BOM_UTF8 + b'{"\xc3\xa9\xe9"}', "(byte 0xe9 at line 1, column 4)."),  # after a BOM
        (b"\xff\xfe{\x00}\x00", "is UTF-16 text; save it as UTF-8."),  # Windows' "Unicode"
        ('{"format": 3}'.encode("utf-16-le"), "is UTF-16 text; save it as UTF-8."),  # no mark
        ('{"format": 3}'.encode("utf-16-be"), "is UTF-16 text; save it as UTF-8."),
        ('{"format": 3}'.encode("utf-32"), "is UTF-32 text; save it as UTF-8."),
        ('{"format": 3}'.encode("utf-32-le"), "is UTF-32 text; save it as UTF-8."),
        (b"{\x00 }", "not valid JSON: Expecting property name"),  # a zero byte is not UTF-16
        (b'{"format": "attn_explorer.session",', "ends too soon"),
        (b'{"format": "attn_explorer.sess', "ends too soon"),
        (  # json's own text ends with "at": it read "starting at at line 1"
            b'{"format": "attn_explorer.sess',
            "not valid JSON: Unterminated string starting at line 1, column 12 (the file ends",
        ),
        (
            b"{'format': 1}",
            "not valid JSON: Expecting property name enclosed in double quotes at line 1, column 2",
        ),
        (b'{\n "a": 1,\n "b" 2}', "at line 3, column 6"),
        (b"[1, 2]", "holds a list of 2 items, not a JSON object"),
        (b'"session"', 'holds the text "session", not a JSON object'),
        (nested, "nested too deeply"),
        (b"1" * 5000, "too many digits"),
        (b'{"x": NaN}', "contains NaN at line 1, column 7, and every value must be a finite"),
        (b'{"x": [1,\n  -Infinity]}', "contains -Infinity at line 2, column 3, and every"),
        (b'{"NaN": "I -Infinity",\n "x": NaN}', "contains NaN at line 2, column 7, and every"),
    ]


@pytest.mark.parametrize(("data", "phrase"), bad_bytes_cases())
def test_bad_bytes_are_refused(data, phrase, tmp_path):
    path = tmp_path / "session.json"
    path.write_bytes(data)
    message = refused(path)
    assert message.startswith("session.json ")
    assert phrase in message


def set_in(path: str, value):
    """A mutation: set doc[a][b]... (dots; integers index lists) to `value`."""

    def mutate(doc):
        *parents, last = path.split(".")
        target = doc
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value

    return mutate


def delete(path: str):
    def mutate(doc):
        *parents, last = path.split(".")
        target = doc
        for key in parents:
            target = target[key]
        del target[last]

    return mutate


def text_replace(old: str, new: str):
    """A mutation of the saved text, for what json.dumps would never write."""
    return ("text", old, new)


REJECTIONS = [
    # format and version
    (delete("format"), 'is not an attn_explorer session: it has no "format" field.'),
    (set_in("format", "other"), 'its "format" is the text "other", not "attn_explorer.session"'),
    (delete("version"), "has no format version"),
    (set_in("version", "1"), '"version" must be a whole number, not the text "1"'),
    (set_in("version", True), '"version" must be a whole number, not true'),
    (set_in("version", 1.0), '"version" must be a whole number, not 1.0'),
    (
        set_in("version", 5),
        "was saved by a newer attn_explorer (format 5); this one reads formats 1 to 4.",
    ),
    (set_in("version", 0), "has format version 0, which no attn_explorer wrote"),
    # structure
    (set_in("extra", 1), 'it has unknown field "extra"'),
    (delete("view"), "it lacks the field view"),
    (set_in("saved_by", 3), '"saved_by" must be text, not 3'),
    (
        text_replace('"version": 4', '"version": 4, "version": 5'),
        'is not a valid session: it has the field "version" more than once.',
    ),
    (
        text_replace('"seed": 123', '"seed": 5, "seed": 123'),
        'is not a valid session: controls has the field "seed" more than once.',
    ),
    (text_replace('"tokens": [', '"tokens": [], "tokens": ['), 'queries has the field "tokens"'),
    (set_in("queries", []), "queries must be an object, not a list of 0 items"),
    (set_in("kv", "none"), 'kv must be an object, not the text "none"'),
    # tokens and embeddings
    (set_in("queries.tokens", []), "queries.tokens is empty"),
    (set_in("queries.tokens", "abc"), 'queries.tokens must be a list of texts, not the text "abc"'),
    (set_in("queries.tokens.2", 5), "queries.tokens item 3 must be text, not 5"),
    (set_in("queries.tokens.0", None), "queries.tokens item 1 must be text, not null"),
    (set_in("queries.embeddings", {}), "queries.embeddings must be a list of rows"),
    (set_in("queries.embeddings.1", 0.5), "queries.embeddings row 2 must be a list of numbers"),
    (
        set_in("queries.embeddings.1", [0.5, 0.5]),
        'queries.embeddings row 2 ("Hành") has 2 numbers but row 1 has 3',
    ),
    (
        set_in("queries.embeddings.1.2", "0.5"),
        'row 2 ("Hành"), dimension 3 must be a number, not the text "0.5"',
    ),
    (set_in("queries.embeddings.0.0", True), "dimension 1 must be a number, not true"),
    (set_in("queries.embeddings.0.0", None), "dimension 1 must be a number, not null"),
    (set_in("queries.embeddings.3.1", 3.5e38), "dimension 2 is 3.5e+38, beyond the float32 range"),
    (set_in("queries.embeddings.3.1", -(10**400)), "is a number of about 400 digits, beyond"),
    (text_replace("0.52", "1e999"), "is an infinite number, beyond the float32 range"),
    (text_replace("0.52", "NaN"), "contains NaN at line 1, column "),  # after saved_by's
    (text_replace("0.52", "Infinity"), "contains Infinity at line 1, column "),  # version
    (set_in("queries.embeddings", [[0.1] * 3] * 3), "queries has 4 tokens but 3 embedding rows"),
    (
        set_in("queries.embeddings", [[], [], [], []]),
        "queries.embeddings rows are empty: they need at least one dimension",
    ),
    (
        set_in("queries", {"tokens": ["t"] * (MAX_TOKENS + 1), "embeddings": [[0]] * 4097}),
        "queries has 4097 tokens; the most the window holds is 4096",
    ),
    (
        set_in("queries", {"tokens": ["t"], "embeddings": [[0] * (MAX_DIMS + 1)]}),
        "queries.embeddings have 1025 dimensions; the most the window holds is 1024",
    ),
    (
        set_in("kv.embeddings", [[0.0, 1.0]] * 6),
        "the key/value embeddings (kv) have 2 dimensions but the query embeddings have 3",
    ),
    (set_in("kv.tokens", []), "kv.tokens is empty"),
    (set_in("kv.embeddings", [[0.1] * 3]), "kv has 6 tokens but 1 embedding row: each token"),
    (set_in("queries.embeddings.1", [0.5]), 'row 2 ("Hành") has 1 number but row 1 has 3'),
    (set_in("kv.embeddings", [[0.0]] * 6), "embeddings (kv) have 1 dimension but the query"),
    (delete("kv.embeddings"), "kv lacks the field embeddings"),
    # controls
    (set_in("controls.dropout", 0.95), "controls.dropout is 0.95, outside 0 to 0.9"),
    (set_in("controls.dropout", -0.1), "controls.dropout is -0.1, outside 0 to 0.9"),
    (set_in("controls.temperature", 0), "controls.temperature is 0, outside 0.01 to 100"),
    (set_in("controls.temperature", "hot"), "controls.temperature must be a number, not the text"),
    (set_in("controls.seed", 10_000), "controls.seed is 10000, outside 0 to 9999"),
    (set_in("controls.seed", 12.0), "controls.seed must be a whole number, not 12.0"),
    (set_in("controls.d_out", 0), "controls.d_out is 0, outside 1 to 64"),
    (set_in("controls.d_out", True), "controls.d_out must be a whole number, not true"),
    (set_in("controls.num_heads", 17), "controls.num_heads is 17, outside 1 to 16"),
    (set_in("controls.valid_len", 4097), "controls.valid_len is 4097, outside 1 to 4096"),
    (set_in("controls.causal", 1), "controls.causal must be true or false, not 1"),
    (set_in("controls.cross", "yes"), 'controls.cross must be true or false, not the text "yes"'),
    (
        set_in("controls.projection", "conv"),
        'controls.projection is the text "conv"; choose "none", "rand" or "linear"',
    ),
    (set_in("controls.head_layout", None), 'controls.head_layout is null; choose "stacked"'),
    (set_in("controls.mask_method", "zero"), 'choose "neg_inf" or "renormalize"'),
    (delete("controls.seed"), "controls lacks the field seed"),
    (set_in("controls", {}), "controls lacks the fields projection, d_out, num_heads"),
    (set_in("controls.colour", "red"), 'controls has unknown field "colour"'),
    (set_in("controls.line\u2028break\x85", 1), 'unknown field "line\\u2028break\\u0085"'),
    # view
    (set_in("view.tab", "heads"), 'view.tab is the text "heads"; choose "matrices" or "steps"'),
    (set_in("view.stage", "softmaxx"), 'view.stage is the text "softmaxx"; choose "embeddings"'),
    (set_in("view.head", 16), "view.head is 16, outside 0 to 15"),
    (set_in("view.head", -1), "view.head is -1, outside 0 to 15"),
    (set_in("view.head", 0.0), "view.head must be a whole number, not 0.0"),
    (set_in("view.query", 4), "view.query is 4, but the 4 query tokens are numbered 0 to 3"),
    (set_in("view.query", -1), "view.query is -1, but the 4 query tokens are numbered 0 to 3"),
    (set_in("view.heads_array", "context"), 'view.heads_array is the text "context"; choose'),
    (delete("view.heads_array"), "view lacks the field heads_array"),
    (set_in("view.scores_array", "weights"), 'view.scores_array is the text "weights"; choose'),
    (set_in("view.weights_array", "mask"), 'view.weights_array is the text "mask"; choose'),
    (set_in("view.all_heads", 1), "view.all_heads must be true or false, not 1"),
    (set_in("controls.dropout_seed", 10000), "controls.dropout_seed is 10000, outside 0 to 9999"),
    (set_in("controls.reseed_dropout", "yes"), "controls.reseed_dropout must be true or false"),
]


def test_a_session_saved_before_the_matrix_choices_opens_with_the_defaults(cross_doc):
    cross_doc["version"] = 1  # as the first release wrote it
    for name in ("scores_array", "weights_array", "all_heads"):
        del cross_doc["view"][name]
    view = document_to_state(cross_doc).view
    assert (view.scores_array, view.weights_array, view.all_heads) == (
        "masked_scores",
        "weights",
        False,
    )


def test_a_session_saved_before_the_dropout_seed_opens_without_reseeding(cross_doc):
    cross_doc["version"] = 2
    for name in ("reseed_dropout", "dropout_seed"):
        del cross_doc["controls"][name]
    state = document_to_state(cross_doc)
    assert (state.controls.reseed_dropout, state.controls.dropout_seed) == (False, 123)
    assert state.config().dropout_seed is None


def test_the_dropout_seed_is_saved_and_read_back(tmp_path):
    state = preset_state("dropout")
    assert (state.controls.reseed_dropout, state.controls.dropout_seed) == (True, 123)
    path = tmp_path / "s.json"
    save_session(path, state.with_controls(dropout_seed=7))
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert (doc["controls"]["reseed_dropout"], doc["controls"]["dropout_seed"]) == (True, 7)
    assert load_session(path).config().dropout_seed == 7
    # Switched off, the seed typed is kept but not used.
    save_session(path, state.with_controls(reseed_dropout=False, dropout_seed=7))
    loaded = load_session(path)
    assert (loaded.controls.dropout_seed, loaded.config().dropout_seed) == (7, None)


@pytest.mark.parametrize(
    ("version", "place"),
    [
        (3, "controls.reseed_dropout"),
        (3, "controls.dropout_seed"),
        (3, "view.all_heads"),
        (2, "view.scores_array"),
        (2, "view.weights_array"),
    ],
)
def test_a_field_its_format_always_wrote_is_required(cross_doc, version, place, tmp_path):
    """Format 3 always wrote the reseed controls, format 2 the matrix choices: a file of that
    format lacking one is damaged, and used to open with a default in its place."""
    cross_doc["version"] = version
    delete(place)(cross_doc)
    path = tmp_path / "session.json"
    path.write_text(json.dumps(cross_doc), encoding="utf-8")
    section, field = place.split(".")
    message = f"session.json is not a valid session: {section} lacks the field {field}."
    assert refused(path) == message


@pytest.mark.parametrize(("mutation", "phrase"), REJECTIONS)
def test_bad_sessions_are_refused_with_a_clear_line(cross_doc, mutation, phrase, tmp_path):
    if isinstance(mutation, tuple):
        _, old, new = mutation
        text = json.dumps(cross_doc)
        assert old in text
        text = text.replace(old, new, 1)
    else:
        mutation(cross_doc)
        text = json.dumps(cross_doc)
    path = tmp_path / "session.json"
    path.write_text(text, encoding="utf-8")
    message = refused(path)
    assert message.startswith("session.json ")
    assert phrase in message
    with pytest.raises(SessionError, match=r"^The text "):
        loads(text)


def test_a_missing_file_is_refused(tmp_path):
    message = refused(tmp_path / "gone.json")
    assert message == "gone.json cannot be read: No such file or directory."


def test_a_file_in_a_missing_folder_is_refused_naming_the_folder(tmp_path):
    """It said "No such file or directory", as if the file alone were missing."""
    message = refused(tmp_path / "week 3" / "l1.json")
    assert message == f"l1.json cannot be read: the folder {tmp_path}/week 3 does not exist."


def test_a_file_name_with_a_line_break_still_gives_one_line(tmp_path):
    message = refused(tmp_path / "two\nlines\u2028.json")
    assert message == "two lines .json cannot be read: No such file or directory."


def test_a_directory_is_refused(tmp_path):
    assert "cannot be read" in refused(tmp_path)


def test_a_huge_file_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.json"
    with open(path, "wb") as file:
        file.truncate(MAX_BYTES + 1)  # sparse: nothing written, but that is its size
    assert refused(path) == "huge.json is too big for a session (more than the 256 MB limit)."
    with open(path, "wb") as file:
        file.truncate(300 * 2**20)
    assert refused(path) == "huge.json is too big for a session (300.0 MB; the limit is 256 MB)."


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_pipe_is_refused_without_waiting_for_a_writer(tmp_path):
    pipe = tmp_path / "lesson.json"
    os.mkfifo(pipe)  # open() would block until something writes to it
    assert refused(pipe) == "lesson.json is not a session: it is not a regular file."


def test_a_session_too_big_to_load_back_is_not_saved(tmp_path, monkeypatch):
    """Full-precision 4096 x 1024 tables exceed the load limit: refuse to write them."""
    monkeypatch.setattr(session, "MAX_BYTES", 900)  # the cross preset takes 948 bytes
    path = tmp_path / "big.json"
    with pytest.raises(SessionError, match=r"^Cannot save big\.json: it would take 0\.0 MB"):
        save_session(path, preset_state("cross"))
    assert list(tmp_path.iterdir()) == []


def test_document_to_state_refuses_python_values_json_cannot_hold(cross_doc):
    cross_doc["queries"]["embeddings"][0][0] = math.nan
    with pytest.raises(SessionError, match="dimension 1 is NaN"):
        document_to_state(cross_doc)
    with pytest.raises(SessionError, match="holds tuple, not a JSON object"):
        document_to_state(())


def test_io_modules_pull_in_neither_qt_nor_torch():
    """Sessions and exports work headless, and opening a session costs no torch import."""
    code = (
        "import sys, attn_explorer.io.session, attn_explorer.io.data_export, "
        "attn_explorer.io.code_export; "
        "print(sorted(m for m in sys.modules "
        "if m.startswith(('PySide6', 'pyqtgraph', 'shiboken', 'torch'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------- properties

finite32 = st.floats(min_value=-FLOAT32_MAX, max_value=FLOAT32_MAX, allow_nan=False)


@st.composite
def sequences(draw, width: int) -> TokenSequence:
    n = draw(st.integers(1, 5))
    tokens = draw(st.lists(st.text(max_size=8), min_size=n, max_size=n))
    rows = draw(st.lists(st.tuples(*[finite32] * width), min_size=n, max_size=n))
    return TokenSequence(tuple(tokens), tuple(rows))


def _range(name: str, floats: bool = False):
    low, high = DECLARED[name].range
    if floats:  # as the controls hold them: the declared decimals
        return st.floats(low, high).map(lambda v: round(v, DECLARED[name].decimals))
    return st.integers(int(low), int(high))


@st.composite
def states(draw) -> ExplorerState:
    width = draw(st.integers(1, 4))
    queries = draw(sequences(width))
    controls = Controls(
        projection=draw(st.sampled_from(PROJECTIONS)),
        d_out=draw(_range("d_out")),
        num_heads=draw(_range("num_heads")),
        head_layout=draw(st.sampled_from(HEAD_LAYOUTS)),
        out_proj=draw(st.booleans()),
        qkv_bias=draw(st.booleans()),
        causal=draw(st.booleans()),
        mask_method=draw(st.sampled_from(MASK_METHODS)),
        padding=draw(st.booleans()),
        valid_len=draw(_range("valid_len")),
        scale=draw(st.booleans()),
        temperature=draw(_range("temperature", floats=True)),
        dropout=draw(_range("dropout", floats=True)),
        training=draw(st.booleans()),
        seed=draw(_range("seed")),
        cross=draw(st.booleans()),
    )
    view = ViewState(
        tab=draw(st.sampled_from(TABS)),
        head=draw(st.integers(0, 15)),
        query=draw(st.integers(0, len(queries.tokens) - 1)),
        stage=draw(st.sampled_from(STEP_KEYS)),
        heads_array=draw(st.sampled_from(HEADS_ARRAYS)),
        scores_array=draw(st.sampled_from(SCORES_ARRAYS)),
        weights_array=draw(st.sampled_from(WEIGHTS_ARRAYS)),
        all_heads=draw(st.booleans()),
    )
    kv = draw(st.none() | sequences(width))
    return ExplorerState(queries=queries, kv=kv, controls=controls, view=view)


@SETTINGS
@given(states())
def test_valid_states_round_trip_exactly(state):
    text = dumps(state)
    loaded = loads(text)
    assert loaded == state
    assert dumps(loaded) == text  # the very same floats (-0.0 included), not just equal ones


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def loads_or_refuses(text: str) -> None:
    """The contract of loading: a state, or SessionError with one line; nothing else."""
    try:
        state = loads(text)
    except SessionError as error:
        assert len(str(error).splitlines()) == 1
    else:
        assert isinstance(state, ExplorerState)
        assert loads(dumps(state)) == state


@SETTINGS
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_crash_loading(tmp_path_factory, data):
    path = tmp_path_factory.getbasetemp() / "fuzz.json"
    path.write_bytes(data)
    try:
        assert isinstance(load_session(path), ExplorerState)
    except SessionError as error:
        assert len(str(error).splitlines()) == 1


@SETTINGS
@given(json_values)
def test_arbitrary_json_never_crashes_loading(value):
    loads_or_refuses(json.dumps(value))
    with pytest.raises(SessionError):
        document_to_state(value)


def _paths(value, prefix=()):
    """Every place inside a document, as key/index paths."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


replacements = st.one_of(
    json_values,
    st.sampled_from([math.nan, math.inf, -math.inf, 10**400, True, 1, 1.5, -1, "", [], {}]),
)


@SETTINGS
@given(states(), st.data())
def test_mutated_documents_load_or_are_refused(state, data):
    doc = state_to_document(state)
    places = list(_paths(doc))[1:]
    place = data.draw(st.sampled_from(places))
    mutated = copy.deepcopy(doc)
    parent = mutated
    for key in place[:-1]:
        parent = parent[key]
    action = data.draw(st.sampled_from(["delete", "replace", "duplicate"]))
    if action == "delete":
        del parent[place[-1]]
    elif action == "replace":
        parent[place[-1]] = data.draw(replacements)
    elif isinstance(parent, list):
        parent.insert(place[-1], copy.deepcopy(parent[place[-1]]))
    else:
        parent[f"{place[-1]}_copy"] = copy.deepcopy(parent[place[-1]])
    text = json.dumps(mutated)  # NaN and Infinity become the literals Python's json accepts
    loads_or_refuses(text)
    loads_or_refuses(text[: data.draw(st.integers(0, len(text)))])  # cut short anywhere


@settings(max_examples=30, deadline=None)
@given(states())
def test_saved_files_load_back(tmp_path_factory, state):
    path = tmp_path_factory.getbasetemp() / "prop.json"
    save_session(path, state)
    assert load_session(path) == state


def test_clamping_leaves_the_callers_state_alone():
    state = ExplorerState(TokenSequence(("a", "b"), ((1.0,), (2.0,))), view=ViewState(query=3))
    assert state_to_document(state)["view"]["query"] == 1
    assert state.view.query == 3


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_saving_over_a_pipe_or_device_is_refused_not_replaced(tmp_path):
    """The rename put a plain file in place of whatever was there: a pipe, or (as root)
    /dev/full itself."""
    pipe = tmp_path / "lesson.json"
    os.mkfifo(pipe)
    with pytest.raises(SessionError) as caught:
        save_session(pipe, preset_state("v1"))
    assert str(caught.value) == (
        "Cannot save lesson.json: it is not a regular file (a device or a pipe)."
    )
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["lesson.json"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_session_is_not_replaced(existing):
    path = existing[0]
    path.chmod(0o444)
    with pytest.raises(SessionError, match=r"^Cannot save session\.json: Permission denied\.$"):
        save_session(path, preset_state("mha"))
    assert_untouched(existing)


def test_a_session_saved_before_the_mask_order_opens_scaling_first():
    """Format 3 had no mask_before_scaling: its sessions computed √d_k first, and still do,
    though the causal example now masks first."""
    doc = state_to_document(preset_state("causal"))
    doc["version"] = 3
    del doc["controls"]["mask_before_scaling"]
    state = document_to_state(doc)
    assert state.controls.mask_before_scaling is False
    trace = compute(state.config())
    assert tuple(step.key for step in trace.steps) == STEP_KEYS
    assert trace.info("masked_scores").symbol == "ω̃ₘ"
    assert f"{trace.masked_scores[0, 1, 0]:.4f}" == "0.3293"  # ω/√2, as before


def test_the_mask_order_is_saved_and_read_back(tmp_path):
    state = preset_state("causal")
    assert state.controls.mask_before_scaling is True
    path = tmp_path / "s.json"
    for on in (True, False):
        save_session(path, state.with_controls(mask_before_scaling=on))
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["controls"]["mask_before_scaling"] is on
        assert load_session(path).config().mask_first is on


def test_a_format_4_file_lacking_the_mask_order_is_refused(cross_doc, tmp_path):
    del cross_doc["controls"]["mask_before_scaling"]
    path = tmp_path / "session.json"
    path.write_text(json.dumps(cross_doc), encoding="utf-8")
    with pytest.raises(SessionError) as refusal:
        load_session(path)
    assert "controls lacks the field mask_before_scaling" in str(refusal.value)
