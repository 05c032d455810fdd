"""A class's exercises (`engine.variants`): each its own seed and embeddings, in the ranges and
decimals of the original, decided by the seeds alone, never from a global random state."""

import numpy as np
import pytest
import torch

from attn_explorer.engine import compute, preset
from attn_explorer.engine.variants import variant, variant_seeds, variants
from attn_explorer.model.settings import SETTINGS


def test_the_same_seed_gives_the_same_exercise_and_others_differ():
    original = preset("v1").config
    made = variants(original, 5)
    assert made == variants(original, 5)  # the same command prints the same sheets
    assert len({v.seed for v in made}) == 5
    assert len({v.embeddings for v in made}) == 5
    assert original.seed not in {v.seed for v in made}
    # Exercise k is decided by its printed seed and the original alone.
    assert all(variant(original, v.seed) == v for v in made)
    # Fewer exercises are the first of more: adding a learner changes nobody's sheet.
    assert variants(original, 3) == made[:3]


def test_variant_seeds_fit_the_seed_box_so_a_session_and_set_seed_open_them():
    low, high = SETTINGS["seed"].range
    seeds = variant_seeds(123, 200)
    assert len(set(seeds)) == 200
    assert all(low <= s <= high for s in seeds)


def test_embeddings_are_drawn_in_the_originals_range_with_its_decimals():
    journey = preset("v1").config  # 0.05 to 0.89, hundredths
    for made in variants(journey, 20):
        values = np.array(made.embeddings)
        assert values.min() >= 0.05 and values.max() <= 0.89
        assert np.all(np.round(values, 2) == values)
        assert made.tokens == journey.tokens
        assert made.projection == journey.projection and made.causal == journey.causal
    happy = preset("happy").config  # 0.1 to 0.9, tenths
    for made in variants(happy, 20):
        values = np.array(made.embeddings)
        assert values.min() >= 0.1 and values.max() <= 0.9
        assert np.all(np.round(values, 1) == values)


def test_padding_rows_stay_zero_and_cross_attention_varies_both_tables():
    padded = variants(preset("padding").config, 3)
    for made in padded:
        assert made.embeddings[4:] == ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        assert made.valid_len == 4
    cross = preset("cross").config
    made = variants(cross, 2)[0]
    assert made.kv_tokens == cross.kv_tokens
    assert made.kv_embeddings != cross.kv_embeddings
    assert made.embeddings != cross.embeddings


def test_the_projections_are_those_of_the_new_seed():
    original = preset("v1").config
    made = variants(original, 1)[0]
    trace = compute(made)
    gen = torch.Generator().manual_seed(made.seed)
    expected = torch.rand(3, 2, generator=gen).numpy()  # W_query, as SelfAttention_v1 draws it
    assert np.array_equal(trace.w_query[0], expected)


def test_no_global_random_state_is_touched():
    torch.manual_seed(5)
    np.random.seed(5)
    before = torch.get_rng_state(), np.random.get_state()[1].copy()
    variants(preset("wrapper").config, 4)
    assert torch.equal(torch.get_rng_state(), before[0])
    assert np.array_equal(np.random.get_state()[1], before[1])


@pytest.mark.parametrize("name", ["simple", "causal", "dropout", "mha", "happy", "cross"])
def test_every_example_gives_computable_exercises(name):
    for made in variants(preset(name).config, 2):
        assert made.problems() == []
        compute(made)
