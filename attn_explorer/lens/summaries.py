"""What each head does, in a few numbers: so the heads that look at the previous token, at the
first token, or spread evenly stand out before any map is read.

Per head, each averaged over the queries:
- entropy, in bits: 0 when every query looks at one key, log2(keys seen) when it spreads evenly;
- look-back: the weighted mean of (query position − key position), how many tokens back a
  query looks (negative where a BERT head looks ahead);
- previous: the weight on the token just before (queries 2 onwards);
- first: the weight on the first token (GPT-2's heads park weight there; BERT's first is [CLS]).
Per layer, the mean of its heads' weights, as one map.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch


@dataclass(frozen=True, eq=False)
class HeadSummaries:
    entropy: np.ndarray  # (layers, heads)
    look_back: np.ndarray  # (layers, heads)
    previous: np.ndarray  # (layers, heads)
    first: np.ndarray  # (layers, heads)
    layer_mean: np.ndarray  # (layers, n, n) float32

    @classmethod
    def of(cls, layers: Sequence[tuple[torch.Tensor, ...]]) -> HeadSummaries:
        """From each layer's (entropy, look-back, previous, first, mean over heads)."""
        stacked = [torch.stack([part[i] for part in layers]).numpy() for i in range(5)]
        return cls(*stacked)


def layer_summary(weights: torch.Tensor) -> tuple[torch.Tensor, ...]:
    """(entropy, look-back, previous, first) per head of one layer's (heads, n, n) weights."""
    n = weights.shape[-1]
    logs = torch.where(weights > 0, weights.clamp_min(1e-30).log2(), 0.0)
    entropy = -(weights * logs).sum(-1).mean(-1)
    positions = torch.arange(n, dtype=weights.dtype)
    distance = positions[:, None] - positions[None, :]  # query − key
    look_back = (weights * distance).sum(-1).mean(-1)
    if n > 1:
        previous = weights.diagonal(offset=-1, dim1=-2, dim2=-1).mean(-1)
    else:
        previous = torch.zeros(weights.shape[0])
    first = weights[..., 0].mean(-1)
    return entropy, look_back, previous, first
