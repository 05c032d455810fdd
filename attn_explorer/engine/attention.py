"""compute(config) -> Trace: scaled dot-product attention with every intermediate kept.

All heads run in one batched matmul, as `MultiHeadAttention` does after its reshapes; the stacked
layout (`MultiHeadAttentionWrapper`) differs only in how the weights were drawn. The arithmetic
follows the tutorials' classes operation for operation, so their printed numbers come out.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from types import MappingProxyType

import numpy as np
import torch

from attn_explorer.engine.buffers import MIN_POOLED_BYTES, BufferPool
from attn_explorer.engine.config import AttentionConfig, ConfigError
from attn_explorer.engine.given import ArrayRows
from attn_explorer.engine.heads import ablated_concat
from attn_explorer.engine.params import dropout_keep, parameters_for
from attn_explorer.engine.steps import build_steps
from attn_explorer.engine.trace import Trace


def causal_padding_mask(n_q: int, n_k: int, causal: bool, valid_len: int | None) -> torch.Tensor:
    """(n_q, n_k) bool, True where a query may not look: later keys (causal), padding keys."""
    mask = torch.zeros(n_q, n_k, dtype=torch.bool)
    if causal:
        mask |= torch.ones(n_q, n_k, dtype=torch.bool).triu(diagonal=1)
    if valid_len is not None:
        mask[:, valid_len:] = True
    return mask


@functools.lru_cache(maxsize=2)
def _mask_and_additive(
    n_q: int, n_k: int, causal: bool, valid_len: int | None
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The mask, its additive form (0 where visible, −∞ where hidden) and its complement
    (True where visible, what method 1 multiplies softmax's output by), made once per shape.

    Every slider move of one size needs the same three: at 1024 tokens making them took 8-15 ms
    of a computation (masked_fill over a million cells on one thread). Nothing writes to
    them, and a trace gets a copy of the mask, never memory another trace holds.
    """
    mask = causal_padding_mask(n_q, n_k, causal, valid_len)
    additive = torch.zeros(n_q, n_k).masked_fill(mask, -torch.inf)
    return mask, additive, ~mask


# Query rows per block of the causal product below, used from two blocks' worth of rows on.
# At 1024 × 16 on one thread (CPU ms, p50 of 12, interleaved): whole product 42.5, blocks of
# 32 rows 43.1, 64 37.1, 128 32.5, 256 31.7; 128 leaves the most blocks to skip at 256 rows.
CAUSAL_BLOCK = 128

# Value widths (d_head) up to this are multiplied as (values^T @ weights^T)^T, block by block:
# BLAS runs a product with so few columns at 2-2.5 times the speed that way round. One thread,
# CPU ms, interleaved: d_head 4 at 1024 × 16 causal 20 -> 10, not causal 34 -> 19; d_head 8
# at 256 × 8 1.0 -> 0.4 and at 1024 × 16 28 -> 14; d_head 16 the same either way, 32 and 64
# (the real models' heads) 10-40 % slower.
NARROW_VALUES = 8


