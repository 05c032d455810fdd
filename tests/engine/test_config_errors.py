"""Every invalid config is refused with a ConfigError that names the field and says why."""

import math
from dataclasses import replace

import pytest

from attn_explorer.engine import AttentionConfig, ConfigError, compute, preset

X3 = ((0.1, 0.2), (0.3, 0.4), (0.5, 0.6))
T3 = ("a", "b", "c")


def config(**fields) -> AttentionConfig:
    base = dict(tokens=T3, embeddings=X3)
    base.update(fields)
    return AttentionConfig(**base)


CASES = [
    # (fields, field named by the error, words the message must contain)
    (dict(tokens=(), embeddings=()), "tokens", "no tokens"),
    (dict(embeddings=((0.1, 0.2), (0.3,), (0.5, 0.6))), "embeddings", "same number"),
    (dict(embeddings=((0.1, math.nan), (0.3, 0.4), (0.5, 0.6))), "embeddings", "NaN"),
    (dict(embeddings=((0.1, 0.2), (math.inf, 0.4), (0.5, 0.6))), "embeddings", "infinite"),
    (dict(embeddings=((0.1, 0.2), (-math.inf, 0.4), (0.5, 0.6))), "embeddings", "infinite"),
    (dict(embeddings=((0.1, 0.2), (1e308, 0.4), (0.5, 0.6))), "embeddings", "float32"),
    (dict(embeddings=((0.1, "x"), (0.3, 0.4), (0.5, 0.6))), "embeddings", "not a number"),
    (dict(tokens=("a", "b")), "embeddings", "2 tokens but 3 embedding rows"),
    (dict(embeddings=((), (), ())), "embeddings", "at least one dimension"),
    (dict(d_out=0), "d_out", "at least 1"),
    (dict(d_out=-3), "d_out", "at least 1"),
    (dict(d_out=2.5), "d_out", "whole number"),
    (dict(num_heads=0), "num_heads", "at least one head"),
    (
        dict(d_out=5, num_heads=2, head_layout="split"),
        "num_heads",
        "d_out 5 cannot be split into 2 heads",
    ),
    (dict(projection="none", num_heads=2), "num_heads", "identical"),
    (dict(dropout=1.0), "dropout", "below 1"),
    (dict(dropout=-0.1), "dropout", "at least 0"),
    (dict(dropout=math.nan), "dropout", "below 1"),
    (dict(valid_len=0), "valid_len", "outside 1 to 3"),
    (dict(valid_len=4), "valid_len", "outside 1 to 3"),
    (
        dict(kv_tokens=("x", "y"), kv_embeddings=((1.0, 2.0), (3.0, 4.0)), valid_len=3),
        "valid_len",
        "outside 1 to 2",
    ),
    (
        dict(kv_tokens=("x", "y"), kv_embeddings=((1.0, 2.0), (3.0, 4.0)), causal=True),
        "causal",
        "3 queries, 2 keys",
    ),
    (dict(kv_tokens=("x",)), "kv_tokens", "both"),
    (
        dict(kv_tokens=("x",), kv_embeddings=((1.0, 2.0, 3.0),)),
        "kv_embeddings",
        "same embedding space",
    ),
    (dict(temperature=0.0), "temperature", "positive"),
    (dict(temperature=-1.0), "temperature", "positive"),
    (dict(temperature=math.inf), "temperature", "positive"),
    (
        dict(projection="conv"),
        "projection",
        "Unknown projection 'conv': choose none, rand or linear",
    ),
    (dict(head_layout="mixed"), "head_layout", "choose stacked or split"),
    (dict(mask_method="zero"), "mask_method", "choose neg_inf or renormalize"),
    (dict(seed=-1), "seed", "whole number from 0"),
    (dict(dropout_seed=-1), "dropout_seed", "dropout seed must be a whole number from 0"),
    (dict(dropout_seed=1.5), "dropout_seed", "dropout seed must be a whole number from 0"),
    (dict(causal="yes"), "causal", "True or False"),
]


@pytest.mark.parametrize(("fields", "field", "words"), CASES)
def test_invalid_config_is_refused(fields, field, words):
    cfg = config(**fields)
    with pytest.raises(ConfigError) as caught:
        compute(cfg)
    assert caught.value.field == field
    assert words in str(caught.value)


