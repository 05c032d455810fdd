"""B − A of two traces: the difference of two `compute()` calls for every array, the first
stage whose arrays differ, and arrays of different shapes compared only where it means
something."""

from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import compute, preset
from attn_explorer.engine.compare import compare

V2 = preset("v2").config  # d_head 2: dividing by √d_k changes something
MHA = preset("mha").config

CHANGES = {
    "scale": (V2, dict(scale=False), "scale"),
    "temperature": (V2, dict(temperature=2.0), "scale"),
    "causal": (V2, dict(causal=True), "mask"),
    "seed": (MHA, dict(seed=7), "projections"),
    "ablate": (MHA, dict(ablate=(2,)), "concat"),
    "ablate_mean": (MHA, dict(ablate=(1,), ablate_mode="mean"), "concat"),
    "dropout": (MHA, dict(dropout=0.5), "dropout"),
    "embeddings": (V2, dict(embeddings=((0.5, 0.15, 0.89), *V2.embeddings[1:])), "embeddings"),
    "out_proj": (preset("wrapper").config, dict(out_proj=True), "out_proj"),
}


def expected_difference(a, b):
    """B − A as a learner would compute it, with two equal −∞ (a hidden score) making 0."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore"):
        return np.where(a == b, 0.0, b - a)


@pytest.mark.parametrize("change", CHANGES)
def test_b_minus_a_is_the_difference_of_two_computations_for_every_array(change):
    config, changes, _ = CHANGES[change]
    a, b = compute(config), compute(replace(config, **changes))
    found = compare(a, b)
    assert set(found.arrays) == set(a.arrays) | set(b.arrays)
    for name, diff in found.arrays.items():
        if name in a and name in b and a[name].shape == b[name].shape:
            np.testing.assert_array_equal(diff.diff, expected_difference(a[name], b[name]), name)
            assert diff.differs == (not np.array_equal(a[name], b[name])), name
        else:
            assert diff.status in ("only_a", "only_b"), name


@pytest.mark.parametrize("change", CHANGES)
def test_the_stage_marked_first_is_the_first_whose_arrays_differ(change):
    config, changes, first = CHANGES[change]
    a, b = compute(config), compute(replace(config, **changes))
    found = compare(a, b)
    assert found.first_stage == first
    for step in b.steps:  # every stage before it reads and writes what A's did
        if step.key == first:
            break
        for name in (*step.reads, *step.writes):
            assert name in a and np.array_equal(a[name], b[name]), (step.key, name)


def test_turning_off_the_scaling_changes_the_scale_first_and_the_weights_sharpness_after():
    a, b = compute(V2), compute(replace(V2, scale=False))
    found = compare(a, b)
    assert found.first_stage == "scale"
    assert not found["scores"].differs and found["scaled_scores"].differs
    # Unscaled, the largest weight of a row grows: sharper.
    assert b.weights.max(axis=-1).mean() > a.weights.max(axis=-1).mean()


def test_the_same_config_differs_nowhere():
    found = compare(compute(MHA), compute(MHA))
    assert found.same and found.first_stage is None and found.settings == ()


def test_a_different_d_out_is_not_comparable_where_the_dimensions_differ():
    found = compare(compute(MHA), compute(replace(MHA, d_out=4)))
    assert found.settings == ("d_out",)
    for name in ("queries", "keys", "values", "head_contexts", "concat", "context", "w_out"):
        assert found[name].status == "not_comparable" and found[name].diff is None, name
    # The scores are tokens × tokens in both: compared.
    assert found["scores"].status == "differs" and found["scores"].diff.shape == (2, 6, 6)


def test_fewer_tokens_are_compared_on_the_tokens_both_have():
    fewer = replace(MHA, tokens=MHA.tokens[:4], embeddings=MHA.embeddings[:4])
    found = compare(compute(MHA), compute(fewer))
    assert found.first_stage == "embeddings"
    assert found["weights"].status == "shared" and found["weights"].diff.shape == (2, 4, 4)
    assert found["x"].diff.shape == (4, 3) and not found["x"].diff.any()
    # Causal: the first four tokens see only each other in both, so their weights agree.
    np.testing.assert_allclose(found["weights"].diff, 0, atol=1e-6)


def test_a_score_hidden_on_one_side_only_is_an_infinite_difference_and_not_the_largest():
    found = compare(compute(V2), compute(replace(V2, causal=True)))
    masked = found["masked_scores"]
    assert masked.hidden == 15 and np.isneginf(masked.diff).sum() == 15
    assert masked.where is None or np.isfinite(masked.largest)
    weights = found["weights"]
    assert weights.where is not None and weights.largest == weights.diff[weights.where]
    assert abs(weights.largest) == np.abs(weights.diff).max()
