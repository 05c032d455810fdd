import math

import numpy as np

from attn_explorer.engine import compute, preset
from attn_explorer.engine.softmax_lab import entropy, softmax, sweep, zero_renormalize


def test_softmax_matches_the_engine_row():
    trace = compute(preset("causal").config)
    row = trace[trace.softmax_input][0, 2]  # the causal example masks, then scales
    np.testing.assert_allclose(softmax(row), trace.weights[0, 2], atol=1e-6)
    assert softmax(row)[3:].tolist() == [0, 0, 0]


def test_entropy_by_hand():
    # [0.5517, 0.4483]: -(0.5517 ln 0.5517 + 0.4483 ln 0.4483)
    p = np.array([0.5517, 0.4483])
    assert math.isclose(entropy(p), 0.6878, abs_tol=1e-4)
    assert entropy(np.array([1.0, 0, 0])) == 0
    assert math.isclose(entropy(np.full(4, 0.25)), math.log(4))


def test_sweep_sharpens_toward_one_hot():
    row = np.array([1.0, 2.0, 3.0, 0.5, -1.0])
    rows, entropies = sweep(row, np.array([0.0, 1.0, 10.0, 100.0]))
    np.testing.assert_allclose(rows[0], 0.2)
    assert math.isclose(entropies[0], math.log(5))
    assert np.all(np.diff(entropies) < 0)
    assert rows[-1].argmax() == 2 and rows[-1, 2] > 0.9999


def test_method_1_on_one_row_zeroes_the_hidden_and_renormalizes():
    row = np.array([0.3293, 0.1218, 0.1238, 0.0183])
    hidden = np.array([False, False, True, True])
    weights = zero_renormalize(row, hidden)
    np.testing.assert_allclose(weights, [0.5517, 0.4483, 0, 0], atol=1e-4)
    np.testing.assert_allclose(weights, softmax(np.where(hidden, -np.inf, row)))
    rows, _ = sweep(row, np.array([1.0]), hidden)
    np.testing.assert_array_equal(rows[0], weights)
    # At k = 10⁴ the visible keys underflow beside a higher hidden one: 0/0, were their
    # exact share not taken instead.
    rows, _ = sweep(np.array([0.1, 0.05, 0.9, 0.0]), np.array([1e4]), hidden)
    np.testing.assert_allclose(rows[0], [1, 0, 0, 0], atol=1e-12)
    assert not np.isnan(rows).any()
