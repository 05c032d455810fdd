"""Sessions save the heads switched off and what is pinned as A, and read older formats with
every head on and nothing pinned."""

import json
from dataclasses import replace

import pytest

from attn_explorer.engine import preset
from attn_explorer.io.session import (
    SessionError,
    document_to_state,
    dumps,
    loads,
    state_to_document,
)
from attn_explorer.model.state import ExplorerState, default_state


def _mha() -> ExplorerState:
    return ExplorerState.from_preset(preset("mha"))


def test_switched_off_heads_and_a_pinned_a_round_trip():
    pinned = ExplorerState.from_preset(preset("cross"))
    state = replace(_mha().with_controls(ablate=(2,), ablate_mode="mean"), pinned=pinned)
    text = dumps(state)
    doc = json.loads(text)
    assert doc["controls"]["ablate"] == [2] and doc["controls"]["ablate_mode"] == "mean"
    assert doc["pinned"]["queries"]["tokens"] == ["<bos>", "Hành", "trình", "của"]
    back = loads(text)
    assert back == state
    assert back.config().ablate == (2,) and back.pinned.config() == pinned.config()


def test_nothing_pinned_writes_no_pinned_field():
    assert "pinned" not in state_to_document(_mha())


def test_a_format_4_session_has_every_head_on():
    doc = state_to_document(_mha())
    doc["version"] = 4
    del doc["controls"]["ablate"], doc["controls"]["ablate_mode"]
    state = document_to_state(doc)
    assert state.controls.ablate == () and state.controls.ablate_mode == "zeros"


def test_a_head_beyond_the_heads_is_kept_and_switches_nothing_off():
    """Fewer heads and back loses nothing, as the window keeps it."""
    state = loads(dumps(_mha().with_controls(ablate=(2, 4))))
    assert state.controls.ablate == (2, 4) and state.config().ablate == (2,)


@pytest.mark.parametrize(
    ("value", "said"),
    [
        ("2", 'controls.ablate must be a list of whole numbers, not the text "2".'),
        ([0], "controls.ablate[0] is 0, outside 1 to 16."),
        ([2, True], "controls.ablate[1] must be a whole number, not true."),
    ],
)
def test_bad_heads_are_refused_in_a_line(value, said):
    doc = state_to_document(default_state())
    doc["controls"]["ablate"] = value
    with pytest.raises(SessionError) as caught:
        document_to_state(doc, name="s.json")
    assert str(caught.value) == f"s.json is not a valid session: {said}"


def test_a_bad_pinned_a_is_named(vietnamese):
    doc = state_to_document(replace(_mha(), pinned=_mha()))
    doc["pinned"]["controls"]["d_out"] = 0
    with pytest.raises(SessionError) as caught:
        document_to_state(doc, name="s.json")
    assert "pinned.controls.d_out" in str(caught.value)
    assert "nằm ngoài" in str(caught.value) or "ngoài" in str(caught.value)
