"""Long sequences: the causal product by blocks and the shared mask give the numbers of the
plain computation."""

import numpy as np
import pytest
import torch

from attn_explorer.engine import AttentionConfig, compute
from attn_explorer.engine.attention import (
    CAUSAL_BLOCK,
    NARROW_VALUES,
    _rows_tensor,
    _weighted_values,
)


def long_config(n: int, **fields) -> AttentionConfig:
    rng = np.random.default_rng(n)
    base = dict(
        tokens=tuple(f"t{i}" for i in range(n)),
        embeddings=rng.normal(size=(n, 8)).round(3),
        projection="linear",
        d_out=8,
        num_heads=2,
        seed=7,
    )
    base.update(fields)
    return AttentionConfig(**base)


@pytest.mark.parametrize(
    "fields",
    [
        {"causal": True},
        {"causal": True, "valid_len": 200},
        {"valid_len": 150},
        {"causal": True, "mask_method": "renormalize"},
        {"causal": True, "dropout": 0.3, "training": True},
        {"causal": True, "mask_before_scaling": True},
        {"causal": True, "head_layout": "split", "out_proj": True},
        {},  # no mask: narrow heads are still multiplied block by block, every key seen
        {"causal": True, "d_out": 32},  # heads wider than NARROW_VALUES: the plain product
        {"valid_len": 150, "d_out": 32},
    ],
)
def test_context_of_a_long_sequence_is_the_whole_product(fields):
    """Leaving out the keys a block of queries may not see changes no context value beyond
    float32's rounding: the weights it leaves out are exactly 0."""
    n = 2 * CAUSAL_BLOCK + 37  # blocks, and a last block shorter than the others
    trace = compute(long_config(n, **fields))
    hidden_weights = trace.weights_dropped[:, trace.mask]
    assert np.all(hidden_weights == 0)
    whole = trace.weights_dropped @ trace.values  # (heads, n, d_head), every key
    np.testing.assert_allclose(trace.head_contexts, whole, rtol=1e-5, atol=1e-6)
    d_out = fields.get("d_out", 8)
    d_head = d_out // 2 if fields.get("head_layout") else d_out
    assert trace.head_contexts.shape == (2, n, d_head)
    assert (d_head <= NARROW_VALUES) == (d_out <= 8)  # both ways of multiplying are checked


def test_a_row_that_sees_nothing_stays_nan_by_blocks():
    """A weight row of NaN (no visible key at all) gives a NaN context row, as the whole
    product does, and the rows around it keep their numbers."""
    n = 2 * CAUSAL_BLOCK
    weights = torch.softmax(torch.randn(1, n, n), dim=-1).tril()
    weights[0, 5] = torch.nan
    values = torch.randn(1, n, 3)
    blocks = _weighted_values(weights, values, causal=True, valid_len=None)
    assert torch.isnan(blocks[0, 5]).all()
    rows = torch.ones(n, dtype=torch.bool)
    rows[5] = False
    torch.testing.assert_close(blocks[0, rows], (weights @ values)[0, rows])


def test_each_size_and_mask_gets_its_own_mask():
    """The masks made once per size and kind are each config's own, one after another."""
    causal = np.triu(np.ones((300, 300), dtype=bool), k=1)
    first = compute(long_config(300, causal=True, seed=1))
    padded = compute(long_config(300, causal=True, valid_len=100))
    plain = compute(long_config(300))
    again = compute(long_config(300, causal=True, seed=2))
    np.testing.assert_array_equal(first.mask, causal)
    np.testing.assert_array_equal(padded.mask, causal | (np.arange(300) >= 100)[None, :])
    assert not plain.mask.any()
    np.testing.assert_array_equal(again.mask, causal)
    assert not np.shares_memory(first.mask, again.mask)  # a trace never shares another's
    # the weights follow each mask: hidden cells 0, each row summing to 1
    for trace in (first, padded, plain, again):
        assert np.all(trace.weights[:, trace.mask] == 0)
        np.testing.assert_allclose(trace.weights.sum(axis=-1), 1.0, rtol=1e-5)


def test_embeddings_become_the_same_float32_numbers_each_their_own():
    """The rows converted once are the numbers torch.tensor gives (beyond float32: ±inf,
    below it: 0); a trace never shares its x with another, and new rows are converted anew."""
    rows = ((0.1, 1e39, -1e39), (1e-46, 3.4e38, -0.3), (2.5, 7.0, 1 / 3))
    expected = torch.tensor(rows, dtype=torch.float32).numpy()
    np.testing.assert_array_equal(_rows_tensor(rows).numpy(), expected)
    again = _rows_tensor(tuple(tuple(row) for row in rows))  # equal rows, another tuple
    np.testing.assert_array_equal(again.numpy(), expected)
    one, two = compute(long_config(5)), compute(long_config(5, seed=8))
    np.testing.assert_array_equal(one.x, two.x)
    assert not np.shares_memory(one.x, two.x)
    values = np.arange(40.0).reshape(5, 8) / 7
    other = compute(long_config(5, embeddings=values))
    np.testing.assert_array_equal(other.x, values.astype(np.float32))
    assert one.x[0, 0] != other.x[0, 0]


def test_a_zero_typed_negative_reaches_the_trace_after_the_positive_one():
    """Tuples compare −0.0 equal to 0.0: the rows converted last are kept by identity, so a
    cell edited from 0 to "-0" is written −0.0000 in X, as its session and export say."""
    positive = compute(AttentionConfig(tokens=("a", "b"), embeddings=((0.0, 1.0), (1.0, 0.0))))
    negative = compute(AttentionConfig(tokens=("a", "b"), embeddings=((-0.0, 1.0), (1.0, 0.0))))
    assert not np.signbit(positive.x[0, 0])
    assert np.signbit(negative.x[0, 0])