def _weighted_values(
    weights: torch.Tensor,
    values: torch.Tensor,
    causal: bool,
    valid_len: int | None,
    new: Callable[[tuple[int, ...]], torch.Tensor] = torch.empty,
) -> torch.Tensor:
    """weights @ values, without the keys no query of a block may see.

    A hidden key's weight is exactly 0 (softmax of −∞, zeroed by method 1, or dropped), so
    leaving it out drops only zeros from each sum: the product of a block of query rows with
    the keys up to its last row (causal) and below `valid_len` gives the whole product's
    rows, to float32's rounding (the sums are grouped differently). With a causal mask that
    is 9/16 of the work at 1024 tokens: 42.5 -> 32.5 CPU ms on one thread (16 heads).
    A row that sees no key is NaN either way (all its weights are).
    """
    n_q, n_k = weights.shape[-2], weights.shape[-1]
    limit = n_k if valid_len is None else min(n_k, valid_len)
    out = new((max(weights.shape[0], values.shape[0]), n_q, values.shape[-1]))
    narrow = values.shape[-1] <= NARROW_VALUES
    if n_q < 2 * CAUSAL_BLOCK or (not causal and not narrow):
        # `bmm`, what `matmul` calls for two 3-D tensors with the same batch, without its
        # Python-to-C++ detour (1.5 µs a call at 6 tokens): the same kernel on the same views.
        if causal or limit == n_k:
            return torch.bmm(weights, values, out=out)
        return torch.bmm(weights[..., :limit], values[..., :limit, :], out=out)
    for low in range(0, n_q, CAUSAL_BLOCK):
        high = min(n_q, low + CAUSAL_BLOCK)
        seen = max(1, min(high, limit)) if causal else limit
        if not narrow:
            torch.matmul(weights[:, low:high, :seen], values[:, :seen], out=out[:, low:high])
            continue
        block = torch.matmul(
            values[:, :seen].transpose(-1, -2), weights[:, low:high, :seen].transpose(-1, -2)
        )  # (heads, d_head, rows of the block): the same sums as weights @ values
        out[:, low:high].copy_(block.transpose(-1, -2))
    return out


def _project(
    x: torch.Tensor,
    w: torch.Tensor | None,
    b: torch.Tensor | None,
    new: Callable[[tuple[int, ...]], torch.Tensor],
) -> torch.Tensor:
    if w is None:
        return x.unsqueeze(0)  # (1, n, d_in): Q = K = V = X
    # (n, d_in) @ (heads, d_in, d_head) -> (heads, n, d_head), the bias added in place: the
    # same numbers as `x @ w + b`, in memory the pool lends (a fresh 4 MB at 1024 × 16 costs
    # 1.6 ms of page faults, a reused one nothing). `matmul` would expand x over the heads
    # and call `bmm` so; calling it directly skips 1.5 µs of dispatch a projection.
    heads = w.shape[0]
    out = torch.bmm(x.expand(heads, -1, -1), w, out=new((heads, x.shape[0], w.shape[-1])))
    if b is not None:
        out.add_(b[:, None, :])
    return out


# The parameters a trace holds, where the config has them.
_PARAMETERS = ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value", "w_out", "b_out")

SAFE_SCORE = 1e37  # scores bounded below this cannot overflow float32 (largest 3.4e38)


def _surely_finite(
    queries: np.ndarray, keys: np.ndarray, context: np.ndarray, divisor: float
) -> bool:
    """Whether no number of the computation can have overflowed float32: the usual answer,
    found in three BLAS dot products (7 µs at the tutorials' size, in the middle of a
    computation, where the same bound through torch took eight calls and 16 µs).

    An inf or NaN that reaches the context (softmax of +inf is NaN) shows in the sum of the
    context's squares: one pass over a small array instead of full scans of the (heads, n_q,
    n_k) arrays (`ndarray.sum` took 5 µs more: its Python wrapper and the reduction machinery
    are cold by then). A score overflowing to −∞ does not reach the context (its weight is
    just 0), so the scores must be bounded too: |q·k| ≤ ‖q‖·‖k‖, and the square roots of the
    sums of every query's and every key's squares bound every query's and key's length, so
    every score and scaled score. False means "look closer" (`_check_overflow`), never that
    something overflowed: the bound is loose by √(heads · n) at most, SAFE_SCORE leaves a
    factor 34 for rounding, and squares overflow only beyond 1.8e19.
    """
    if not math.isfinite(np.vdot(context, context)):
        return False
    bound = math.sqrt(np.vdot(queries, queries)) * math.sqrt(np.vdot(keys, keys))
    return bound / min(divisor, 1.0) < SAFE_SCORE


