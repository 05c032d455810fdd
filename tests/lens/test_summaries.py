"""The per-head numbers computed per query row equal their definitions computed directly."""

import numpy as np
import torch

from attn_explorer.lens.summaries import layer_summary, row_stats


def _direct(weights: torch.Tensor) -> list[np.ndarray]:
    n = weights.shape[-1]
    logs = torch.where(weights > 0, weights.clamp_min(1e-30).log2(), 0.0)
    positions = torch.arange(n, dtype=weights.dtype)
    distance = positions[:, None] - positions[None, :]
    return [
        (-(weights * logs).sum(-1).mean(-1)).numpy(),
        (weights * distance).sum(-1).mean(-1).numpy(),
        weights.diagonal(offset=-1, dim1=-2, dim2=-1).mean(-1).numpy(),
        weights[..., 0].mean(-1).numpy(),
    ]


def test_row_numbers_averaged_are_the_definitions():
    torch.manual_seed(0)
    scores = torch.randn(4, 9, 9).masked_fill(
        torch.ones(9, 9, dtype=torch.bool).triu(1), -torch.inf
    )
    weights = torch.softmax(scores, -1)  # causal: zeros above the diagonal, 0·log 0 counted 0
    for mine, direct in zip(layer_summary(weights), _direct(weights), strict=True):
        np.testing.assert_allclose(mine.numpy(), direct, atol=1e-5)


def test_rows_of_a_later_block_are_counted_from_their_own_positions():
    weights = torch.softmax(torch.randn(2, 7, 7), -1)
    whole = row_stats(weights)
    np.testing.assert_allclose(row_stats(weights[:, 3:], start=3), whole[..., 3:], atol=1e-6)
