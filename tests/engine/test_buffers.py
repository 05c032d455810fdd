"""Big arrays are written again only once nothing can read the trace they belonged to."""

import gc
from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import AttentionConfig, ConfigError, compute
from attn_explorer.engine.buffers import MIN_POOLED_BYTES, BufferPool
from attn_explorer.engine.presets import JOURNEY


@pytest.fixture
def big():
    """2 heads × 512 × 512 float32 = 2 MB per score array: just big enough to be pooled."""
    rows = tuple(JOURNEY[i % len(JOURNEY)] for i in range(512))
    config = AttentionConfig(
        tokens=tuple(f"t{i}" for i in range(512)),
        embeddings=rows,
        num_heads=2,
        d_out=4,
        causal=True,
    )
    assert MIN_POOLED_BYTES <= 2 * 512 * 512 * 4
    return config


def assert_same_trace(trace, expected):
    assert trace.arrays.keys() == expected.arrays.keys()
    for name in expected.arrays:
        np.testing.assert_array_equal(trace[name], expected[name], err_msg=name)


def test_a_shown_trace_is_never_overwritten(big):
    pool = BufferPool()
    first = compute(big, pool=pool)
    second = compute(replace(big, seed=7), pool=pool)
    for a in first.arrays.values():
        for b in second.arrays.values():
            assert not np.shares_memory(a, b)
    assert_same_trace(first, compute(big))


def test_a_dropped_traces_arrays_are_reused_and_the_numbers_stay_right(big):
    pool = BufferPool()
    first = compute(big, pool=pool)
    compute(replace(big, seed=7), pool=pool)  # dropped at once
    del first
    gc.collect()
    before = pool.reused
    third = compute(replace(big, seed=8), pool=pool)
    # scores, scaled, masked and both masking methods' weights: all in memory already mapped
    assert pool.reused - before >= 5
    assert_same_trace(third, compute(replace(big, seed=8)))


def test_a_view_still_held_keeps_its_memory(big):
    pool = BufferPool()
    first = compute(big, pool=pool)
    row = first.weights[0, 3]  # a view that outlives its trace, as a drawn plot's matrix does
    kept = row.copy()
    del first
    gc.collect()
    for seed in range(3):
        compute(replace(big, seed=seed), pool=pool)
    np.testing.assert_array_equal(row, kept)


def test_every_masking_and_dropout_path_gives_the_unpooled_numbers(big):
    pool = BufferPool()
    for fields in (
        {},
        {"causal": False},
        {"mask_method": "renormalize"},
        {"dropout": 0.3, "training": True},
        {"temperature": 2.0},
    ):
        config = replace(big, **fields)
        # The first writes into the arrays the path before left (other numbers), the second
        # into its own: a third would be the second again.
        for _ in range(2):
            assert_same_trace(compute(config, pool=pool), compute(config))
    assert pool.reused > 0


def test_small_traces_are_not_pooled(journey):
    pool = BufferPool()
    for seed in range(3):
        compute(journey(seed=seed), pool=pool)
    assert pool.reused == 0
    assert pool.nbytes == 0


def test_a_failed_computation_leaves_the_pool_usable(big):
    pool = BufferPool()
    huge = replace(big, embeddings=tuple((3e38, 3e38, 3e38) for _ in range(512)))
    with pytest.raises(ConfigError):
        compute(huge, pool=pool)
    assert_same_trace(compute(big, pool=pool), compute(big))


def test_small_traces_after_big_ones_let_the_big_buffers_go(big, journey):
    """The window switched from 512 tokens to the tutorials' six: once the big traces are no
    longer shown, their memory is freed, though no small computation takes any of it."""
    pool = BufferPool()
    shown = compute(big, pool=pool)
    assert pool.nbytes >= MIN_POOLED_BYTES
    compute(journey(seed=1), pool=pool)
    assert pool.nbytes >= MIN_POOLED_BYTES  # the big trace is still on screen
    del shown
    gc.collect()
    compute(journey(seed=2), pool=pool)
    assert pool.nbytes == 0
