"""Sessions: exact round trips of every preset, odd tokens and arbitrary valid states; arbitrary
bytes, JSON and mutated documents load or are refused, never crash."""

import copy
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from attn_explorer import __version__
from attn_explorer.engine import PRESETS, STEP_KEYS
from attn_explorer.engine.config import FLOAT32_MAX, HEAD_LAYOUTS, MASK_METHODS, PROJECTIONS
from attn_explorer.io.session import (
    SessionError,
    document_to_state,
    dumps,
    load_session,
    loads,
    save_session,
    state_to_document,
)
from attn_explorer.model.settings import SETTINGS as DECLARED
from attn_explorer.model.state import (
    Controls,
    ExplorerState,
    TokenSequence,
    ViewState,
)
from attn_explorer.model.views import HEADS_ARRAYS, SCORES_ARRAYS, TABS, WEIGHTS_ARRAYS
from tests.io.conftest import assert_same_trace, preset_state, save_and_load

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

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
    assert doc["version"] == 5
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
