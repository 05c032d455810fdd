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

import functools
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

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
        tensors = (self.w_query, self.w_key, self.w_value, self.b_query, self.b_key)
        tensors += (self.b_value, self.w_out, self.b_out, self.rng_state)
        return sum([t.nbytes for t in tensors if t is not None])


# The cache is bounded by size: 64 entries are kilobytes at the tutorials' size but most of a
# gigabyte with 1024-wide embeddings and 16 heads. A slider that leaves the structure alone
# needs only the newest entry. It is bounded by count too: at the tutorials' size 16 MB held
# 3,226 entries (the generator's 5 KB state each), 22,000 objects more for Python's collector
# to walk, and while it filled, every seed move left objects behind that forced collections:
# 31 young, 3 middle and one full one of 91 ms in 6,000 moves, against one young one with
# 64 entries at most.
CACHE_BYTES = 16 * 2**20
CACHE_ENTRIES = 64
_cache: OrderedDict[tuple, tuple[Parameters, int]] = OrderedDict()  # with its size
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
        entry = _cache.get(key)
        if entry is not None:
            _cache.move_to_end(key)
            return entry[0]
    params = _draw(*key)
    size = params.nbytes()
    with _cache_lock:
        if key not in _cache:
            _cache[key] = (params, size)
            _cache_bytes += size
            # The newest entry always stays, however big: a slider that keeps the structure
            # (temperature, an embedding value) must not redraw the largest parameters.
            while (_cache_bytes > CACHE_BYTES or len(_cache) > CACHE_ENTRIES) and len(_cache) > 1:
                _, (_, oldest) = _cache.popitem(last=False)
                _cache_bytes -= oldest
    return params


def cached_bytes() -> int:
    """Memory held by the parameter cache (for tests and the benchmark)."""
    return _cache_bytes


@functools.cache  # the same few widths at every seed
def _linear_bounds(fan_in: int) -> tuple[float, float]:
    """The uniform bounds `nn.Linear(fan_in, ...)` draws its weight and its bias from.

    The weight's is `nn.init.kaiming_uniform_(weight, a=math.sqrt(5))`'s, computed with the
    same float operations: gain √(2 / (1 + a²)), std gain / √fan_in, bound √3 · std. The
    bias's is 1 / √fan_in. (The two are equal in exact arithmetic, not always in floats.)
    """
    a = math.sqrt(5)
    gain = math.sqrt(2.0 / (1 + a**2))
    std = gain / math.sqrt(fan_in)
    return math.sqrt(3.0) * std, 1 / math.sqrt(fan_in)


