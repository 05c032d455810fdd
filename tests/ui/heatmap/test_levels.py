"""`_same` decides whether a view is left alone on a move (no update, no repaint): its answer
must be `np.array_equal`'s, whichever rows its quick sample reads."""

import numpy as np
import pytest

from attn_explorer.ui.heatmap.levels import SAME_PROBE_ROWS, _same, display_grid


@pytest.fixture
def matrix():
    return np.random.default_rng(0).random((1024, 1024), dtype=np.float32)


def test_an_equal_copy_is_the_same(matrix):
    assert _same(matrix, matrix.copy())


@pytest.mark.parametrize("row", [0, 1, SAME_PROBE_ROWS, 1023])
def test_one_changed_cell_in_any_row_is_not_the_same(matrix, row):
    other = matrix.copy()
    other[row, 517] += 1
    assert not _same(matrix, other)


def test_nan_is_never_the_same_and_shapes_and_types_count(matrix):
    with_nan = matrix.copy()
    with_nan[5, 5] = np.nan
    assert not _same(with_nan, with_nan.copy())
    assert not _same(matrix, matrix[:-1])
    assert not _same(matrix, matrix.astype(np.float64))
    assert _same(None, None) and not _same(matrix, None)


def test_a_small_matrix_is_compared_whole():
    small = np.eye(6, dtype=np.float32)
    assert _same(small, small.copy())
    changed = small.copy()
    changed[3, 4] = 0.5
    assert not _same(small, changed)


def masked_scores(n: int = 1024) -> np.ndarray:
    scores = np.random.default_rng(1).normal(size=(n, n)).astype(np.float32)
    scores[np.triu_indices(n, 1)] = -np.inf  # a causal mask's −∞
    return scores


def test_masked_scores_pool_to_their_block_means():
    scores = masked_scores()
    pooled = display_grid(scores, "signed", infinite=True)
    assert pooled.shape == (512, 512) and pooled.dtype == np.float32
    blocks = scores.astype(np.float64).reshape(512, 2, 512, 2)
    with np.errstate(invalid="ignore"):
        means = blocks.mean(axis=(1, 3))
    assert np.array_equal(np.isneginf(pooled), np.isneginf(means))  # a block with −∞ is −∞
    finite = np.isfinite(means)
    np.testing.assert_allclose(pooled[finite], means[finite], rtol=1e-6, atol=1e-6)


def test_finite_blocks_that_overflow_float32_keep_their_mean():
    scores = masked_scores()
    scores[1000:1002, 0:2] = 3e38  # four cells of 3e38 sum beyond float32
    pooled = display_grid(scores, "signed", infinite=True)
    assert pooled[500, 0] == pytest.approx(3e38, rel=1e-6)
    assert np.isneginf(pooled[0, 400])
