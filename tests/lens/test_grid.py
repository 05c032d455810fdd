"""The model view's one image: every map in its place, a one-token diagonal kept at any length."""

import numpy as np

from attn_explorer.lens.grid import GAP, HIGH, grid


def test_a_previous_token_diagonal_survives_pooling_and_a_click_finds_its_head():
    n = 300
    weights = np.full((2, 3, n, n), 1 / n, dtype=np.float16)
    weights[1, 2] = 0
    weights[1, 2][np.arange(1, n), np.arange(n - 1)] = 1  # layer 2, head 3: the token before
    model_grid = grid(weights, tile=96)
    assert (model_grid.block, model_grid.tile) == (4, 75)  # blocks of 4 tokens, 75 of them
    assert model_grid.image.shape == (2 * 75 + GAP, 3 * 75 + 2 * GAP, 3)
    x, y = model_grid.origin(1, 2)
    tile = model_grid.image[y : y + 75, x : x + 75]
    dark = np.all(tile == HIGH.astype(np.uint8), axis=-1)
    assert dark[np.arange(1, 75), np.arange(74)].all()  # the diagonal, one block below
    assert not dark[0, 74]
    assert model_grid.head_at(x + 10, y + 10) == (1, 2)
    assert model_grid.head_at(75 + GAP / 2, 5) is None  # in a gap


def test_a_short_texts_maps_are_enlarged():
    model_grid = grid(np.ones((1, 1, 4, 4), dtype=np.float16) / 4)
    assert model_grid.tile == 48


def _causal(n, seed=0):
    weights = np.random.default_rng(seed).random((2, 3, n, n)).astype(np.float16)
    weights[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] = 0
    return weights


def test_after_tokens_added_at_the_end_only_the_new_block_rows_are_pooled_again():
    """The pooled grid of a causal map extended at its end, from the previous grid, equals the
    grid pooled from scratch: for a block boundary crossed, a partial block, a map cut short."""
    for before, after in ((190, 200), (197, 199), (200, 192), (97, 98)):
        old, new = _causal(before), _causal(max(before, after))
        keep = min(before, after)
        new[..., :keep, :keep] = old[..., :keep, :keep]
        new = np.ascontiguousarray(new[..., :after, :after])
        previous = grid(old, tile=96)
        again = grid(new, tile=96, previous=previous, keep=keep)
        fresh = grid(new, tile=96)
        np.testing.assert_array_equal(again.maps, fresh.maps, err_msg=f"{before} → {after}")
        np.testing.assert_array_equal(again.image, fresh.image)


def test_each_cell_is_the_largest_weight_of_its_block_of_tokens():
    """Against the definition, one block at a time: whole blocks, and the short last row and
    column of blocks where the length is not a multiple of the block."""
    from attn_explorer.lens.grid import pooled

    for n in (97, 190, 301, 512):
        weights = np.random.default_rng(n).random((2, 3, n, n)).astype(np.float16)
        maps, block = pooled(weights, 96)
        t = -(-n // block)
        assert maps.shape == (2, 3, t, t) and maps.dtype == np.float32
        expected = np.empty_like(maps)
        for row in range(t):
            for column in range(t):
                square = weights[..., row * block : (row + 1) * block, column * block :][
                    ..., :block
                ]
                expected[..., row, column] = square.max(axis=(-2, -1))
        np.testing.assert_array_equal(maps, expected, err_msg=f"{n} tokens")
