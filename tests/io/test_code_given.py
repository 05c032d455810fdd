"""The script of a config with given weights (a real head in the lab) prints the engine's numbers,
in every layout and with an output projection and dropout continuing the seed's stream."""

from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import AttentionConfig, compute
from attn_explorer.engine.given import GivenWeights
from attn_explorer.io.code_export import pytorch_script
from tests.io.test_code_export import parse_printout
from tests.scripts import run_in_process

rng = np.random.default_rng(7)
X = rng.normal(size=(4, 5)).round(3)
TWO_HEADS = GivenWeights(
    w_query=rng.normal(size=(2, 5, 3)),
    w_key=rng.normal(size=(2, 5, 3)),
    w_value=rng.normal(size=(2, 5, 3)),
    b_query=rng.normal(size=(2, 3)),
    b_key=rng.normal(size=(2, 3)),
    b_value=rng.normal(size=(2, 3)),
)
BASE = AttentionConfig(
    tokens=("the", "cat", "sat", "down"), embeddings=X, d_out=3, num_heads=2, given=TWO_HEADS
)
CASES = {
    "stacked, bias": replace(BASE, qkv_bias=True, causal=True),
    "stacked, no bias": BASE,
    "split, out_proj, dropout": replace(
        BASE, head_layout="split", d_out=6, qkv_bias=True, out_proj=True, dropout=0.3
    ),
    "one head": replace(
        BASE,
        num_heads=1,
        qkv_bias=True,
        given=GivenWeights(
            w_query=TWO_HEADS.w_query[:1],
            w_key=TWO_HEADS.w_key[:1],
            w_value=TWO_HEADS.w_value[:1],
            b_query=TWO_HEADS.b_query[:1],
            b_key=TWO_HEADS.b_key[:1],
            b_value=TWO_HEADS.b_value[:1],
        ),
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_script_with_given_weights_prints_the_engines_numbers(case, tmp_path):
    config = CASES[case]
    assert config.problems() == []
    path = tmp_path / "head.py"
    path.write_text(pytorch_script(config), encoding="utf-8")
    result = run_in_process(path)
    assert result.returncode == 0, result.stderr
    trace = compute(config)
    np.testing.assert_allclose(
        trace.w_query, np.asarray(TWO_HEADS.w_query)[: config.heads], atol=1e-6
    )
    blocks = parse_printout(result.stdout)
    np.testing.assert_allclose(blocks["context"], trace.context, atol=1e-5, rtol=0)
    for h in range(trace.heads):
        np.testing.assert_allclose(blocks[f"weights, head {h + 1}"], trace.weights[h], atol=1e-5)
