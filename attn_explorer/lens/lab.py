"""A real head as an ordinary lab session: "Open in the lab".

The config holds what the head computes with and nothing else: the tokens, the rows its layer
read (the hidden states after the layer norm, every dimension) as the embeddings, the head's
own W_q, W_k, W_v and biases as given weights, one head of width d_head (d_out = d_head, stacked
layout, no output projection: the layer's c_proj mixes all heads, the lab shows one), the
causal mask for GPT-2 and none for BERT, division by √d_head (times GPT-2's per-layer factor
where the model has one, as the temperature), no dropout. The trace then equals the model's
numbers for that head; every control then acts on the real head.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.given import ArrayRows, GivenWeights
from attn_explorer.lens.capture import ModelRun
from attn_explorer.lens.loading import LoadedModel

# Heads whose given weights a model keeps (`head_given`): 1.2 MB each for a GPT-2 small.
KEPT_HEADS = 8

# Layers whose rows a run keeps ready (the least recently used beyond these are dropped): a
# GPT-2 small layer at 512 tokens is a 3 MB float64 array, 6 MB at 1,024.
KEPT_LAYERS = 4

_lock = threading.Lock()
_preparer: ThreadPoolExecutor | None = None

# A run's rows_cache maps a layer to a Future of its rows.


def layer_rows(run: ModelRun, layer: int) -> ArrayRows:
    """The layer's input rows as the config's table, made once per layer: every head of a
    layer shares it, and the engine checks a table it has seen (the same object) at once.

    A layer `prepare` is making is waited for (or made here, if its turn has not come)."""
    cache: OrderedDict[int, Future] = run.rows_cache
    with _lock:
        future = cache.get(layer)
        if future is not None and (future.cancel() or _failed(future)):  # made here instead
            future = None
        mine = future is None
        if future is None:
            future = cache[layer] = Future()
            future.set_running_or_notify_cancel()
        cache.move_to_end(layer)
        _forget_old(cache, layer)
    if mine:
        try:
            future.set_result(_made(run, layer))
        except BaseException as error:
            future.set_exception(error)
            with _lock:
                if cache.get(layer) is future:
                    del cache[layer]
            raise
    return future.result()


def prepare(run: ModelRun, layers: Iterable[int]) -> None:
    """Make the rows of `layers` on a thread of their own, for the head the learner is about
    to open: a layer's rows widened and checked take 3-6 ms of the window's thread otherwise,
    numpy copies that let go of the interpreter's lock while they run, so the window's
    thread is not held up meanwhile. (A head's weights are read when its config is made,
    `head_given`: a third of a millisecond.)"""
    with _lock:
        cache: OrderedDict[int, Future] = run.rows_cache
        for layer in layers:
            if 0 <= layer < run.loaded.layers and layer not in cache:
                cache[layer] = _thread().submit(_made, run, layer)
                _forget_old(cache, layer)


def prepare_head(run: ModelRun, layer: int, head: int) -> None:
    """Compute head `head` of layer `layer` on the preparer's thread, after its layer's rows,
    and offer its trace to the engine (`engine.ready`): the head under a resting pointer is
    the one a click opens, and its trace is then drawn without waiting for the engine."""
    if 0 <= layer < run.loaded.layers and 0 <= head < run.loaded.heads:
        with _lock:
            _thread().submit(_computed, run, layer, head)


def _computed(run: ModelRun, layer: int, head: int) -> None:
    from attn_explorer.engine.attention import compute
    from attn_explorer.engine.ready import offer

    start = time.perf_counter()
    trace = compute(head_config(run, layer, head))  # both masking methods, as the window asks
    offer(trace, True, time.perf_counter() - start)


def forget(run: ModelRun) -> None:
    """Drop every layer `run` keeps (a run no longer shown), and the traces of its heads
    computed before a click."""
    from attn_explorer.engine import ready

    with _lock:
        run.rows_cache.clear()
    ready.clear()


def _thread() -> ThreadPoolExecutor:
    global _preparer
    if _preparer is None:
        _preparer = ThreadPoolExecutor(1, thread_name_prefix="lens-prepare")
    return _preparer


def _made(run: ModelRun, layer: int) -> ArrayRows:
    return ArrayRows.of(run.inputs[layer])  # float32 widened to float64 exactly, no floats


def _failed(future: Future) -> bool:
    return future.done() and future.exception() is not None


def _forget_old(cache: OrderedDict[int, Future], asked: int) -> None:
    """Take out all but the newest KEPT_LAYERS finished layers, never the one just `asked`
    for (a config or an undo step may still hold one taken out; opening it makes it anew)."""
    done = [layer for layer, future in cache.items() if future.done() and layer != asked]
    for layer in done[: max(0, len(cache) - KEPT_LAYERS)]:
        del cache[layer]


def head_config(run: ModelRun, layer: int, head: int) -> AttentionConfig:
    """The lab's config of head `head` in layer `layer` (both from 0): the layer's rows and
    the head's slice of its weights, nothing computed (the engine computes the head)."""
    scale, temperature = run.loaded.scale_temperature(layer)
    return AttentionConfig(
        tokens=run.tokens,
        embeddings=layer_rows(run, layer),
        projection="linear",
        d_out=run.loaded.d_head,
        num_heads=1,
        qkv_bias=True,
        causal=run.loaded.causal,
        scale=scale,
        temperature=temperature,
        dropout=0.0,
        given=head_given(run.loaded, layer, head),
    )


def head_given(loaded: LoadedModel, layer: int, head: int) -> GivenWeights:
    """The head's weights as the config's given weights, one object per head while it is
    among the `KEPT_HEADS` last asked for: the config computed ahead on the preparer's thread
    and the one the click loads then hold the same object, which the engine's `ready.take`
    and every config comparison after it match at once, without comparing 147,456 numbers
    (0.3-0.5 ms each time the lab asked the engine while a ready trace waited)."""
    key = (layer, head)
    with _lock:
        given = loaded.given_cache.get(key)
        if given is not None:
            loaded.given_cache.move_to_end(key)
            return given
    w_q, w_k, w_v, b_q, b_k, b_v = (a[None] for a in loaded.head_weights(layer, head))
    given = GivenWeights(w_query=w_q, w_key=w_k, w_value=w_v, b_query=b_q, b_key=b_k, b_value=b_v)
    with _lock:
        given = loaded.given_cache.setdefault(key, given)  # one made meanwhile wins
        loaded.given_cache.move_to_end(key)
        while len(loaded.given_cache) > KEPT_HEADS:
            loaded.given_cache.popitem(last=False)
    return given
