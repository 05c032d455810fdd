"""The engine against torch itself and against the tutorials' classes, on many random configs."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attn_explorer.engine import AttentionConfig, compute
from tests.engine import tutorial_modules as tm


def random_config(rng: np.random.Generator, **forced) -> AttentionConfig:
    n_q = int(rng.integers(1, 9))
    d_in = int(rng.integers(1, 6))
    cross = bool(rng.random() < 0.3)
    n_k = int(rng.integers(1, 9)) if cross else n_q
    layout = str(rng.choice(["stacked", "split"]))
    heads = int(rng.integers(1, 5))
    d_out = heads * int(rng.integers(1, 4)) if layout == "split" else int(rng.integers(1, 6))
    fields = dict(
        tokens=tuple(f"q{i}" for i in range(n_q)),
        embeddings=rng.normal(size=(n_q, d_in)).round(3),
        projection=str(rng.choice(["rand", "linear"])),
        d_out=d_out,
        num_heads=heads,
        head_layout=layout,
        out_proj=bool(rng.random() < 0.5),
        qkv_bias=bool(rng.random() < 0.5),
        causal=bool(not cross and rng.random() < 0.5),
        mask_method=str(rng.choice(["neg_inf", "renormalize"])),
        valid_len=int(rng.integers(1, n_k + 1)) if rng.random() < 0.4 else None,
        scale=bool(rng.random() < 0.8),
        temperature=float(rng.choice([1.0, 0.5, 2.0, 3.7])),
        seed=int(rng.integers(0, 10_000)),
    )
    if cross:
        fields.update(
            kv_tokens=tuple(f"k{i}" for i in range(n_k)),
            kv_embeddings=rng.normal(size=(n_k, d_in)).round(3),
        )
    fields.update(forced)
    return AttentionConfig(**fields)


def t(array) -> torch.Tensor:
    return torch.from_numpy(np.array(array))


@pytest.mark.parametrize("case", range(150))
def test_context_equals_scaled_dot_product_attention(case):
    rng = np.random.default_rng(case)
    cfg = random_config(rng, dropout=float(rng.choice([0.0, 0.3])), training=bool(case % 2))
    trace = compute(cfg)
    visible = t(~trace.mask)  # SDPA: True = takes part
    expected = F.scaled_dot_product_attention(
        t(trace.queries),
        t(trace.keys),
        t(trace.values),
        attn_mask=visible,
        scale=1 / cfg.scale_divisor,
    )  # (heads, n_q, d_head)
    if cfg.dropout_active:
        # SDPA draws its own dropout; check the engine's keep-mask path separately.
        expected = t(trace.weights_dropped) @ t(trace.values)
        np.testing.assert_allclose(
            trace.weights_dropped, trace.weights * trace.dropout_keep / (1 - cfg.dropout), atol=1e-6
        )
    np.testing.assert_allclose(trace.head_contexts, expected.numpy(), atol=1e-5)
    concat = expected.transpose(0, 1).reshape(cfg.n_q, cfg.width)
    if cfg.out_proj:
        concat = concat @ t(trace.w_out) + t(trace.b_out)
    np.testing.assert_allclose(trace.context, concat.numpy(), atol=1e-5)


@pytest.mark.parametrize("case", range(60))
def test_split_with_out_proj_equals_nn_multihead_attention(case):
    rng = np.random.default_rng(1000 + case)
    heads = int(rng.integers(1, 5))
    d = heads * int(rng.integers(1, 4))
    cross = case % 3 == 0
    cfg = random_config(
        rng,
        embeddings=rng.normal(size=(5, d)).round(3),
        tokens=tuple("abcde"),
        d_out=d,
        num_heads=heads,
        head_layout="split",
        projection="linear",
        out_proj=True,
        scale=True,
        temperature=1.0,
        dropout=0.0,
        causal=not cross and bool(case % 2),
        **(
            {"kv_tokens": tuple("vwxyz12")[:7], "kv_embeddings": rng.normal(size=(7, d)).round(3)}
            if cross
            else {"kv_tokens": None, "kv_embeddings": None}
        ),
        valid_len=None if case % 4 else 2,
    )
    trace = compute(cfg)
    mha = torch.nn.MultiheadAttention(d, heads, bias=True, batch_first=True)
    full = {r: np.concatenate(list(trace[f"w_{r}"]), axis=1) for r in ("query", "key", "value")}
    bias = {
        r: np.concatenate(list(trace[f"b_{r}"])) if f"b_{r}" in trace else np.zeros(d, np.float32)
        for r in ("query", "key", "value")
    }
    with torch.no_grad():
        mha.in_proj_weight.copy_(t(np.concatenate([full[r].T for r in full])))
        mha.in_proj_bias.copy_(t(np.concatenate([bias[r] for r in bias])))
        mha.out_proj.weight.copy_(t(trace.w_out.T))
        mha.out_proj.bias.copy_(t(trace.b_out))
    mha.eval()
    x = t(trace.x)[None]
    kv = t(trace.x_kv)[None] if cfg.is_cross else x
    out, weights = mha(x, kv, kv, attn_mask=t(trace.mask), average_attn_weights=False)
    np.testing.assert_allclose(trace.context, out[0].detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(trace.weights, weights[0].detach().numpy(), atol=1e-6)


def tutorial_module(cfg: AttentionConfig) -> torch.nn.Module:
    """The tutorial class a config describes, built right after torch.manual_seed(cfg.seed)."""
    torch.manual_seed(cfg.seed)
    args = (cfg.d_in, cfg.d_out, cfg.n_q, cfg.dropout)
    if cfg.projection == "rand":
        return tm.SelfAttentionV1(cfg.d_in, cfg.d_out)
    if cfg.head_layout == "split":
        return tm.MultiHeadAttention(*args, cfg.num_heads, cfg.qkv_bias, cfg.causal)
    return tm.MultiHeadAttentionWrapper(*args, cfg.num_heads, cfg.qkv_bias, cfg.causal)


@pytest.mark.parametrize("case", range(120))
def test_random_draws_match_the_tutorial_classes(case):
    """Same seed, same module order, same numbers, dropout masks included."""
    rng = np.random.default_rng(5000 + case)
    projection = "rand" if case % 6 == 0 else "linear"
    layout = str(rng.choice(["stacked", "split"]))
    heads = 1 if projection == "rand" else int(rng.integers(1, 4))
    d_out = heads * int(rng.integers(1, 3)) if layout == "split" else int(rng.integers(1, 5))
    cfg = random_config(
        rng,
        projection=projection,
        head_layout=layout,
        num_heads=heads,
        d_out=d_out,
        out_proj=layout == "split" and projection == "linear",
        qkv_bias=projection == "linear" and bool(case % 2),
        causal=projection == "linear" and bool(case % 3),
        valid_len=None,
        scale=True,
        temperature=1.0,
        kv_tokens=None,
        kv_embeddings=None,
        dropout=0.0 if projection == "rand" else float(rng.choice([0.0, 0.1, 0.5, 0.8])),
        training=True,
    )
    module = tutorial_module(cfg)
    module.train()
    x = t(cfg.embeddings).float()
    with torch.no_grad():
        expected = module(x) if projection == "rand" else module(x[None])[0]
    global_state = torch.get_rng_state()
    trace = compute(cfg)
    np.testing.assert_allclose(trace.context, expected.numpy(), atol=1e-5)
    assert torch.equal(torch.get_rng_state(), global_state), "compute() touched the global RNG"


def test_global_rng_is_left_alone(journey):
    torch.manual_seed(7)
    expected = torch.rand(4)
    torch.manual_seed(7)
    compute(journey(seed=1, dropout=0.5, num_heads=3))
    assert torch.equal(torch.rand(4), expected)


def test_scale_uses_the_key_width_of_a_head(journey):
    split = compute(journey(d_out=8, num_heads=4, head_layout="split"))
    stacked = compute(journey(d_out=8, num_heads=4))
    np.testing.assert_allclose(split.scaled_scores, split.scores / math.sqrt(2), rtol=1e-6)
    np.testing.assert_allclose(stacked.scaled_scores, stacked.scores / math.sqrt(8), rtol=1e-6)
    warm = compute(journey(d_out=8, temperature=2.0))
    np.testing.assert_allclose(warm.scaled_scores, warm.scores / (math.sqrt(8) * 2), rtol=1e-6)