class _Stream:
    """The generator's numbers in the order the tutorials' modules draw them, as one buffer.

    `torch.rand(shape)` is `uniform_(0, 1)` of a new tensor, and `nn.Linear`'s
    initialisation `uniform_(-bound, bound)` of its weight, then of its bias. On the CPU,
    `uniform_` draws one number per element, in memory order: drawing a run of tensors with
    the same bounds as one contiguous block consumes the generator exactly as drawing them
    one by one, and gives the same float32 numbers (the tests compare with the modules
    themselves). A draw through `nn.init` cost some 10 µs of Python each, 3 × heads of them
    at every seed a learner types; a block is one call.
    """

    def __init__(self) -> None:
        self.runs: list[tuple[int, float, float]] = []  # (numbers, low, high), in order
        self.size = 0

    def add(self, numel: int, low: float, high: float) -> int:
        """Reserve the next `numel` numbers, uniform in [low, high); returns their offset."""
        offset = self.size
        if self.runs and self.runs[-1][1:] == (low, high):
            count = self.runs[-1][0]
            self.runs[-1] = (count + numel, low, high)
        else:
            self.runs.append((numel, low, high))
        self.size += numel
        return offset

    def draw(self, gen: torch.Generator) -> torch.Tensor:
        flat = torch.empty(self.size)
        if len(self.runs) == 1:  # the usual case: no biases, no output projection
            _, low, high = self.runs[0]
            return flat.uniform_(low, high, generator=gen)
        at = 0
        for numel, low, high in self.runs:
            flat[at : at + numel].uniform_(low, high, generator=gen)
            at += numel
        return flat


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
    drawn: dict[str, torch.Tensor | None] = dict.fromkeys(
        ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value", "w_out", "b_out")
    )
    stream = _Stream()
    # The projections: per head W_query, W_key, W_value (MultiHeadAttentionWrapper, head after
    # head, `blocks` = heads), or one of each of width d_out split into heads afterwards
    # (MultiHeadAttention, one block). Each is `torch.rand(d_in, d_out)` ("rand") or an
    # `nn.Linear(d_in, d_out)`: its (d_out, d_in) weight, then its bias.
    blocks = heads if layout == "stacked" else 1
    weight, bias_size = d_in * d_out, d_out if bias and projection == "linear" else 0
    if projection == "rand":
        stream.add(blocks * 3 * weight, 0.0, 1.0)
    elif projection == "linear":
        weight_bound, bias_bound = _linear_bounds(d_in)
        if not bias_size:
            stream.add(blocks * 3 * weight, -weight_bound, weight_bound)
        for _ in range(blocks * 3 if bias_size else 0):
            stream.add(weight, -weight_bound, weight_bound)
            stream.add(bias_size, -bias_bound, bias_bound)
    width = d_in if projection == "none" else heads * d_out if layout == "stacked" else d_out
    if out_proj:  # nn.Linear(width, width) with its bias
        out_bound, out_bias_bound = _linear_bounds(width)
        out_at = stream.add(width * width, -out_bound, out_bound)
        stream.add(width, -out_bias_bound, out_bias_bound)
    gen = torch.Generator().manual_seed(seed)
    flat = stream.draw(gen)
    if projection != "none":
        # (blocks, role, numbers of one projection): weight first, then its bias
        qkv = blocks * 3 * (weight + bias_size)
        per = (flat if qkv == stream.size else flat[:qkv]).view(blocks, 3, weight + bias_size)
        w = per[..., :weight] if bias_size else per
        if layout == "stacked":
            # (role, heads, d_in, d_out): "rand" draws (d_in, d_out), already `x @ W`'s
            # orientation, a Linear (d_out, d_in), used transposed.
            if projection == "rand":
                w = w.view(blocks, 3, d_in, d_out).permute(1, 0, 2, 3)
            else:
                w = w.view(blocks, 3, d_out, d_in).permute(1, 0, 3, 2)
            b = per[..., weight:].transpose(0, 1) if bias_size else None
        else:
            # One (d_in, d_out) per role, its columns split into heads: (role, heads, d_in,
            # d_head), as `W.reshape(d_in, heads, d_head).permute(1, 0, 2)`; a Linear's
            # (d_out, d_in) weight is (heads, d_head, d_in), each head's block transposed.
            d_head = d_out // heads
            if projection == "rand":
                w = w[0].view(3, d_in, heads, d_head).permute(0, 2, 1, 3)
            else:
                w = w[0].view(3, heads, d_head, d_in).transpose(-1, -2)
            b = per[0, :, weight:].view(3, heads, d_head) if bias_size else None
        # Copied out in the row-major strides the matrix products are given (`contiguous()`
        # would keep a view whose only odd stride is that of a size-1 axis).
        w_roles = w.clone(memory_format=torch.contiguous_format)
        drawn["w_query"], drawn["w_key"], drawn["w_value"] = w_roles.unbind()
        if b is not None:
            b_roles = b.clone(memory_format=torch.contiguous_format)
            drawn["b_query"], drawn["b_key"], drawn["b_value"] = b_roles.unbind()
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
        drawn["w_out"] = flat[out_at : out_at + width * width].view(width, width).T.contiguous()
        drawn["b_out"] = flat[out_at + width * width :].clone()
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
