"""The parameter cache: reused for a repeated structure, bounded in memory, never stale."""

import numpy as np
import torch

from attn_explorer.engine import AttentionConfig, compute
from attn_explorer.engine import params as params_module


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
