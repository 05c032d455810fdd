"""text.steps and text.titles write every stage's and every array's words from the engine's
structural facts: a reason exactly where a stage is skipped, for every skip code the engine
gives, and a symbol and title for every array the engine knows."""

import dataclasses

import pytest

from attn_explorer.engine import ARRAY_INFO, PRESETS, compute, preset
from attn_explorer.text.steps import step_text
from attn_explorer.text.titles import ARRAY_LABELS


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_stage_has_a_reason_exactly_where_it_is_skipped(name):
    trace = compute(PRESETS[name].config)
    for number, step in enumerate(trace.steps, start=1):
        text = step_text(step)
        assert bool(text.reason) == (not step.applies) == bool(step.skip)
        assert text.title.startswith(f"{number}. ")  # numbered in the order computed
        assert text.formula and text.formula_html


@pytest.mark.parametrize(
    ("changes", "key", "reason"),
    [
        ({"projection": "none"}, "projections", "No projection (projection 'none'): Q = K = V"),
        ({"scale": False}, "scale", "Not scaled: √d_k scaling is off and the temperature is 1."),
        ({}, "mask", "No mask: attention is not causal and there is no padding."),
        ({"dropout": 0.5, "training": False}, "dropout", "No dropout: evaluation mode"),
        ({}, "dropout", "No dropout: p = 0."),
        ({}, "concat", "One head: nothing to concatenate."),
        ({}, "out_proj", "No output projection (out_proj is off): out = Z_cat."),
    ],
)
def test_every_skip_code_has_its_reason(changes, key, reason):
    trace = compute(dataclasses.replace(preset("v2").config, **changes))
    assert step_text(trace.step(key)).reason.startswith(reason)


def test_every_array_has_a_symbol_and_a_title():
    assert list(ARRAY_LABELS) == list(ARRAY_INFO)
