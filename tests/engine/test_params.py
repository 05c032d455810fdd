"""The parameter cache: reused for a repeated structure, bounded in memory, never stale."""

from dataclasses import replace

import numpy as np
import torch

from attn_explorer.engine import AttentionConfig, compute
from attn_explorer.engine import params as params_module
from tests.engine import tutorial_modules as tm


def wide_config(seed: int) -> AttentionConfig:
    rng = np.random.default_rng(0)
    rows = tuple(tuple(float(v) for v in rng.normal(size=256)) for _ in range(2))
    return AttentionConfig(tokens=("a", "b"), embeddings=rows, d_out=64, num_heads=16, seed=seed)


def test_the_same_structure_reuses_its_parameters():
    first = params_module.parameters_for(wide_config(7))
    again = params_module.parameters_for(wide_config(7))  # an equal config, not the same object
    assert again is first


def test_the_cache_stays_within_its_budget():
    params = params_module.parameters_for(wide_config(1))
    one = params.nbytes()
    # W_query, W_key, W_value per head in float32, and the generator state for dropout
    assert one == 3 * 16 * 256 * 64 * 4 + params.rng_state.numel()
    for seed in range(2, 2 + 2 * params_module.CACHE_BYTES // one):
        params_module.parameters_for(wide_config(seed))
        assert params_module.cached_bytes() <= params_module.CACHE_BYTES
    assert params_module.cached_bytes() > params_module.CACHE_BYTES - one


def test_the_cache_keeps_a_bounded_number_of_small_entries():
    small = AttentionConfig(tokens=("a", "b"), embeddings=((1.0, 2.0), (3.0, 4.0)), seed=0)
    one = params_module.parameters_for(small).nbytes()
    for seed in range(1, 3 * params_module.CACHE_ENTRIES):
        params_module.parameters_for(replace(small, seed=seed))
    assert params_module.cached_bytes() <= params_module.CACHE_ENTRIES * one


def test_an_evicted_structure_is_drawn_again_identically():
    config = wide_config(1000)
    before = compute(config).context.copy()
    weights = params_module.parameters_for(config).w_query.clone()
    for seed in range(1001, 1001 + 30):
        params_module.parameters_for(wide_config(seed))
    assert torch.equal(params_module.parameters_for(config).w_query, weights)
    np.testing.assert_array_equal(compute(config).context, before)


def test_the_newest_entry_stays_even_when_it_is_bigger_than_the_budget(monkeypatch):
    monkeypatch.setattr(params_module, "CACHE_BYTES", 1)
    first = params_module.parameters_for(wide_config(2000))
    assert params_module.parameters_for(wide_config(2000)) is first  # not drawn again
    second = params_module.parameters_for(wide_config(2001))
    assert params_module.cached_bytes() == second.nbytes()  # only the newest is kept
    assert params_module.parameters_for(wide_config(2000)) is not first


def _module_weights(projection, layout, d_in, d_out, heads, bias, out_proj, seed):
    """The tutorial modules' own parameters after `torch.manual_seed(seed)`, in the engine's
    (heads, d_in, d_head) orientation, and the global generator's state after building."""
    torch.manual_seed(seed)
    if projection == "rand":
        module = tm.SelfAttentionV1(d_in, d_out)
        w = {r: getattr(module, f"W_{r}")[None] for r in ("query", "key", "value")}
        b = {}
    elif layout == "stacked":
        module = tm.MultiHeadAttentionWrapper(d_in, d_out, 4, 0.0, heads, bias, False)
        w = {
            r: torch.stack([getattr(h, f"W_{r}").weight.T for h in module.heads])
            for r in ("query", "key", "value")
        }
        b = {
            r: torch.stack([getattr(h, f"W_{r}").bias for h in module.heads])
            for r in ("query", "key", "value")
            if bias
        }
    else:
        module = tm.MultiHeadAttention(d_in, d_out, 4, 0.0, heads, bias, False)
        d_head = d_out // heads
        w = {
            r: getattr(module, f"W_{r}").weight.T.reshape(d_in, heads, d_head).permute(1, 0, 2)
            for r in ("query", "key", "value")
        }
        b = {
            r: getattr(module, f"W_{r}").bias.reshape(heads, d_head)
            for r in ("query", "key", "value")
            if bias
        }
    out = (module.out_proj.weight.T, module.out_proj.bias) if out_proj else None
    return w, b, out, torch.get_rng_state()


def test_the_drawn_parameters_are_the_modules_own_bit_for_bit():
    """Drawn in blocks, the weights are every bit those `torch.manual_seed` and the modules
    give, and the generator is left where the modules leave it (where dropout continues)."""
    cases = [
        ("rand", "stacked", 3, 2, 1, False, False),
        ("rand", "stacked", 5, 7, 1, False, False),
        ("linear", "stacked", 3, 2, 2, False, False),
        ("linear", "stacked", 3, 2, 2, True, False),
        ("linear", "stacked", 16, 4, 4, True, False),
        ("linear", "split", 3, 4, 2, False, True),
        ("linear", "split", 8, 6, 3, True, True),
        ("linear", "split", 64, 64, 8, True, True),
    ]
    state = torch.get_rng_state()
    try:
        for projection, layout, d_in, d_out, heads, bias, out_proj in cases:
            seed = 100 + d_in * d_out
            drawn = params_module._draw(
                seed, projection, d_in, d_out, heads, layout, out_proj, bias
            )
            w, b, out, after = _module_weights(
                projection, layout, d_in, d_out, heads, bias, out_proj, seed
            )
            for role in ("query", "key", "value"):
                assert torch.equal(getattr(drawn, f"w_{role}"), w[role].detach())
                if bias:
                    assert torch.equal(getattr(drawn, f"b_{role}"), b[role].detach())
                else:
                    assert getattr(drawn, f"b_{role}") is None
            if out_proj:
                assert torch.equal(drawn.w_out, out[0].detach())
                assert torch.equal(drawn.b_out, out[1].detach())
            assert torch.equal(drawn.rng_state, after)
    finally:
        torch.set_rng_state(state)
