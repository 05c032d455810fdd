"""Random parameters drawn exactly as the tutorials' modules draw them, without global RNG.

`torch.manual_seed(seed)` followed by building `SelfAttention_v1`, `CausalAttention`,
`MultiHeadAttentionWrapper` or `MultiHeadAttention` consumes the default CPU generator in a fixed
order: per head W_query, W_key, W_value (each `torch.rand`, or `nn.Linear` weight then bias), then
`out_proj`. A private `torch.Generator` seeded the same way and consumed in the same order gives
bit-identical numbers, so the engine can run on a worker thread while the UI or other code
uses torch's global generator. Draws depend only on the structural fields, so they are cached:
a slider move that changes the temperature or an embedding value does not redraw anything.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from dataclasses import dataclass, fields

import torch

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.given import GivenWeights


@dataclass(frozen=True, eq=False)
class Parameters:
    """Projection weights per head in `x @ W` orientation, plus the generator state after them.

    Weights are (heads, d_in, d_head) whatever the layout: a split layout's single
    (d_in, d_out) matrix is stored as its per-head column blocks. `rng_state` is where the
    dropout mask continues the random stream.
    """

    w_query: torch.Tensor | None  # (heads, d_in, d_head)
    w_key: torch.Tensor | None
    w_value: torch.Tensor | None
    b_query: torch.Tensor | None  # (heads, d_head)
    b_key: torch.Tensor | None
    b_value: torch.Tensor | None
    w_out: torch.Tensor | None  # (width, width)
    b_out: torch.Tensor | None  # (width,)
    rng_state: torch.Tensor

    def nbytes(self) -> int:
        tensors = (getattr(self, f.name) for f in fields(self))
        return sum(t.numel() * t.element_size() for t in tensors if t is not None)


# The cache is bounded by size, not by count: 64 entries are kilobytes at the tutorials' size
# but most of a gigabyte with 1024-wide embeddings and 16 heads. A slider that leaves the
# structure alone needs only the newest entry; 16 MB keeps hundreds at the tutorials' size.
CACHE_BYTES = 16 * 2**20
_cache: OrderedDict[tuple, Parameters] = OrderedDict()
_cache_bytes = 0
_cache_lock = threading.Lock()


def parameters_for(config: AttentionConfig) -> Parameters:
    """The parameters of a (valid) config, from the cache when its structure was seen before."""
    global _cache_bytes
    key = (
        config.seed,
        config.projection,
        config.d_in,
        config.d_out,
        config.heads,
        config.head_layout,
        config.out_proj,
        config.uses_bias,
        config.given if config.uses_given else None,
    )
    with _cache_lock:
        params = _cache.get(key)
        if params is not None:
            _cache.move_to_end(key)
            return params
    params = _draw(*key)
    size = params.nbytes()
    with _cache_lock:
        if key not in _cache:
            _cache[key] = params
            _cache_bytes += size
            # The newest entry always stays, however big: a slider that keeps the structure
            # (temperature, an embedding value) must not redraw the largest parameters.
            while _cache_bytes > CACHE_BYTES and len(_cache) > 1:
                _, oldest = _cache.popitem(last=False)
                _cache_bytes -= oldest.nbytes()
    return params


def cached_bytes() -> int:
    """Memory held by the parameter cache (for tests and the benchmark)."""
    return _cache_bytes


def _linear(
    gen: torch.Generator, d_in: int, d_out: int, bias: bool
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """`nn.Linear(d_in, d_out, bias)`'s initial weight (transposed to (d_in, d_out)) and bias."""
    weight = torch.empty(d_out, d_in)
    torch.nn.init.kaiming_uniform_(weight, a=math.sqrt(5), generator=gen)
    b = None
    if bias:
        bound = 1 / math.sqrt(d_in)
        b = torch.empty(d_out)
        torch.nn.init.uniform_(b, -bound, bound, generator=gen)
    return weight.T.contiguous(), b


