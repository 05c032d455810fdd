"""Tutorial 000's order, mask then scale: `masked = attn_scores.masked_fill(mask.bool(), -inf)`
printed, then `softmax(masked / keys.shape[-1]**0.5)`. The trace holds the printed matrix, the
stages follow that order, and the weights are those of the other order, bit for bit."""

from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import PRESETS, compute, explain, matching_preset, preset
from attn_explorer.engine.steps import STEP_KEYS, step_keys
from attn_explorer.text.steps import step_text
from attn_explorer.text.titles import array_symbol, array_title

NEG = -np.inf
# print(masked) in tutorial 000 §3.5.1 (seed 789, method 2).
TUTORIAL_MASKED = [
    [0.2899, NEG, NEG, NEG, NEG, NEG],
    [0.4656, 0.1723, NEG, NEG, NEG, NEG],
    [0.4594, 0.1703, 0.1731, NEG, NEG, NEG],
    [0.2642, 0.1024, 0.1036, 0.0186, NEG, NEG],
    [0.2183, 0.0874, 0.0882, 0.0177, 0.0786, NEG],
    [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078],
]
TUTORIAL_000 = ("causal", "dropout", "causal-class", "wrapper", "mha")


def test_the_causal_example_holds_the_tutorials_printed_masked_matrix():
    trace = compute(preset("causal").config)
    assert trace.config.mask_first
    shown = [[f"{v:.4f}" for v in row] for row in trace.masked_scores[0].tolist()]
    assert shown == [[f"{v:.4f}" for v in row] for row in TUTORIAL_MASKED]
    assert array_symbol(trace.config, "masked_scores") == "ωₘ"
    # What softmax reads: the masked scores divided by √2, −∞ staying −∞.
    assert trace.softmax_input == "scaled_scores"
    assert trace.scaled_scores[0, 1, 0] == pytest.approx(0.4656 / 2**0.5, abs=1e-4)
    assert np.isneginf(trace.scaled_scores[0][trace.mask]).all()
    assert array_symbol(trace.config, "scaled_scores") == "ω̃ₘ"


@pytest.mark.parametrize("name", [*TUTORIAL_000, "padding"])
def test_the_weights_do_not_change_with_the_order(name):
    config = preset(name).config
    for compare in (True, False):
        first = compute(replace(config, mask_before_scaling=True), compare_mask_methods=compare)
        after = compute(replace(config, mask_before_scaling=False), compare_mask_methods=compare)
        for array in ("weights", "weights_dropped", "context"):
            np.testing.assert_array_equal(first[array], after[array])
        if compare:
            for array in ("weights_neg_inf", "weights_renormalize"):
                np.testing.assert_array_equal(first[array], after[array])


def test_the_tutorial_000_examples_mask_first_and_the_d2l_ones_scale_first():
    for name, example in PRESETS.items():
        assert example.config.mask_before_scaling == (name in TUTORIAL_000), name
        assert matching_preset(example.config) is example


def test_the_stages_follow_the_order_of_the_computation():
    trace = compute(preset("causal-class").config)
    assert step_keys(trace.config)[2:6] == ("scores", "mask", "scale", "softmax")
    assert tuple(s.key for s in trace.steps) == step_keys(trace.config)
    mask, scale, softmax = trace.step("mask"), trace.step("scale"), trace.step("softmax")
    assert (step_text(mask).title, step_text(scale).title) == ("4. Mask", "5. Scaled scores")
    assert mask.reads == ("scores", "mask") and mask.writes == ("masked_scores",)
    assert scale.reads == ("masked_scores",) and scale.writes == ("scaled_scores",)
    assert softmax.reads == ("scaled_scores",)
    assert step_text(mask).formula.startswith("ωₘ[i,j] = −∞ where M[i,j], else ω[i,j]")
    assert step_text(scale).formula == "ω̃ₘ = ωₘ / √d_k,  √d_k = √2  (−∞ / √d_k = −∞)"
    other = compute(replace(trace.config, mask_before_scaling=False))
    assert tuple(s.key for s in other.steps) == STEP_KEYS


def test_each_cell_is_explained_in_the_order_it_was_computed():
    trace = compute(preset("causal").config)
    assert explain(trace, "masked_scores", 0, 1, 0).startswith(
        "ωₘ[2,1] = ω[2,1] = 0.4656 (visible)."
    )
    assert explain(trace, "masked_scores", 0, 0, 1).startswith("ωₘ[1,2] = −∞: hidden, because")
    assert explain(trace, "scaled_scores", 0, 0, 1).startswith(
        "ω̃ₘ[1,2] = ωₘ[1,2] / √2 = −∞ / √2 = −∞"
    )
    assert explain(trace, "scaled_scores", 0, 1, 0).startswith(
        "ω̃ₘ[2,1] = ωₘ[2,1] / √2 = 0.46564 / 1.4142 = 0.3293"
    )
    weight = explain(trace, "weights", 0, 1, 0).replace("\u00a0", " ")
    assert weight.startswith("α[2,1] = exp(ω̃ₘ[2,1])")
    assert "exp(0.3293) / (exp(0.3293) + exp(0.1218))" in weight
    # Method 1 of the comparison divides the unmasked scores itself.
    assert "0.20413 / 0.37001 = 0.5517" in explain(trace, "weights_renormalize", 0, 1, 0)


@pytest.mark.parametrize(
    "changes",
    [
        {"causal": False},  # no mask
        {"mask_method": "renormalize"},  # method 1 masks softmax's output
        {"scale": False},  # nothing divides the scores
    ],
)
def test_the_order_changes_nothing_where_it_is_no_choice(changes):
    config = replace(preset("causal").config, **changes)
    assert config.mask_before_scaling and not config.mask_first
    trace = compute(config)
    assert tuple(s.key for s in trace.steps) == STEP_KEYS
    assert trace.softmax_input == "masked_scores"
    reference = compute(replace(config, mask_before_scaling=False))
    for name in reference.names:
        np.testing.assert_array_equal(trace[name], reference[name])


def test_a_temperature_alone_divides_the_masked_scores():
    trace = compute(replace(preset("causal").config, scale=False, temperature=2.0))
    assert trace.config.mask_first
    assert array_title(trace.config, "scaled_scores") == "Masked scores ÷ temperature"
    assert explain(trace, "scaled_scores", 0, 0, 1).startswith("ω̃ₘ[1,2] = ωₘ[1,2] / 2 = −∞ / 2")
