"""The model view's one image: every map in its place, a one-token diagonal kept at any length."""

import numpy as np

from attn_explorer.lens.grid import GAP, HIGH, grid


def test_a_previous_token_diagonal_survives_pooling_and_a_click_finds_its_head():
    n = 300
    weights = np.full((2, 3, n, n), 1 / n, dtype=np.float16)
    weights[1, 2] = 0
    weights[1, 2][np.arange(1, n), np.arange(n - 1)] = 1  # layer 2, head 3: the token before
    model_grid = grid(weights, tile=96)
    assert model_grid.tile == 96
    assert model_grid.image.shape == (2 * 96 + GAP, 3 * 96 + 2 * GAP, 3)
    x, y = model_grid.origin(1, 2)
    tile = model_grid.image[y : y + 96, x : x + 96]
    dark = np.all(tile == HIGH.astype(np.uint8), axis=-1)
    assert dark[np.arange(1, 96), np.arange(95)].all()  # the diagonal, one block below
    assert not dark[0, 95]
    assert model_grid.head_at(x + 10, y + 10) == (1, 2)
    assert model_grid.head_at(96 + GAP / 2, 5) is None  # in a gap


def test_a_short_texts_maps_are_enlarged():
    model_grid = grid(np.ones((1, 1, 4, 4), dtype=np.float16) / 4)
    assert model_grid.tile == 48