def _check_overflow(
    inputs: tuple[torch.Tensor, ...],
    scores: torch.Tensor,
    scaled: torch.Tensor,
    context: torch.Tensor,
    temperature: float,
    hidden: torch.Tensor | None = None,
) -> None:
    """Huge but finite inputs can overflow float32 on the way; say where instead of drawing NaN.

    Scans the arrays `_surely_finite` could not vouch for. `hidden` is the mask where the
    scaled scores hold its −∞ (masked before scaling): those cells are no overflow.
    """
    if hidden is not None:
        scaled = scaled.masked_fill(hidden, 0.0)
    if not torch.isfinite(scaled).all() and torch.isfinite(scores).all():
        raise ConfigError.coded("temperature", "temperature_overflow", temperature=temperature)
    if not torch.isfinite(scores).all() or not torch.isfinite(context).all():
        biggest = max(x.abs().max().item() for x in inputs)
        raise ConfigError.coded("embeddings", "overflow", biggest=biggest)


@torch.inference_mode()
def compute(
    config: AttentionConfig,
    *,
    compare_mask_methods: bool = True,
    pool: BufferPool | None = None,
) -> Trace:
    """Run one attention computation and return all of its intermediates.

    With a mask, both masking methods are computed (`weights_neg_inf`, `weights_renormalize`)
    for the step-through's comparison; `compare_mask_methods=False` computes only the
    config's own method, which saves a second softmax over (heads, n_q, n_k) for a live view
    that does not show the comparison.

    With `config.mask_first` (tutorial 000's order) `masked_scores` are the raw scores with
    −∞ where hidden (the tutorial's printed `masked`) and `scaled_scores` those divided by
    √d_k, what softmax reads. Otherwise
    `masked_scores` are the scores fed to softmax: −∞ where hidden for method 2 (`neg_inf`);
    for method 1 (`renormalize`) the scaled scores as they are, its trace then keeping the
    tutorial's steps too: `weights_unmasked` (softmax of every score), `weights_zeroed` (the
    hidden ones zeroed) and `row_sums` (each row's visible sum, which it is divided by).

    `pool` lends the big (heads, n_q, n_k) arrays: the engine thread passes one so that the
    arrays of traces no longer shown are written again instead of allocated.

    Raises ConfigError (with a message for the learner) when the config cannot be computed,
    including when float32 overflows on huge embedding values.
    """
    config.validate()
    # Below the pool's smallest buffer every array is fresh memory anyway: no look-ups then
    # (a dozen calls of `pool.empty`, 5 µs, at the tutorials' size). No array is bigger than
    # (heads, n, n) or (heads, n, d_head), n the longer of the two sequences.
    n = max(config.n_q, config.n_k)
    if pool is None or config.heads * n * max(n, config.d_head) * 4 < MIN_POOLED_BYTES:
        trace = _compute(config, compare_mask_methods, torch.empty)[0]
        if pool is not None:
            pool.let_go()
        return trace
    try:
        trace, tensors, arrays = _compute(config, compare_mask_methods, pool.empty)
    except BaseException:
        pool.abandon()
        raise
    pool.lend(tensors, arrays)
    return trace


