"""Mask method 1 as tutorial 000 computes it: softmax of the unmasked scaled scores, the hidden
weights zeroed, each row divided by its visible sum. The trace, its steps and its explanations
say so; method 2 (−∞, then softmax) is as it was."""

from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import compute, explain, preset
from attn_explorer.text.steps import step_text
from attn_explorer.text.titles import array_symbol, array_title


@pytest.fixture
def method_1():
    return compute(replace(preset("causal").config, mask_method="renormalize"))


@pytest.fixture
def method_2():
    """Method 2 in the order that scales first (the causal example masks first)."""
    return compute(replace(preset("causal").config, mask_before_scaling=False))


def test_method_1_feeds_softmax_the_unmasked_scaled_scores(method_1):
    np.testing.assert_array_equal(method_1.masked_scores, method_1.scaled_scores)
    assert np.isfinite(method_1.masked_scores).all()
    assert array_title(method_1.config, "masked_scores") == "Unmasked scores (method 1)"
    assert array_symbol(method_1.config, "masked_scores") == "ω̃"


def test_method_2_still_feeds_softmax_minus_infinity(method_2):
    assert np.isneginf(method_2.masked_scores[:, method_2.mask]).all()
    assert array_title(method_2.config, "masked_scores") == "Masked scores"
    assert "weights_unmasked" not in method_2 and "weights_zeroed" not in method_2
    assert "row_sums" not in method_2


def test_method_1_keeps_the_tutorials_intermediates(method_1):
    """softmax(ω̃) of journey's row is 0.20413, 0.16588, …; zeroed past key 2; sum 0.37001."""
    np.testing.assert_allclose(
        method_1.weights_unmasked[0, 1],
        [0.20413, 0.16588, 0.16621, 0.14958, 0.16645, 0.14775],
        atol=1e-5,
    )
    np.testing.assert_allclose(
        method_1.weights_zeroed[0, 1], [0.20413, 0.16588, 0, 0, 0, 0], atol=1e-5
    )
    assert (method_1.weights_zeroed[:, method_1.mask] == 0).all()
    assert method_1.row_sums.shape == (1, 6, 1)
    assert method_1.row_sums[0, 1, 0] == pytest.approx(0.37001, abs=1e-5)
    assert method_1.row_sums[0, 0, 0] == method_1.weights_unmasked[0, 0, 0]
    np.testing.assert_array_equal(method_1.weights, method_1.weights_zeroed / method_1.row_sums)
    assert method_1.axis_labels(method_1.info("row_sums").cols) == ("Σ visible",)


def test_the_tutorial_numbers_do_not_change(method_1, method_2):
    np.testing.assert_array_equal(method_1.weights_renormalize, method_2.weights_renormalize)
    np.testing.assert_array_equal(method_1.weights_neg_inf, method_2.weights_neg_inf)
    np.testing.assert_array_equal(method_1.context, method_1.concat)


def test_the_mask_step_of_method_1_does_not_write_minus_infinity(method_1, method_2):
    step = step_text(method_1.step("mask"))
    assert "−∞" not in step.formula and "−∞" not in step.formula_html
    assert step.formula.startswith("M[i,j] = 1 where key j is hidden (causal:")
    assert step.formula.endswith("; method 1 leaves ω̃ unmasked: softmax sees every score")
    method_2_mask = step_text(method_2.step("mask")).formula
    assert method_2_mask.startswith("ω̃ₘ[i,j] = −∞ where M[i,j], else ω̃[i,j]")


def test_the_softmax_step_of_method_1_names_its_three_steps(method_1, method_2):
    step = method_1.step("softmax")
    assert step_text(step).formula == (
        "α = softmax(ω̃) ⊙ (1 − M) / Σ_visible  (method 1: softmax of every score ω̃, "
        "the hidden weights zeroed, each row divided by its visible sum)"
    )
    assert step.reads == ("masked_scores",)
    assert {"weights_unmasked", "weights_zeroed", "row_sums", "weights"} <= set(step.writes)
    assert step_text(method_2.step("softmax")).formula.startswith("α[i,j] = exp(ω̃ₘ[i,j])")


