"""`seed_draws`: the seed matters exactly when changing it changes a number of the trace."""

import itertools
from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import PRESETS, compute

CASES = list(
    itertools.product(
        ("none", "rand", "linear"),  # projection
        (False, True),  # out_proj
        (0.0, 0.5),  # dropout
        (False, True),  # training
        (None, 7),  # dropout_seed
    )
)


@pytest.mark.parametrize(("projection", "out_proj", "dropout", "training", "dropout_seed"), CASES)
def test_the_seed_draws_exactly_when_it_changes_a_number(
    projection, out_proj, dropout, training, dropout_seed
):
    config = replace(
        PRESETS["causal"].config,
        projection=projection,
        out_proj=out_proj,
        dropout=dropout,
        training=training,
        dropout_seed=dropout_seed,
    )
    a, b = compute(replace(config, seed=1)), compute(replace(config, seed=2))
    differs = any(not np.array_equal(a[name], b[name]) for name in a.arrays)
    assert config.seed_draws == differs


def test_the_identity_examples_draw_nothing_from_the_seed():
    assert not PRESETS["happy"].config.seed_draws
    assert not PRESETS["simple"].config.seed_draws
    assert PRESETS["v1"].config.seed_draws and PRESETS["dropout"].config.seed_draws