def _compute(
    config: AttentionConfig,
    compare_mask_methods: bool,
    new: Callable[[tuple[int, ...]], torch.Tensor],
) -> tuple[Trace, dict[str, torch.Tensor], dict[str, np.ndarray]]:
    """The computation; `new(shape)` gives each big array's (uninitialised) memory.

    Returns the trace with the tensors and the numpy arrays made from them, by name (which
    buffer went out with which arrays, for the pool).
    """
    params = parameters_for(config)
    heads, n_q, n_k = config.heads, config.n_q, config.n_k
    mask_first, has_mask = config.mask_first, config.has_mask  # properties: asked once

    x = _rows_tensor(config.embeddings)  # (n_q, d_in)
    x_kv = _rows_tensor(config.kv_embeddings) if config.is_cross else x

    queries = _project(x, params.w_query, params.b_query, new)  # (heads, n_q, d_head)
    keys = _project(x_kv, params.w_key, params.b_key, new)  # (heads, n_k, d_head)
    values = _project(x_kv, params.w_value, params.b_value, new)  # (heads, n_k, d_head)

    big = (queries.shape[0], n_q, n_k)  # (heads, n_q, n_k)
    scores = torch.bmm(queries, keys.transpose(-1, -2), out=new(big))  # as matmul calls it
    divisor = config.scale_divisor
    shared_mask, additive, visible = _mask_and_additive(n_q, n_k, config.causal, config.valid_len)
    mask = shared_mask.clone()  # each trace its own (a copy of 1 MB at 1024 tokens, 0.1 ms)
    arrays: dict[str, torch.Tensor] = {}
    if mask_first:
        # Tutorial 000's order: masked = ω.masked_fill(mask, −inf), then softmax(masked / √d_k).
        # −∞ / √d_k is −∞ and the visible scores are divided as they are either way, so the
        # weights are bitwise those of the other order; the matrix between differs.
        masked = torch.add(scores, additive, out=new(big))  # ωₘ, the tutorial's `masked`
        scaled = torch.div(masked, divisor, out=new(big))  # ω̃ₘ, what softmax reads
        weights = torch.softmax(scaled, dim=-1, out=new(big))
        if compare_mask_methods:
            arrays["weights_neg_inf"] = weights
            # Method 1 for the comparison: softmax of the scaled scores unmasked, the hidden
            # weights zeroed, each row divided by what is left (a temporary, then in place).
            unscaled = torch.div(scores, divisor, out=new(big))
            zeroed = torch.softmax(unscaled, dim=-1, out=new(big)).mul_(visible)
            arrays["weights_renormalize"] = zeroed.div_(zeroed.sum(dim=-1, keepdim=True))
    else:
        scaled = torch.div(scores, divisor, out=new(big)) if divisor != 1 else scores
    if has_mask and not mask_first:
        methods = {"neg_inf", "renormalize"} if compare_mask_methods else {config.mask_method}
        if "neg_inf" in methods:
            # Adding 0 / −∞ is the tutorial's masked_fill(mask, −inf), in one fast broadcast add.
            by_neg_inf = torch.add(scaled, additive, out=new(big))  # (heads, n_q, n_k)
            arrays["weights_neg_inf"] = torch.softmax(by_neg_inf, dim=-1, out=new(big))
        if "renormalize" in methods:
            # Method 1, as tutorial 000: softmax of the unmasked scores, the hidden weights
            # zeroed, each row divided by what is left. Its own intermediates are kept when it
            # is the config's method; for the comparison alone they are written over.
            own = config.mask_method == "renormalize"
            unmasked = torch.softmax(scaled, dim=-1, out=new(big))
            zeroed = torch.mul(unmasked, visible, out=new(big)) if own else unmasked.mul_(visible)
            kept = zeroed.sum(dim=-1, keepdim=True)  # (heads, n_q, 1)
            if own and bool((kept == 0).any()):
                # The hidden keys took all of softmax's weight and the visible ones underflow
                # to 0: renormalizing would divide 0 by 0.
                raise ConfigError.coded(
                    "mask_method", "method_1_underflow", temperature=config.temperature
                )
            arrays["weights_renormalize"] = torch.div(zeroed, kept, out=new(big))
            if own:
                arrays.update(weights_unmasked=unmasked, weights_zeroed=zeroed, row_sums=kept)
        # The scores fed to softmax: −∞ where hidden for method 2; method 1 feeds them as
        # they are and masks softmax's output instead.
        masked = by_neg_inf if config.mask_method == "neg_inf" else scaled
        weights = arrays[f"weights_{config.mask_method}"]
        if not compare_mask_methods:
            del arrays[f"weights_{config.mask_method}"]  # it is `weights`; no comparison asked
    elif not mask_first:
        masked = scaled
        weights = torch.softmax(scaled, dim=-1, out=new(big))

    if config.dropout_active:
        keep = dropout_keep(
            params, config.dropout, heads, n_q, n_k, config.head_layout, config.dropout_seed
        )
        # As F.dropout: x * (noise / (1 - p)).
        dropped = torch.mul(weights, keep.div(1 - config.dropout), out=new(big))
        arrays["dropout_keep"] = keep.bool()
    else:
        dropped = weights

    head_contexts = _weighted_values(dropped, values, config.causal, config.valid_len, new)
    n_heads, d_head = head_contexts.shape[0], head_contexts.shape[-1]
    concat = new((n_q, config.width))  # (n_q, heads * d_head), head after head
    concat.view(n_q, n_heads, d_head).copy_(head_contexts.transpose(0, 1))
    if config.ablate:  # the heads switched off leave their gap in the concatenation
        concat = ablated_concat(concat, head_contexts, config.ablate, config.ablate_mode)
    context = (
        concat
        if params.w_out is None
        else torch.matmul(concat, params.w_out, out=new((n_q, config.width))).add_(params.b_out)
    )  # (n_q, width)

    arrays.update(
        x=x,
        queries=queries,
        keys=keys,
        values=values,
        scores=scores,
        scaled_scores=scaled,
        mask=mask,
        masked_scores=masked,
        weights=weights,
        weights_dropped=dropped,
        head_contexts=head_contexts,
        concat=concat,
        context=context,
    )
    if config.is_cross:
        arrays["x_kv"] = x_kv
    arrays.update(
        {name: tensor for name in _PARAMETERS if (tensor := getattr(params, name)) is not None}
    )

    # Each array read-only as it is made: an array made by `.numpy()` cannot be made writable
    # again, which a view of it (`trace.freeze`) could, and one object per array instead of two.
    numpy_arrays = {}
    shapes = {}
    for name, tensor in arrays.items():
        array = numpy_arrays[name] = tensor.numpy()
        array.flags.writeable = False
        shapes[name] = array.shape
    if not _surely_finite(
        numpy_arrays["queries"], numpy_arrays["keys"], numpy_arrays["context"], divisor
    ):
        _check_overflow(
            (x, x_kv),
            scores,
            scaled,
            context,
            config.temperature,
            mask if mask_first else None,
        )
    trace = Trace(
        config=config,
        arrays=MappingProxyType(numpy_arrays),
        steps=build_steps(config, shapes),
    )
    return trace, arrays, numpy_arrays