def test_problems_lists_every_problem_at_once():
    cfg = config(d_out=0, dropout=2.0, temperature=0.0)
    assert [p.field for p in cfg.problems()] == ["d_out", "dropout", "temperature"]


def test_overflowing_values_are_refused_not_drawn_as_nan():
    with pytest.raises(ConfigError, match="overflowed float32") as caught:
        compute(config(embeddings=((1e30, 1e30), (0.3, 0.4), (0.5, 0.6)), projection="none"))
    assert caught.value.field == "embeddings"
    with pytest.raises(ConfigError, match="temperature 1e-40 is so small") as caught:
        compute(config(projection="none", temperature=1e-40))
    assert caught.value.field == "temperature"


def test_a_score_overflowing_to_minus_infinity_is_refused_too():
    """−∞ beside a finite score leaves the context finite (its weight is 0): it was drawn as
    a real score, and exported as if it were a masked one."""
    cross = dict(projection="none", kv_tokens=("k1", "k2"))
    huge = config(
        tokens=("a",), embeddings=((1e20, 0.0),), kv_embeddings=((-1e20, 0.0), (0.0, 1.0)), **cross
    )
    with pytest.raises(ConfigError, match="overflowed float32") as caught:
        compute(huge)
    assert caught.value.field == "embeddings"
    small_t = config(
        tokens=("a",), embeddings=((1e18, 0.0),), kv_embeddings=((-1e18, 0.0), (0.0, 1.0)), **cross
    )
    assert compute(small_t).scores[0, 0, 0] == pytest.approx(-1e36, rel=1e-6)  # finite: shown
    with pytest.raises(ConfigError, match=r"temperature 0\.001 is so small"):
        compute(replace(small_t, temperature=0.001))  # −1e36 / (√2 · 0.001) overflows


def test_lists_and_arrays_become_hashable_tuples():
    import numpy as np

    cfg = AttentionConfig(tokens=["a", "b"], embeddings=np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert cfg.embeddings == ((1.0, 2.0), (3.0, 4.0))
    assert hash(cfg) == hash(AttentionConfig(tokens=("a", "b"), embeddings=((1, 2), (3, 4))))


def test_a_trace_too_big_for_memory_is_refused_before_any_work():
    rows = tuple((0.1, 0.2) for _ in range(2048))
    tokens = tuple(f"t{i}" for i in range(2048))
    many_heads = config(tokens=tokens, embeddings=rows, num_heads=16)
    with pytest.raises(ConfigError) as caught:
        compute(many_heads)
    assert caught.value.field == "num_heads"
    assert "16 heads × 2048 queries × 2048 keys is 67,108,864 attention weights" in str(
        caught.value
    )
    rows = tuple((0.1,) for _ in range(8192))
    one_head = config(tokens=tuple(f"t{i}" for i in range(8192)), embeddings=rows)
    with pytest.raises(ConfigError) as caught:
        compute(one_head)
    assert caught.value.field == "tokens"
    assert str(caught.value).startswith("8192 queries × 8192 keys")


def test_the_largest_benchmarked_size_is_allowed():
    rows = tuple((0.1, 0.2) for _ in range(1024))
    cfg = config(tokens=tuple(f"t{i}" for i in range(1024)), embeddings=rows, num_heads=16)
    assert cfg.problems() == []


def test_renormalizing_a_row_whose_visible_weights_all_underflow_is_refused_with_its_cause():
    """Said to be an overflow 'while multiplying (largest embedding magnitude 4.65)': it is
    a 0/0 when method 1 renormalizes a row whose visible keys got no weight at all."""
    rows = (
        (0.25, -0.26, 1.28),
        (0.21, -1.07, 0.72),
        (2.61, 1.89, -1.41),
        (-2.53, -1.25, 0.08),
        (-4.65, -0.44, -2.49),
        (-1.46, -1.09, -0.63),
    )
    cold = replace(preset("causal").config, embeddings=rows, temperature=0.01)
    with pytest.raises(ConfigError, match="visible weights all underflow to 0") as caught:
        compute(replace(cold, mask_method="renormalize"))
    assert caught.value.field == "mask_method"
    assert compute(cold).weights[0, 1, 1] == pytest.approx(0.99969, abs=1e-5)  # method 2
