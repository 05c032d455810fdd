"""Every layer × head of a model as one picture: the model view's image and its export.

One RGB array holds all the maps, so the window draws the whole grid as a single image item
(a GPT-2 small at 512 tokens is 144 maps; 144 items would each cost a paint) and a click finds
its head by arithmetic. A map longer than `tile` tokens is pooled by block maxima, so a
previous-token diagonal one token wide stays visible at any length. The blocks are squares of
`block` = ⌈n / tile⌉ tokens from the first token (a map is then ⌈n / block⌉ cells wide, at
most `tile`), so a block's cells do not move when tokens are added at the end: after a causal
model reran only its new tokens (`lens.capture`), only the block rows from the first new token
on are pooled again (pooling 144 maps of 512 tokens took 0.3 s, most of such a rerun).

Each map is shaded against its own largest weight with a square root, as a head that spreads
its weight would otherwise look empty beside one that puts it all on one key.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

GAP = 4  # pixels between maps
# From the paper's white to the window's deep blue (the heatmaps' own colours are Qt's).
LOW = np.array([255, 255, 255], dtype=np.float32)
HIGH = np.array([8, 48, 107], dtype=np.float32)


@dataclass(frozen=True, eq=False)
class Grid:
    image: np.ndarray  # (height, width, 3) uint8, row 0 at the top
    layers: int
    heads: int
    tile: int
    maps: np.ndarray | None = None  # (layers, heads, t, t) float32, before shading
    block: int = 1  # tokens per cell side

    def head_at(self, x: float, y: float) -> tuple[int, int] | None:
        """The (layer, head), from 0, of the map under pixel (x, y) from the top left."""
        step = self.tile + GAP
        column, row = int(x // step), int(y // step)
        inside = x % step < self.tile and y % step < self.tile
        if inside and 0 <= row < self.layers and 0 <= column < self.heads:
            return row, column
        return None

    def origin(self, layer: int, head: int) -> tuple[int, int]:
        """The top-left pixel (x, y) of a map."""
        step = self.tile + GAP
        return head * step, layer * step


def pooled(
    weights: np.ndarray, tile: int, previous: Grid | None = None, keep: int = 0
) -> tuple[np.ndarray, int]:
    """(layers, heads, n, n) → ((layers, heads, t, t) float32, block), each cell its block's
    largest weight. `previous`: the grid of a run whose first `keep` rows these weights share,
    and whose rows hold nothing after their own token (causal), so its block rows that end
    before `keep` are copied. torch pools the float16 weights as they are (a maximum is exact
    in any precision; numpy's float16 reductions were slower still), a layer at a time."""
    layers, heads, n, _ = weights.shape
    block = -(-n // tile)
    if block == 1:
        return weights.astype(np.float32), 1
    t = -(-n // block)
    maps = np.empty((layers, heads, t, t), dtype=np.float32)
    first = 0
    if previous is not None and previous.maps is not None and previous.block == block:
        first = min(keep // block, previous.maps.shape[2], t)
        width = min(t, previous.maps.shape[3])
        maps[:, :, :first, :width] = previous.maps[:, :, :first, :width]
        maps[:, :, :first, width:] = 0
    if first < t:
        from attn_explorer.engine.threads import kernel_threads

        # One kernel thread: four small reductions a layer are over before a second thread
        # would pay, and with another program on a core each one's barrier spun (the grid of a
        # 512-token GPT-2 small took 1 s on two threads of a loaded machine, 60-90 ms on one).
        with kernel_threads(1):
            for layer in range(layers):
                rows = torch.from_numpy(weights[layer, :, first * block :])
                maps[layer, :, first:] = _block_maxima(rows, block, t).float().numpy()
    return maps, block


def _block_maxima(rows: torch.Tensor, block: int, t: int) -> torch.Tensor:
    """(heads, r, n) → (heads, ⌈r / block⌉, t): the largest weight of each block × block
    square, the last row and column of squares cut short where r or n is not a multiple.

    Two reductions, first over each block of rows (a maximum of whole contiguous rows, which
    vectorises), then over each block of keys in the 1/block as many rows left, and no padded
    copy: max_pool2d on the padded float16 maps took 4-5 times as long (230 ms of a GPT-2
    small's 512-token grid on one thread)."""
    heads, r, n = rows.shape
    full_rows, full_keys, height = r // block, n // block, -(-r // block)
    by_row = torch.empty(heads, height, n, dtype=rows.dtype)
    if full_rows:
        whole = rows[:, : full_rows * block].reshape(heads, full_rows, block, n)
        torch.amax(whole, 2, out=by_row[:, :full_rows])
    if full_rows < height:
        torch.amax(rows[:, full_rows * block :], 1, out=by_row[:, full_rows])
    out = torch.empty(heads, height, t, dtype=rows.dtype)
    if full_keys:
        whole = by_row[..., : full_keys * block].reshape(heads, height, full_keys, block)
        torch.amax(whole, -1, out=out[..., :full_keys])
    if full_keys < t:
        torch.amax(by_row[..., full_keys * block :], -1, out=out[..., full_keys])
    return out


def shade(maps: np.ndarray) -> np.ndarray:
    """(..., t, t) weights → (..., t, t, 3) colours, each map against its own largest weight,
    through a table of 256 colours (a third of the time of mixing the colours per cell)."""
    top = maps.max(axis=(-2, -1), keepdims=True)
    level = np.sqrt(maps / np.where(top > 0, top, np.float32(1)))
    index = (level * 255 + 0.5).astype(np.uint8)
    return np.take(_COLOURS, index, axis=0)


_COLOURS = (
    (LOW + (HIGH - LOW) * (np.arange(256, dtype=np.float32) / 255)[:, None])
    .round()
    .astype(np.uint8)
)


def grid(
    weights: np.ndarray,
    tile: int = 96,
    smallest: int = 48,
    previous: Grid | None = None,
    keep: int = 0,
) -> Grid:
    """The grid of (layers, heads, n, n) weights: layers down, heads across. A short text's
    maps are enlarged, each weight a square of pixels, to at least `smallest` pixels.
    `previous`, `keep`: see `pooled`."""
    layers, heads = weights.shape[:2]
    maps, block = pooled(weights, tile, previous, keep)
    size = maps.shape[-1]
    colours = shade(maps)  # (layers, heads, t, t, 3)
    if size < smallest:
        factor = -(-smallest // size)
        colours = colours.repeat(factor, axis=2).repeat(factor, axis=3)
        size *= factor
    step = size + GAP
    image = np.full((layers * step - GAP, heads * step - GAP, 3), 255, dtype=np.uint8)
    for layer in range(layers):
        for head in range(heads):
            y, x = layer * step, head * step
            image[y : y + size, x : x + size] = colours[layer, head]
    return Grid(image, layers, heads, size, maps, block)
