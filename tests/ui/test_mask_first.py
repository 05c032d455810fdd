"""Tutorial 000's order in the window: the raw scores masked (its printed `masked`), then
divided by √d_k. The stages, their cells and hovers, the Matrices tab's boxes and the
control follow that order; a D2L example (padding) divides first."""

from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import compute, explain, preset
from attn_explorer.ui.matrices.board import choice_text


def hover(steps, plot, row: int, col: int) -> str:
    """What hovering the cell of a stage's plot says (the step-through's `_hovered`)."""
    return explain(steps.trace, plot.shown.name, plot.shown.head, row, col)


@pytest.fixture
def causal(window, wait_settled):
    window.load_preset("causal")
    wait_settled(window)
    return window


def test_the_mask_stage_shows_the_tutorials_masked_matrix(causal, steps):
    assert [steps.stages.tabText(i) for i in range(3, 6)] == ["4 Mask", "5 Scale", "6 Softmax"]
    steps.set_stage("mask")
    assert steps.stages.currentIndex() == 3
    plots = steps.figure.plots
    assert [plot.shown.name for plot in plots] == ["scores", "mask", "masked_scores"]
    masked = plots[2]
    fine, _ = masked.cells._texts
    assert fine[6:12] == ["0.4656", "0.1723", "−∞", "−∞", "−∞", "−∞"]  # journey's row
    assert fine[24:30] == ["0.2183", "0.0874", "0.0882", "0.0177", "0.0786", "−∞"]
    assert masked.title.text.startswith("<b>Masked scores</b>")
    assert steps.followed.text().split("\n")[2].startswith("ωₘ2 = [0.4656, 0.1723, −∞, −∞, −∞, −∞]")
    assert hover(steps, masked, 1, 0).startswith("ωₘ[2,1] = ω[2,1] = 0.4656")


def test_the_scale_stage_divides_the_masked_scores(causal, steps):
    steps.set_stage("scale")
    plots = steps.figure.plots
    assert [plot.shown.name for plot in plots] == ["masked_scores", "scaled_scores"]
    scaled = plots[1]
    assert scaled._hatch.hatched and scaled.cells._texts[0][6:9] == ["0.3293", "0.1218", "−∞"]
    assert hover(steps, scaled, 0, 1).startswith("ω̃ₘ[1,2] = ωₘ[1,2] / √2 = −∞ / √2 = −∞")
    assert steps.figure.formula.text.startswith("ω̃<sub>m</sub> = ω<sub>m</sub> / √d<sub>k</sub>")
    steps.set_stage("softmax")
    assert [plot.shown.name for plot in steps.figure.plots] == ["scaled_scores", "weights"]
    assert steps.softmax_panel.row[:2].round(4).tolist() == [0.3293, 0.1218]
    np.testing.assert_array_equal(steps.softmax_panel.weights, causal.trace.weights[0, 1])


def test_the_matrices_tab_names_both_score_matrices(causal):
    board = causal.board
    plot = board.views["scores"].plot
    assert plot.shown.name == "masked_scores"
    assert board.score_box.itemText(0) == "Masked scores ωₘ (raw, −∞ where hidden)"
    assert board.score_box.itemText(1) == "Scores fed to softmax ωₘ / √d_k"
    assert plot.cells._texts[0][6:8] == ["0.4656", "0.1723"]


def test_the_control_is_greyed_where_the_order_is_no_choice(causal, wait_settled):
    box = causal.controls.mask_before_scaling
    assert box.isEnabled() and box.isChecked()
    causal.doc.set_control("mask_method", "renormalize")
    assert not box.isEnabled() and "Method 1 masks softmax's output" in box.toolTip()
    causal.doc.set_control("mask_method", "neg_inf")
    causal.doc.set_control("scale", False)
    assert not box.isEnabled() and "Nothing divides the scores" in box.toolTip()
    causal.doc.set_control("scale", True)
    causal.doc.set_control("causal", False)
    assert not box.isEnabled() and "No mask is active" in box.toolTip()
    causal.load_preset("padding")  # tutorial 002 divides first
    wait_settled(causal)
    assert box.isEnabled() and not box.isChecked()


def test_the_order_is_one_undo_step_and_leaves_the_example(causal, wait_settled):
    stack = causal.doc.undo_stack
    count = stack.count()
    causal.controls.mask_before_scaling.setChecked(False)
    wait_settled(causal)
    assert stack.count() == count + 1
    assert stack.undoText() == "Turn off masking before scaling"
    assert causal.controls.preset.currentData() is None  # no longer the causal example
    assert causal.board.score_box.itemText(0) == "Scores fed to softmax ω̃ₘ"
    stack.undo()
    wait_settled(causal)
    assert causal.controls.mask_before_scaling.isChecked()
    assert causal.controls.preset.currentData() == "causal"


@pytest.mark.parametrize(
    ("changes", "item", "tip"),
    [
        (
            {"temperature": 2.0},
            "Scores fed to softmax ωₘ / (√d_k · T)",
            "ω̃ₘ = ωₘ / (√d_k · T), √d_k = √2, T = 2: ",
        ),
        (
            {"scale": False, "temperature": 2.0},
            "Scores fed to softmax ωₘ / T",
            "ω̃ₘ = ωₘ / T, T = 2: ",
        ),
    ],
)
def test_the_fed_scores_name_what_divides_them(qapp, changes, item, tip):
    """The box read "ωₘ / √d_k·T" (no brackets), and with scaling off its tooltip still
    named √d_k = √2 and the tutorial's keys.shape[-1]**0.5, while only T = 2 divided."""
    config = replace(preset("causal").config, **changes)
    text, tooltip = choice_text("scaled_scores", config)
    assert text == item
    assert tooltip.startswith(tip)
    assert ("keys.shape" in tooltip) == config.scale


def test_a_hidden_cells_hover_names_what_divides_it():
    """A hidden ωₘ cell's hover wrote softmax(masked / √d_k) with scaling off and T = 2."""
    trace = compute(replace(preset("causal").config, scale=False, temperature=2.0))
    text = explain(trace, "masked_scores", 0, 1, 2)
    assert "(masked_fill, then softmax(masked / T))" in text
    trace = compute(preset("causal").config)
    assert "softmax(masked / √d_k))" in explain(trace, "masked_scores", 0, 1, 2)
