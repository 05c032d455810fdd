"""A real head taken into the lab is saved with its weights and read back the same."""

import json
from dataclasses import replace

import pytest

from attn_explorer.engine import compute
from attn_explorer.engine.given import GivenWeights
from attn_explorer.io.session import SessionError, dumps, loads, state_to_document
from attn_explorer.model.state import ExplorerState, default_state

GIVEN = GivenWeights(
    w_query=[[[0.5, -1.0], [2.0, 0.25]]],
    w_key=[[[1.0, 0.0], [0.0, 1.0]]],
    w_value=[[[0.1, 0.2], [0.3, 0.4]]],
    b_query=[[0.01, -0.02]],
    b_key=[[0.0, 0.5]],
    b_value=[[1.0, 1.0]],
)


def _state() -> ExplorerState:
    state = default_state().with_controls(projection="linear", d_out=2, num_heads=1, qkv_bias=True)
    rows = tuple(row[:2] for row in state.queries.embeddings)
    return replace(state, queries=replace(state.queries, embeddings=rows), given=GIVEN)


def test_given_weights_round_trip_and_compute_the_same():
    state = _state()
    text = dumps(state)
    assert '"given"' in text and '"b_value"' in text
    back = loads(text)
    assert back.given == GIVEN and back == state
    assert (compute(back.config()).weights == compute(state.config()).weights).all()
    assert compute(state.config()).w_query[0].tolist() == [[0.5, -1.0], [2.0, 0.25]]


def test_a_session_without_given_weights_is_written_as_before():
    assert '"given"' not in dumps(default_state())


def test_given_weights_of_the_wrong_shape_are_refused_in_a_sentence():
    doc = state_to_document(_state())
    doc["given"]["w_key"] = [[[1.0]]]
    with pytest.raises(SessionError) as caught:
        loads(json.dumps(doc))
    assert "W_q, W_k and W_v as (heads, d_in, d_head) tables of numbers" in str(caught.value)
    doc["given"] = {"w_query": [], "w_key": [], "w_value": [], "extra": 1}
    with pytest.raises(SessionError, match="unknown field"):
        loads(json.dumps(doc))
