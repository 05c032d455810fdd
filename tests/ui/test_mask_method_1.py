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
    # Method 2 "as it was" below: dividing first (the example masks the raw scores first).
    window.doc.set_control("mask_before_scaling", False)
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
    assert board.score_box.itemText(0) == "Scores fed to softmax ω̃ (method 1)"
    # Method 2 as it was: −∞ in the hidden cells, hatched.
    method_1.doc.set_control("mask_method", "neg_inf")
    wait_settled(method_1)
    assert plot.title.text.startswith("<b>Masked scores</b>")
    assert board.score_box.itemText(0) == "Scores fed to softmax ω̃ₘ"
    assert plot._hatch.hatched and plot.cells._texts[0][6 + 3] == "−∞"
    assert "exp(−∞) = 0" in board.explain_cell(plot, 1, 3)


def test_the_softmax_stage_of_method_1_shows_its_three_steps(method_1, steps):
    """Its worked lines are whole equations in the formula's terms: they continued one
    another ("α2 = ⊙ (1 − M2) / 0.3700"), and the hover summed over the cell's own j."""
    steps.set_stage("softmax")
    figure = steps.figure
    assert [plot.shown.name for plot in figure.plots] == [
        "masked_scores",
        "weights_unmasked",
        "weights_zeroed",
        "weights",
    ]
    titles = [plot.title.text for plot in figure.plots]
    assert titles[0].startswith("<b>Unmasked scores (method 1)</b>")
    assert titles[1].startswith("<b>softmax(ω̃), every key</b>")
    assert titles[2].startswith("<b>Hidden weights zeroed</b>")
    assert np.isfinite(figure.plots[0].matrix).all() and figure.plots[0].hidden is None
    assert figure.formula.text.startswith("α = softmax(ω̃) ⊙ (1 − M) / Σ<sub>visible</sub>")
    lines = steps.followed.text().split("\n")
    assert lines == [
        "Following query 2 “journey”:",
        "softmax(ω̃2) = [0.2041, 0.1659, 0.1662, 0.1496, 0.1665, 0.1477]   (every key)",
        "softmax(ω̃2) ⊙ (1 − M2) = [0.2041, 0.1659, 0.0000, 0.0000, 0.0000, 0.0000],  "
        "Σ_visible = 0.3700",
        "α2 = softmax(ω̃2) ⊙ (1 − M2) / Σ_visible = [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, "
        "0.0000],  Σ α2 = 1.0000",
        "α[2,1] = softmax(ω̃)[2,1] / Σ_visible softmax(ω̃)[2,j'] = 0.20413 / 0.37001 = 0.5517",
    ]


def test_the_softmax_bars_of_method_1_feed_every_score(method_1, steps):
    steps.set_stage("softmax")
    panel = steps.softmax_panel
    trace = method_1.trace
    np.testing.assert_array_equal(panel.score_plot.bars.opts["height"], trace.scaled_scores[0, 1])
    assert len(panel.score_plot.bars.opts["x"]) == 6
    brushes = [b.name() for b in panel.score_plot.bars.opts["brushes"]]
    assert brushes[:2] == ["#b2182b"] * 2 and brushes[2:] == ["#bdbdbd"] * 4  # grey: hidden
    assert panel.score_plot.getPlotItem().titleLabel.text == (
        "Scores fed to softmax (row 2, grey: hidden)"
    )
    assert panel.weight_plot.getPlotItem().titleLabel.text == (
        "Weights: softmax, hidden zeroed, ÷ visible sum"
    )
    np.testing.assert_allclose(panel.sweep_weights, trace.weights[0, 1], atol=1e-6)
    assert "uniform over the 2 visible keys: ln 2 = 0.6931" in panel.entropy_text.text()
    panel.factor.setValue(100.0)
    panel.factor.valueChanged.emit(100.0)
    assert panel.sweep_weights[2:].tolist() == [0, 0, 0, 0]  # zeroed, at any k
    assert panel.sweep_weights.sum() == pytest.approx(1.0)


def test_the_softmax_stage_of_method_2_is_as_it_was(method_1, wait_settled, steps):
    method_1.doc.set_control("mask_method", "neg_inf")
    wait_settled(method_1)
    steps.set_stage("softmax")
    assert [plot.shown.name for plot in steps.figure.plots] == ["masked_scores", "weights"]
    assert steps.followed.text().split("\n")[1] == (
        "α2 = softmax(ω̃ₘ2) = [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000]"
    )
    panel = steps.softmax_panel
    assert len(panel.score_plot.bars.opts["x"]) == 2
    assert panel.score_plot.bars.opts["brushes"] is None
    assert panel.score_plot.getPlotItem().titleLabel.text == "Scores fed to softmax (row 2)"
    assert panel.weight_plot.getPlotItem().titleLabel.text == "Weights = softmax(scores)"


def test_the_mask_stage_of_method_1_leaves_the_scores_unmasked(method_1, steps):
    steps.set_stage("mask")
    figure = steps.figure
    assert "−∞" not in figure.formula.text
    assert figure.formula.text.startswith("M[i,j] = 1 where key j is hidden (causal:")
    output = figure.plots[-1]
    assert output.title.text.startswith("<b>Unmasked scores (method 1)</b>")
    assert np.isfinite(output.matrix).all() and output.hidden is None
    lines = steps.followed.text().split("\n")
    assert lines[1:] == [
        "M2 = [0, 0, 1, 1, 1, 1]   (1 = hidden)",
        "ω̃2 = [0.3293, 0.1218, 0.1238, 0.0183, 0.1252, 0.0060] goes to softmax unmasked "
        "(method 1 zeroes the hidden weights after it)",
    ]
    assert steps.extras.currentWidget() is steps.mask_panel  # the two methods compared


def test_method_1_with_padding_dropout_and_two_heads(method_1, wait_settled, steps):
    """Padding hides keys 5 and 6 from every query, dropout drops the renormalized weights,
    and head 2's intermediates are its own."""
    for name, value in (
        ("causal", False),
        ("padding", True),
        ("valid_len", 4),
        ("d_out", 4),
        ("num_heads", 2),
        ("dropout", 0.5),
    ):
        method_1.doc.set_control(name, value)
    wait_settled(method_1)
    trace = method_1.trace
    assert trace.config.method_1 and trace.config.dropout_active and trace.heads == 2
    steps.set_head(1)
    steps.set_stage("softmax")
    assert [plot.shown.head for plot in steps.figure.plots] == [1] * 4
    lines = steps.followed.text().split("\n")
    assert lines[0] == "Following query 2 “journey”, head 2:"
    assert lines[2].endswith(f"Σ_visible = {trace.row_sums[1, 1, 0]:.4f}")
    assert lines[2].startswith("softmax(ω̃2) ⊙ (1 − M2) = [") and lines[2].count("0.0000") == 2
    assert len(steps.softmax_panel.score_plot.bars.opts["x"]) == 6
    steps.set_stage("dropout")
    before = steps.figure.plots[0]
    assert before.title.text.startswith("<b>Weights before dropout</b>")
    np.testing.assert_array_equal(before.matrix, trace.weights_zeroed[1] / trace.row_sums[1])
