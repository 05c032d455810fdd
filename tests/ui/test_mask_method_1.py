"""Mask method 1 ("softmax, zero, renormalize") as the window shows it: softmax is fed the
unmasked scaled scores, then the hidden weights are zeroed, then each row is divided by its
visible sum. Method 2 (−∞, then softmax) is shown as it was."""

import numpy as np
import pytest


@pytest.fixture
def method_1(window, wait_settled):
    """The window on tutorial 000's causal example with mask method 1."""
    window.load_preset("causal")
    wait_settled(window)
    window.doc.set_control("mask_method", "renormalize")
    wait_settled(window)
    return window


def test_the_matrices_show_method_1_feeding_softmax_the_unmasked_scores(method_1, wait_settled):
    board = method_1.board
    plot = board.views["scores"].plot
    assert plot.shown.name == "masked_scores"
    assert plot.title.text.startswith("<b>Unmasked scores (method 1)</b>")
    np.testing.assert_array_equal(plot.matrix, method_1.trace.scaled_scores[0])
    assert np.isfinite(plot.matrix).all() and not plot._hatch.hatched
    fine, _ = plot.cells._texts
    assert "−∞" not in fine and fine[6 + 3] == "0.0183"  # row 2 journey, hidden key 4
    hidden = board.explain_cell(plot, 1, 3)
    assert hidden.startswith("ω̃[2,4] = 0.0183: fed to softmax as it is, though hidden")
    assert "exp(−∞)" not in hidden and "is then zeroed" in hidden
    assert board.score_box.itemText(0) == "Scores fed to softmax"
    # Method 2 as it was: −∞ in the hidden cells, hatched.
    method_1.doc.set_control("mask_method", "neg_inf")
    wait_settled(method_1)
    assert plot.title.text.startswith("<b>Masked scores</b>")
    assert plot._hatch.hatched and plot.cells._texts[0][6 + 3] == "−∞"
    assert "exp(−∞) = 0" in board.explain_cell(plot, 1, 3)
