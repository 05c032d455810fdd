"""The examples: each is found again by its settings, which is how the window names it."""

from dataclasses import replace

import pytest

from attn_explorer.engine import PRESETS, matching_preset
from attn_explorer.model.state import ExplorerState


@pytest.mark.parametrize("name", list(PRESETS))
def test_an_example_is_found_by_its_settings_alone(name):
    """What the window names as loaded: the one example computed so (an edit leaves it)."""
    example = PRESETS[name]
    assert matching_preset(example.config) is example
    # As the window's document holds it: switched-off controls kept, the view its own.
    assert matching_preset(ExplorerState.from_preset(example).config()) is example
    assert matching_preset(replace(example.config, temperature=0.5)) is None
    assert (
        matching_preset(replace(example.config, tokens=("edited", *example.config.tokens[1:])))
        is None
    )


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("happy", {"seed": 7}),  # nothing is drawn from it
        ("simple", {"training": False}),  # p = 0: nothing is dropped either way
        ("v1", {"qkv_bias": True, "mask_method": "renormalize"}),  # no nn.Linear, no mask
        ("causal", {"dropout": 0.5, "training": False, "dropout_seed": 3}),  # eval: no dropout
        ("happy", {"d_out": 5, "head_layout": "split"}),  # no projections to be wide
    ],
)
def test_a_setting_that_changes_nothing_keeps_the_example(name, changes):
    example = PRESETS[name]
    assert matching_preset(replace(example.config, **changes)) is example


@pytest.mark.parametrize(
    ("name", "changes"),
    [
        ("v1", {"seed": 124}),
        ("dropout", {"dropout_seed": 124}),
        ("causal", {"mask_method": "renormalize"}),  # the same weights, computed otherwise
        ("happy", {"out_proj": True}),
        ("mha", {"head_layout": "stacked"}),
    ],
)
def test_a_setting_that_changes_the_computation_leaves_the_example(name, changes):
    assert matching_preset(replace(PRESETS[name].config, **changes)) is None


def test_the_dropout_example_in_evaluation_mode_is_the_causal_one():
    """No dropout acts: what is computed is tutorial 000 §3.5.1's causal example, named so."""
    dropout = PRESETS["dropout"].config
    assert matching_preset(replace(dropout, training=False)) is PRESETS["causal"]
