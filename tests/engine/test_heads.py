"""Heads switched off (zeros or the head's mean over tokens) and each head's importance, checked
against a direct computation that replaces the head's slice of the concatenation before the
output projection."""

import re
from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import ConfigError, compute, preset
from attn_explorer.engine.heads import head_importance

# Two or four heads, with and without an output projection, split and stacked, cross, dropout.
CONFIGS = {
    "mha": preset("mha").config,
    "wrapper": preset("wrapper").config,
    "cross": preset("cross").config,
    "four": replace(preset("mha").config, d_out=8, num_heads=4, dropout=0.3),
}


def direct_output(trace, heads_off, mode):
    """The output computed by hand from the trace's own heads: each switched-off head's slice
    of the concatenation replaced, then the output projection (if any)."""
    contexts = np.asarray(trace.head_contexts, dtype=np.float64)
    heads, n_q, d_head = contexts.shape
    concat = contexts.transpose(1, 0, 2).reshape(n_q, heads * d_head)
    for number in heads_off:
        h = number - 1
        block = contexts[h]
        concat[:, h * d_head : (h + 1) * d_head] = (
            np.broadcast_to(block.mean(axis=0), block.shape) if mode == "mean" else 0.0
        )
    if "w_out" in trace:
        return concat @ trace.w_out + trace.b_out
    return concat


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("mode", ["zeros", "mean"])
def test_a_switched_off_head_leaves_its_gap_in_the_concatenation(name, mode):
    config = CONFIGS[name]
    full = compute(config)
    off = compute(replace(config, ablate=(2,), ablate_mode=mode))
    # The heads themselves computed as before: the gap is in the concatenation.
    np.testing.assert_array_equal(off.head_contexts, full.head_contexts)
    d_head = config.d_head
    gap = off.concat[:, d_head : 2 * d_head]
    expected = 0.0 if mode == "zeros" else full.head_contexts[1].mean(axis=0)
    np.testing.assert_allclose(gap, np.broadcast_to(expected, gap.shape), atol=1e-7)
    np.testing.assert_array_equal(off.concat[:, :d_head], full.concat[:, :d_head])
    np.testing.assert_allclose(off.context, direct_output(full, (2,), mode), rtol=1e-5, atol=1e-6)
    if mode == "zeros":
        assert not np.signbit(gap).any()  # 0.0000, never −0.0000, in the cells


def test_every_head_off_leaves_the_bias_alone():
    config = CONFIGS["mha"]
    off = compute(replace(config, ablate=(1, 2)))
    assert not off.concat.any()
    np.testing.assert_allclose(off.context, np.broadcast_to(off.b_out, off.context.shape))


def test_one_head_switched_off_applies_the_concatenation_stage():
    config = preset("v2").config
    assert not compute(config).step("concat").applies
    off = compute(replace(config, ablate=(1,)))
    assert off.step("concat").applies and not off.context.any()


def test_the_heads_switched_off_are_kept_sorted_and_once():
    config = replace(CONFIGS["four"], ablate=[3, 1, 3])
    assert config.ablate == (1, 3)
    assert config == replace(CONFIGS["four"], ablate=(1, 3))


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        (dict(ablate=(3,)), "ablate", "Head 3 cannot be switched off: the heads are numbered 1"),
        (dict(ablate=(0,)), "ablate", "Head 0 cannot be switched off"),
        (dict(ablate=("2",)), "ablate", "a list of head numbers from 1"),
        (dict(ablate_mode="half"), "ablate_mode", "Unknown way to switch a head off 'half'"),
    ],
)
def test_heads_that_cannot_be_switched_off_are_refused(changes, field, message):
    config = replace(CONFIGS["mha"], **changes)
    with pytest.raises(ConfigError, match=re.escape(message)) as caught:
        compute(config)
    assert caught.value.field == field


@pytest.mark.parametrize("name", CONFIGS)
@pytest.mark.parametrize("mode", ["zeros", "mean"])
def test_importance_is_the_change_of_the_output_with_that_head_alone_off(name, mode):
    config = replace(CONFIGS[name], ablate_mode=mode)
    full = compute(config)
    found = head_importance(full)
    assert found.mode == mode and found.norms.shape == (config.heads,)
    output_norm = np.linalg.norm(full.context.astype(np.float64))
    assert found.output_norm == pytest.approx(output_norm, rel=1e-6)
    for h in range(config.heads):
        alone = compute(replace(config, ablate=(h + 1,)))
        change = np.linalg.norm(alone.context.astype(np.float64) - full.context)
        assert found.norms[h] == pytest.approx(change, rel=1e-4, abs=1e-6)
        assert found.shares[h] == pytest.approx(change / output_norm, rel=1e-4, abs=1e-6)
        # ... and the direct computation from the heads, in float64.
        direct = np.linalg.norm(direct_output(full, (h + 1,), mode) - direct_output(full, (), mode))
        assert found.norms[h] == pytest.approx(direct, rel=1e-9, abs=1e-12)


def test_importance_is_measured_from_every_head_on_whatever_is_switched_off():
    config = CONFIGS["four"]
    assert np.array_equal(
        head_importance(compute(replace(config, ablate=(1, 2)))).norms,
        head_importance(compute(config)).norms,
    )


def test_the_mha_example_ranks_head_1_first_as_data():
    found = head_importance(compute(CONFIGS["mha"]))
    assert found.ranking() == (0, 1)
    data = found.as_dict()
    assert [row["head"] for row in data["heads"]] == [1, 2]
    assert data["heads"][0]["norm"] == pytest.approx(0.7192, abs=1e-4)
    assert data["heads"][1]["share"] == pytest.approx(0.0615, abs=1e-4)