def test_a_hidden_score_of_method_1_is_explained_as_fed_to_softmax(method_1, method_2):
    text = explain(method_1, "masked_scores", 0, 1, 3)
    assert "−∞" not in text and "exp(−∞)" not in text
    assert text.startswith(
        "ω̃[2,4] = 0.0183: fed to softmax as it is, though hidden, because key 4 comes after "
        "query 2 (causal mask)."
    )
    assert "softmax(ω̃)[2,4] = 0.1496 is then zeroed" in text
    assert explain(method_1, "masked_scores", 0, 1, 0).startswith(
        "ω̃[2,1] = 0.3293: fed to softmax as it is"
    )
    assert explain(method_2, "masked_scores", 0, 1, 3).startswith("ω̃ₘ[2,4] = −∞")


def test_method_1_intermediates_are_explained_with_their_numbers(method_1):
    unmasked = explain(method_1, "weights_unmasked", 0, 1, 0).replace("\u00a0", " ")
    assert unmasked.startswith("softmax(ω̃)[2,1] = exp(ω̃[2,1]) / Σⱼ' exp(ω̃[2,j']) = exp(0.3293)")
    assert unmasked.split("\n")[0].endswith("= 0.2041")
    assert "6 keys" in unmasked or unmasked.count("exp(") >= 7
    hidden = explain(method_1, "weights_zeroed", 0, 1, 3)
    assert hidden.startswith("softmax(ω̃)[2,4] × (1 − M[2,4]) = 0.14958 × 0 = 0: hidden")
    visible = explain(method_1, "weights_zeroed", 0, 1, 0)
    assert visible.startswith("softmax(ω̃)[2,1] × (1 − M[2,1]) = 0.20413 × 1 = 0.2041")
    sums = explain(method_1, "row_sums", 0, 1, 0)
    assert sums.startswith("Σ_visible[2] = 0.20413 + 0.16588 = 0.3700")
    weight = explain(method_1, "weights", 0, 1, 3)
    assert weight.startswith("α[2,4] = 0: hidden")
    assert "softmax gave it 0.1496, zeroed" in weight


def test_method_2_weights_are_explained_alike_in_a_method_1_trace(method_1, method_2):
    """The mask stage compares the methods: method 2's cells still add exp(−∞) = 0."""
    for j in (0, 1, 3):
        assert explain(method_1, "weights_neg_inf", 0, 1, j) == explain(
            method_2, "weights_neg_inf", 0, 1, j
        )
    assert "The 4 hidden keys add exp(−∞) = 0" in explain(method_1, "weights_neg_inf", 0, 1, 0)


def test_padding_with_method_1(journey):
    trace = compute(journey(seed=789, projection="linear", valid_len=4, mask_method="renormalize"))
    assert np.isfinite(trace.masked_scores).all()
    assert (trace.weights_zeroed[:, :, 4:] == 0).all()
    np.testing.assert_allclose(trace.row_sums[..., 0], trace.weights_unmasked[..., :4].sum(-1))
    text = explain(trace, "masked_scores", 0, 0, 5)
    assert "fed to softmax as it is, though hidden, because key 6 is padding" in text


def test_dropout_after_method_1_drops_the_renormalized_weights(journey):
    trace = compute(
        journey(seed=789, projection="linear", causal=True, mask_method="renormalize", dropout=0.5)
    )
    np.testing.assert_allclose(trace.weights, trace.weights_zeroed / trace.row_sums)
    np.testing.assert_array_equal(trace.weights_dropped, trace.weights * trace.dropout_keep * 2)
    assert array_title(trace.config, "weights") == "Weights before dropout"


def test_multi_head_method_1_keeps_every_heads_intermediates(journey):
    trace = compute(journey(seed=123, causal=True, mask_method="renormalize", d_out=4, num_heads=2))
    assert trace.weights_unmasked.shape == trace.weights_zeroed.shape == (2, 6, 6)
    assert trace.row_sums.shape == (2, 6, 1)
    np.testing.assert_allclose(trace.weights, trace.weights_zeroed / trace.row_sums)
    assert explain(trace, "row_sums", 1, 1, 0).endswith("(head 2 of 2)")