# The rows converted last, with their tensor: a slider that leaves the embeddings alone (the
# seed, the temperature, a mask) hands the same rows again.
_last_rows: tuple[tuple, torch.Tensor] | None = None


def _rows_tensor(rows: tuple) -> torch.Tensor:
    """The rows as a float32 tensor of the caller's own. A real layer's rows (`ArrayRows`) keep
    the array they were made from: converting that at C speed gives the same float32 numbers as
    walking its 393,216 Python floats (both round each double to nearest), which took 50-90 ms
    a head. Tuples of floats are converted by numpy (1024 × 64: 2.9 ms against torch.tensor's
    7.9, the same float32 numbers), once while the rows stay the same (then a copy, 0.05 ms):
    the trace hands its `x` out, and no two traces share memory."""
    global _last_rows
    if isinstance(rows, ArrayRows):  # (not getattr: a tuple's miss formats an AttributeError)
        return torch.from_numpy(rows.array.astype(np.float32))
    last = _last_rows
    # The same object only: tuples compare -0.0 equal to 0.0, and a cell typed "-0" must
    # reach the trace as −0.0 (a seed, temperature or mask move hands the same rows object).
    if last is not None and last[0] is rows:
        return last[1].clone()
    with np.errstate(over="ignore"):  # beyond float32: ±inf, as torch.tensor gives
        tensor = torch.from_numpy(np.array(rows, dtype=np.float32))
    _last_rows = (rows, tensor)
    return tensor.clone()
