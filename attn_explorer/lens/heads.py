"""One head's arithmetic, recomputed in float32 from the rows its layer read and the layer's own
W_q, W_k, W_v: the numbers the lab shows for a real head, equal to the model's weights.

The recomputation is the model's eager attention for one head: Q = X W_q + b_q (and K, V),
scores Q Kᵀ, divided by √d_head (times the layer's temperature), the causal mask as −∞ for
GPT-2 (BERT reads a single unpadded sentence: nothing hidden), softmax, then weights @ V, the
head's output before the layer's output projection mixes the heads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from attn_explorer.lens.capture import ModelRun
from attn_explorer.lens.errors import LensError
from attn_explorer.text.i18n import _


@dataclass(frozen=True, eq=False)
class HeadArrays:
    layer: int  # from 0
    head: int  # from 0
    x: np.ndarray  # (n, d_model)
    w_query: np.ndarray  # (d_model, d_head)
    w_key: np.ndarray
    w_value: np.ndarray
    b_query: np.ndarray  # (d_head,)
    b_key: np.ndarray
    b_value: np.ndarray
    queries: np.ndarray  # (n, d_head)
    keys: np.ndarray
    values: np.ndarray
    scores: np.ndarray  # (n, n)
    mask: np.ndarray  # (n, n) bool, True where hidden
    weights: np.ndarray  # (n, n)
    output: np.ndarray  # (n, d_head)
    scale: bool
    temperature: float


def check_head(run: ModelRun, layer: int, head: int) -> None:
    """Refuse a layer or head (counted from 1, as the window counts) the model lacks."""
    loaded = run.loaded
    if not 1 <= layer <= loaded.layers:
        raise LensError(
            _("{name} has layers 1 to {layers}; there is no layer {layer}.").format(
                name=loaded.name, layers=loaded.layers, layer=layer
            ),
            2,
        )
    if not 1 <= head <= loaded.heads:
        raise LensError(
            _("{name} has heads 1 to {heads} in each layer; there is no head {head}.").format(
                name=loaded.name, heads=loaded.heads, head=head
            ),
            2,
        )


@torch.inference_mode()
def head_arrays(run: ModelRun, layer: int, head: int) -> HeadArrays:
    """The arrays of head `head` of layer `layer` (both from 0) for the run's text."""
    loaded = run.loaded
    w_q, w_k, w_v, b_q, b_k, b_v = loaded.head_weights(layer, head)
    x = torch.from_numpy(run.inputs[layer])
    q, k, v = (
        x @ torch.from_numpy(w) + torch.from_numpy(b)
        for w, b in ((w_q, b_q), (w_k, b_k), (w_v, b_v))
    )
    scale, temperature = loaded.scale_temperature(layer)
    divisor = (math.sqrt(loaded.d_head) if scale else 1.0) * temperature
    scores = q @ k.T
    n = run.n
    mask = (
        torch.ones(n, n, dtype=torch.bool).triu(1)
        if loaded.causal
        else torch.zeros(n, n, dtype=torch.bool)
    )
    weights = torch.softmax((scores / divisor).masked_fill(mask, -torch.inf), dim=-1)
    output = weights @ v
    return HeadArrays(
        layer,
        head,
        run.inputs[layer],
        w_q,
        w_k,
        w_v,
        b_q,
        b_k,
        b_v,
        q.numpy(),
        k.numpy(),
        v.numpy(),
        scores.numpy(),
        mask.numpy(),
        weights.numpy(),
        output.numpy(),
        scale,
        temperature,
    )