def _projection(
    gen: torch.Generator, kind: str, d_in: int, d_out: int, bias: bool
) -> tuple[torch.Tensor, torch.Tensor | None]:
    if kind == "rand":
        return torch.rand(d_in, d_out, generator=gen), None
    return _linear(gen, d_in, d_out, bias)


def _draw(
    seed: int,
    projection: str,
    d_in: int,
    d_out: int,
    heads: int,
    layout: str,
    out_proj: bool,
    bias: bool,
    given: GivenWeights | None = None,
) -> Parameters:
    gen = torch.Generator().manual_seed(seed)
    drawn: dict[str, torch.Tensor | None] = dict.fromkeys(
        ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value", "w_out", "b_out")
    )
    if projection == "none":
        width = d_in
    elif layout == "stacked":
        # MultiHeadAttentionWrapper: head after head, each with its own W_query, W_key, W_value.
        per_head: dict[str, list] = {name: [] for name in drawn}
        for _ in range(heads):
            for role in ("query", "key", "value"):
                w, b = _projection(gen, projection, d_in, d_out, bias)
                per_head[f"w_{role}"].append(w)  # (d_in, d_out)
                per_head[f"b_{role}"].append(b)
        for role in ("query", "key", "value"):
            drawn[f"w_{role}"] = torch.stack(per_head[f"w_{role}"])  # (heads, d_in, d_out)
            if bias:
                drawn[f"b_{role}"] = torch.stack(per_head[f"b_{role}"])  # (heads, d_out)
        width = heads * d_out
    else:
        # MultiHeadAttention: one W of width d_out, its columns split into heads.
        d_head = d_out // heads
        for role in ("query", "key", "value"):
            w, b = _projection(gen, projection, d_in, d_out, bias)  # (d_in, d_out)
            drawn[f"w_{role}"] = w.reshape(d_in, heads, d_head).permute(1, 0, 2).contiguous()
            if b is not None:
                drawn[f"b_{role}"] = b.reshape(heads, d_head)
        width = d_out
    if given is not None:
        # A real head's weights replace the drawn ones, which were drawn all the same: the
        # output projection and the dropout mask then continue the stream as in the exported
        # script, which builds the module from the seed and then loads the given weights.
        for name, array in given.arrays().items():
            if name.startswith("w_") or bias:
                drawn[name] = (
                    torch.zeros(heads, given.d_head) if array is None else (torch.from_numpy(array))
                )
    if out_proj:
        drawn["w_out"], drawn["b_out"] = _linear(gen, width, width, bias=True)
    for tensor in drawn.values():
        if tensor is not None:
            tensor.requires_grad_(False)
    return Parameters(**drawn, rng_state=gen.get_state())


def dropout_keep(
    params: Parameters,
    p: float,
    heads: int,
    n_q: int,
    n_k: int,
    layout: str,
    seed: int | None = None,
) -> torch.Tensor:
    """The Bernoulli keep-mask (heads, n_q, n_k) that `nn.Dropout(p)` would draw next.

    Next after building the module, or after `torch.manual_seed(seed)` when a seed is given.
    The wrapper runs its heads one after another, each dropping on a (1, n_q, n_k) batch; the
    split module drops once on (1, heads, n_q, n_k). On CPU, `F.dropout` draws
    `empty_like(x).bernoulli_(1 - p)`; the shape of each call matters for the stream.
    """
    gen = torch.Generator()
    if seed is None:
        gen.set_state(params.rng_state)
    else:
        gen.manual_seed(seed)
    if layout == "split":
        keep = torch.empty(1, heads, n_q, n_k).bernoulli_(1 - p, generator=gen)[0]
    else:
        keep = torch.cat(
            [torch.empty(1, n_q, n_k).bernoulli_(1 - p, generator=gen) for _ in range(heads)]
        )
    return keep  # (heads, n_q, n_k), 1.0 = kept
