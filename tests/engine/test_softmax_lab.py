import math

import numpy as np

from attn_explorer.engine import compute, preset
from attn_explorer.engine.softmax_lab import entropy, softmax, sweep


def test_softmax_matches_the_engine_row():
    trace = compute(preset("causal").config)
    np.testing.assert_allclose(softmax(trace.masked_scores[0, 2]), trace.weights[0, 2], atol=1e-6)
    assert softmax(trace.masked_scores[0, 2])[3:].tolist() == [0, 0, 0]


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
