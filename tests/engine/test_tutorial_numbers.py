"""Every number of ../shared/SEEDS.md, reproduced through compute() to 4 decimals."""

import numpy as np
import pytest

from attn_explorer.engine import AttentionConfig, compute, preset


def assert_close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), atol=6e-5, rtol=0)


def test_simple_attention_without_weights(journey):
    trace = compute(journey(projection="none", scale=False))
    assert_close(trace.scores[0, 1], [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])
    assert_close(trace.weights[0, 1], [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581])
    assert_close(
        trace.context,
        [
            [0.4421, 0.5931, 0.5790],
            [0.4419, 0.6515, 0.5683],
            [0.4431, 0.6496, 0.5671],
            [0.4304, 0.6298, 0.5510],
            [0.4671, 0.5910, 0.5266],
            [0.4177, 0.6503, 0.5645],
        ],
    )


def test_naive_softmax_agrees(journey):
    trace = compute(journey(projection="none", scale=False))
    row = np.exp(trace.scores[0, 1].astype(np.float64))
    assert_close(row / row.sum(), trace.weights[0, 1])


def test_self_attention_v1_seed_123(journey):
    trace = compute(journey(projection="rand", seed=123))
    assert_close(trace.w_query[0], [[0.2961, 0.5166], [0.2517, 0.6886], [0.0740, 0.8665]])
    assert_close(trace.queries[0, 1], [0.4306, 1.4551])
    assert_close(trace.keys[0, 1], [0.4433, 1.1419])
    assert_close(trace.values[0, 1], [0.3951, 1.0037])
    assert_close(trace.scores[0, 1], [1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440])
    assert_close(trace.weights[0, 1], [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])
    assert_close(trace.context[1], [0.3061, 0.8210])
    assert_close(
        trace.context,
        [
            [0.2996, 0.8053],
            [0.3061, 0.8210],
            [0.3058, 0.8203],
            [0.2948, 0.7939],
            [0.2927, 0.7891],
            [0.2990, 0.8040],
        ],
    )


def test_self_attention_v2_seed_789(journey):
    trace = compute(journey(seed=789))
    assert_close(
        trace.context,
        [
            [-0.0739, 0.0713],
            [-0.0748, 0.0703],
            [-0.0749, 0.0702],
            [-0.0760, 0.0685],
            [-0.0763, 0.0679],
            [-0.0754, 0.0693],
        ],
    )


CAUSAL_789 = [
    [1, 0, 0, 0, 0, 0],
    [0.5517, 0.4483, 0, 0, 0, 0],
    [0.3800, 0.3097, 0.3103, 0, 0, 0],
    [0.2758, 0.2460, 0.2462, 0.2319, 0, 0],
    [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0],
    [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529],
]


@pytest.mark.parametrize("method", ["neg_inf", "renormalize"])
def test_causal_weights_by_both_methods(journey, method):
    trace = compute(journey(seed=789, causal=True, mask_method=method))
    assert_close(trace.weights[0], CAUSAL_789)
    assert_close(trace.weights_neg_inf, trace.weights_renormalize)


def test_dropout_mask_of_the_tutorial():
    # torch.manual_seed(123); nn.Dropout(0.5)(torch.ones(6, 6)): with no projection to draw,
    # the engine's keep-mask is the first draw after the seed, as in the tutorial.
    cfg = AttentionConfig(
        tokens=tuple("abcdef"), embeddings=((1.0,),) * 6, projection="none", dropout=0.5, seed=123
    )
    trace = compute(cfg)
    expected = [
        [2, 2, 0, 2, 2, 0],
        [0, 0, 0, 2, 0, 2],
        [2, 2, 2, 2, 0, 2],
        [0, 2, 2, 0, 0, 2],
        [0, 2, 0, 2, 0, 2],
        [0, 2, 2, 2, 2, 0],
    ]
    np.testing.assert_array_equal(trace.dropout_keep[0] * 2, expected)
    assert_close(trace.weights_dropped[0], np.asarray(expected) * trace.weights[0])


