"""Every layer × head of a model as one picture: the model view's image and its export.

One RGB array holds all the maps, so the window draws the whole grid as a single image item
(a GPT-2 small at 512 tokens is 144 maps; 144 items would each cost a paint) and a click finds
its head by arithmetic. A map longer than `tile` tokens is pooled by block maxima, so a
previous-token diagonal one token wide stays visible at any length. Each map is shaded against
its own largest weight with a square root, as a head that spreads its weight would otherwise
look empty beside one that puts it all on one key.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

GAP = 4  # pixels between maps
# From the paper's white to the window's deep blue (the heatmaps' own colours are Qt's).
LOW = np.array([255, 255, 255], dtype=np.float32)
HIGH = np.array([8, 48, 107], dtype=np.float32)


@dataclass(frozen=True)
class Grid:
    image: np.ndarray  # (height, width, 3) uint8, row 0 at the top
    layers: int
    heads: int
    tile: int

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


def pooled(weights: np.ndarray, tile: int) -> np.ndarray:
    """(layers, heads, n, n) → (layers, heads, t, t) with t = min(n, tile), each cell its
    block's largest weight. torch pools the float16 weights as they are (a maximum is exact in
    any precision): numpy's float16 reductions took 0.8 s for a GPT-2 small at 512 tokens,
    and converting to float32 first doubled torch's time."""
    n = weights.shape[-1]
    if n <= tile:
        return weights.astype(np.float32)
    layers, heads = weights.shape[:2]
    maps = torch.from_numpy(weights).reshape(layers * heads, 1, n, n)
    out = torch.nn.functional.adaptive_max_pool2d(maps, tile)
    return out.reshape(layers, heads, tile, tile).float().numpy()


def shade(maps: np.ndarray) -> np.ndarray:
    """(..., t, t) weights → (..., t, t, 3) colours, each map against its own largest weight."""
    top = maps.max(axis=(-2, -1), keepdims=True)
    level = np.sqrt(maps / np.where(top > 0, top, 1))[..., None]
    return (LOW + (HIGH - LOW) * level).astype(np.uint8)


def grid(weights: np.ndarray, tile: int = 96, smallest: int = 48) -> Grid:
    """The grid of (layers, heads, n, n) weights: layers down, heads across. A short text's
    maps are enlarged, each weight a square of pixels, to at least `smallest` pixels."""
    layers, heads, n, _ = weights.shape
    size = min(n, tile)
    colours = shade(pooled(weights, size))  # (layers, heads, t, t, 3)
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
    return Grid(image, layers, heads, size)
