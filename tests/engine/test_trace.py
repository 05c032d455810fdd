"""Invariants of every trace: shapes, sums, masks, immutability, steps.

That the engine imports no Qt is a contract in pyproject.toml, checked by `lint-imports`; that
it computes without the text layer, by a fresh Python in tests/test_imports.py."""

import numpy as np
import pytest

from attn_explorer.engine import STEP_KEYS, AttentionConfig, compute, preset
from attn_explorer.engine.steps import step_keys
from attn_explorer.text.steps import step_text


@pytest.fixture(
    params=[
        "simple",
        "v1",
        "v2",
        "causal",
        "dropout",
        "wrapper",
        "mha",
        "happy",
        "cross",
        "padding",
    ]
)
def trace(request):
    return compute(preset(request.param).config)


def test_documented_shapes(trace):
    cfg = trace.config
    h, n_q, n_k, d = cfg.heads, cfg.n_q, cfg.n_k, cfg.d_head
    assert trace.queries.shape == (h, n_q, d)
    assert trace.keys.shape == trace.values.shape == (h, n_k, d)
    for name in ("scores", "scaled_scores", "masked_scores", "weights", "weights_dropped"):
        assert trace[name].shape == (h, n_q, n_k)
        assert trace[name].dtype == np.float32
    assert trace.mask.shape == (n_q, n_k) and trace.mask.dtype == bool
    assert trace.head_contexts.shape == (h, n_q, d)
    assert trace.concat.shape == (n_q, h * d)
    assert trace.context.shape == (n_q, cfg.width)


def test_rows_sum_to_one_and_masked_cells_are_exactly_zero(trace):
    np.testing.assert_allclose(trace.weights.sum(axis=-1), 1.0, atol=1e-6)
    assert (trace.weights[:, trace.mask] == 0).all()
    assert np.isneginf(trace.masked_scores[:, trace.mask]).all()
    assert np.isfinite(trace.masked_scores[:, ~trace.mask]).all()


def test_arrays_are_read_only(trace):
    with pytest.raises(ValueError, match="read-only"):
        trace.weights[0, 0, 0] = 5
    if "w_query" in trace:
        with pytest.raises(ValueError, match="read-only"):
            trace.w_query[0, 0, 0] = 5


def test_steps_are_the_ten_stages_in_order(trace):
    assert tuple(s.key for s in trace.steps) == step_keys(trace.config)
    assert sorted(step_keys(trace.config)) == sorted(STEP_KEYS)
    for step in trace.steps:
        assert step.applies == (step_text(step).reason == "")
        for name in step.reads + step.writes:
            assert step.shapes[name] == trace[name].shape


def applies(cfg: AttentionConfig) -> dict[str, bool]:
    return {s.key: s.applies for s in compute(cfg).steps}


def test_skip_logic(journey):
    plain = applies(journey(scale=False))
    assert plain == dict.fromkeys(STEP_KEYS, True) | {
        "scale": False,
        "mask": False,
        "dropout": False,
        "concat": False,
        "out_proj": False,
    }
    assert not applies(journey(projection="none"))["projections"]
    assert applies(journey(scale=False, temperature=2.0))["scale"]
    assert applies(journey(causal=True))["mask"]
    assert applies(journey(valid_len=3))["mask"]
    assert applies(journey(dropout=0.2))["dropout"]
    assert not applies(journey(dropout=0.2, training=False))["dropout"]
    assert applies(journey(num_heads=2))["concat"]
    assert applies(journey(out_proj=True))["out_proj"]
    trace = compute(journey(dropout=0.2, training=False))
    reasons = {s.key: step_text(s).reason for s in trace.steps}
    assert reasons["dropout"] == "No dropout: evaluation mode (training is off)."
    assert reasons["concat"] == "One head: nothing to concatenate."


def test_skipped_stages_pass_their_input_through(journey):
    trace = compute(journey(scale=False))
    assert trace.scaled_scores is not None
    np.testing.assert_array_equal(trace.scaled_scores, trace.scores)
    np.testing.assert_array_equal(trace.masked_scores, trace.scaled_scores)
    np.testing.assert_array_equal(trace.weights_dropped, trace.weights)
    np.testing.assert_array_equal(trace.context, trace.concat)
    assert "dropout_keep" not in trace and "w_out" not in trace


def test_padding_masks_keys_beyond_valid_len(journey):
    trace = compute(journey(valid_len=4, causal=True))
    assert trace.mask[:, 4:].all()
    assert trace.mask[5].tolist() == [False] * 4 + [True] * 2
    assert trace.mask[1].tolist() == [False, False, True, True, True, True]


def test_parameters_do_not_depend_on_embedding_values(journey):
    a = compute(journey(seed=5))
    b = compute(journey(seed=5, temperature=3.0, causal=True))
    np.testing.assert_array_equal(a.w_query, b.w_query)
    assert not np.array_equal(a.w_query, compute(journey(seed=6)).w_query)


def test_rows_kept_as_an_array_give_the_trace_of_the_same_rows_as_tuples():
    """A real layer's rows reach the engine as `ArrayRows` and are converted from their array;
    the trace must be the plain table's to the last bit, including doubles that float32 rounds."""
    import dataclasses

    import numpy as np

    from attn_explorer.engine.given import ArrayRows

    values = np.random.default_rng(3).standard_normal((5, 3)) * 1e3 + 1 / 3
    plain = dataclasses.replace(
        preset("mha").config, embeddings=tuple(map(tuple, values.tolist())), tokens=tuple("abcde")
    )
    kept = dataclasses.replace(plain, embeddings=ArrayRows.of(values))
    assert kept == plain
    a, b = compute(plain), compute(kept)
    assert a.matrix("scores").shape == (5, 5)
    for name in ("x", "queries", "scores", "weights", "context"):
        assert np.array_equal(a.arrays[name], b.arrays[name]), name