# Tutorial 000 §3.5.2: torch.manual_seed(123); print(dropout(attn_weights)) on the seed-789
# causal weights.
DROPPED_789 = [
    [2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
    [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],
    [0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000],
    [0.0000, 0.4921, 0.4925, 0.0000, 0.0000, 0.0000],
    [0.0000, 0.3966, 0.0000, 0.3775, 0.0000, 0.0000],
    [0.0000, 0.3327, 0.3331, 0.3084, 0.3331, 0.0000],
]


def test_dropout_reseeded_on_the_causal_weights(journey):
    trace = compute(journey(seed=789, causal=True, dropout=0.5, dropout_seed=123))
    assert_close(trace.weights[0], CAUSAL_789)
    assert_close(trace.weights_dropped[0], DROPPED_789)
    # Without the reseed the mask continues the stream after the weights: another mask.
    plain = compute(journey(seed=789, causal=True, dropout=0.5))
    assert not np.array_equal(plain.dropout_keep, trace.dropout_keep)
    assert_close(compute(preset("dropout").config).weights_dropped[0], DROPPED_789)


def test_causal_attention_class_seed_123(journey):
    trace = compute(journey(seed=123, causal=True))
    assert_close(
        trace.context,
        [
            [-0.4519, 0.2216],
            [-0.5874, 0.0058],
            [-0.6300, -0.0632],
            [-0.5675, -0.0843],
            [-0.5526, -0.0981],
            [-0.5299, -0.1081],
        ],
    )


def test_multi_head_wrapper_two_heads(journey):
    trace = compute(journey(seed=123, causal=True, num_heads=2))
    assert trace.context.shape == (6, 4)
    assert_close(trace.context[0], [-0.4519, 0.2216, 0.4772, 0.1063])
    assert_close(trace.context[1], [-0.5874, 0.0058, 0.5891, 0.3257])
    assert_close(trace.context[2], [-0.6300, -0.0632, 0.6202, 0.3860])
    assert_close(trace.context[3], [-0.5675, -0.0843, 0.5478, 0.3589])
    assert_close(trace.context[4], [-0.5526, -0.0981, 0.5321, 0.3428])


def test_split_multi_head_attention(journey):
    trace = compute(journey(seed=123, causal=True, num_heads=2, head_layout="split", out_proj=True))
    assert trace.queries.shape == (2, 6, 1)
    assert_close(
        trace.context,
        [
            [0.3190, 0.4858],
            [0.2943, 0.3897],
            [0.2856, 0.3593],
            [0.2693, 0.3873],
            [0.2639, 0.3928],
            [0.2575, 0.4028],
        ],
    )


def test_i_am_happy_exact_values():
    trace = compute(preset("happy").config)
    assert trace.config.scale_divisor == pytest.approx(3**0.5)
    assert_close(
        trace.weights[0],
        [[0.2994, 0.3321, 0.3685], [0.2514, 0.3260, 0.4227], [0.2078, 0.3149, 0.4773]],
    )
    assert_close(
        trace.context,
        [[0.4207, 0.5207, 0.6207], [0.4514, 0.5514, 0.6514], [0.4808, 0.5808, 0.6808]],
    )


@pytest.mark.parametrize(
    ("name", "first_row"),
    [
        ("simple", [0.4421, 0.5931, 0.5790]),
        ("v1", [0.2996, 0.8053]),
        ("v2", [-0.0739, 0.0713]),
        ("causal-class", [-0.4519, 0.2216]),
        ("wrapper", [-0.4519, 0.2216, 0.4772, 0.1063]),
        ("mha", [0.3190, 0.4858]),
        ("happy", [0.4207, 0.5207, 0.6207]),
    ],
)
def test_presets_reproduce_their_tutorial(name, first_row):
    assert_close(compute(preset(name).config).context[0], first_row)
