"""Older session formats open with the fields they lacked at their defaults; a format that
always wrote a field is refused without it."""

import json

import pytest

from attn_explorer.engine import STEP_KEYS, compute
from attn_explorer.io.session import (
    SessionError,
    document_to_state,
    load_session,
    save_session,
    state_to_document,
)
from attn_explorer.text.titles import array_symbol
from tests.io.conftest import delete, preset_state, refused

# ---------------------------------------------------------------------------- formats


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
    assert array_symbol(trace.config, "masked_scores") == "ω̃ₘ"
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
