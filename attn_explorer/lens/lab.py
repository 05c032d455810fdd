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

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.given import ArrayRows, GivenWeights
from attn_explorer.lens.capture import ModelRun


def layer_rows(run: ModelRun, layer: int) -> tuple[tuple[float, ...], ...]:
    """The layer's input rows as the config's table, made once per layer: every head of a
    layer shares it, and the engine checks a table it has seen (the same object) at once."""
    cache = run.rows_cache
    if layer not in cache:
        cache[layer] = ArrayRows.of(run.inputs[layer])  # float32 → exact floats, array kept
    return cache[layer]


def head_config(run: ModelRun, layer: int, head: int) -> AttentionConfig:
    """The lab's config of head `head` in layer `layer` (both from 0): the layer's rows and
    the head's slice of its weights, nothing computed (the engine computes the head)."""
    w_q, w_k, w_v, b_q, b_k, b_v = (a[head][None] for a in run.loaded.layer_weights(layer))
    scale, temperature = run.loaded.scale_temperature(layer)
    given = GivenWeights(w_query=w_q, w_key=w_k, w_value=w_v, b_query=b_q, b_key=b_k, b_value=b_v)
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
        given=given,
    )
