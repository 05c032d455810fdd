"""Loading refuses every file that is not a session in one line a learner can act on: bad bytes,
bad JSON, a wrong field, a missing file, a folder, a pipe, a file too big."""

import codecs
import json
import math
import os
import subprocess
import sys

import pytest

from attn_explorer.io import session
from attn_explorer.io.session import (
    MAX_BYTES,
    SessionError,
    document_to_state,
    loads,
    save_session,
)
from attn_explorer.model.settings import MAX_DIMS, MAX_TOKENS
from tests.io.conftest import delete, preset_state, refused, set_in, text_replace

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


REJECTIONS = [
    # format and version
    (delete("format"), 'is not an attn_explorer session: it has no "format" field.'),
    (set_in("format", "other"), 'its "format" is the text "other", not "attn_explorer.session"'),
    (delete("version"), "has no format version"),
    (set_in("version", "1"), '"version" must be a whole number, not the text "1"'),
    (set_in("version", True), '"version" must be a whole number, not true'),
    (set_in("version", 1.0), '"version" must be a whole number, not 1.0'),
    (
        set_in("version", 6),
        "was saved by a newer attn_explorer (format 6); this one reads formats 1 to 5.",
    ),
    (set_in("version", 0), "has format version 0, which no attn_explorer wrote"),
    # structure
    (set_in("extra", 1), 'it has unknown field "extra"'),
    (delete("view"), "it lacks the field view"),
    (set_in("saved_by", 3), '"saved_by" must be text, not 3'),
    (
        text_replace('"version": 5', '"version": 5, "version": 6'),
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


def test_io_modules_pull_in_no_torch():
    """Opening a session or exporting costs no torch import (torch takes over a second to
    load). That they import no Qt is a contract in pyproject.toml, checked by `lint-imports`."""
    code = (
        "import sys, attn_explorer.io.session, attn_explorer.io.data_export, "
        "attn_explorer.io.code_export; "
        "print(sorted(m for m in sys.modules if m.startswith('torch')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("name", "shown", "reason"),
    [
        ("a\x00b.json", "a\\x00b.json", "its path holds \\x00 (a NUL character)"),
        pytest.param(
            "a\ud800b.json",
            "a\\ud800b.json",
            "its path holds \\ud800 (half of a UTF-16 pair)",
            marks=pytest.mark.skipif(os.name == "nt", reason="Windows names may hold one"),
        ),
    ],
)
def test_a_path_no_file_can_have_is_refused_as_a_session_error(tmp_path, name, shown, reason):
    """A NUL character or a lone surrogate in the path raised ValueError ("embedded null
    byte") or UnicodeEncodeError out of load_session and save_session, where every other
    bad path gives a SessionError."""
    path = tmp_path / name
    assert refused(path) == f"{shown} cannot be read: {reason}, which no path can."
    with pytest.raises(SessionError) as caught:
        save_session(path, preset_state("v1"))
    assert str(caught.value) == f"Cannot save {shown}: {reason}, which no path can."
    assert list(tmp_path.iterdir()) == []
