"""The step-through's softmax and mask panels: the numbers they show, the scaling demo, the
two masking methods side by side."""

import math

import numpy as np
import pytest

from tests.ui.steps.conftest import load


def test_softmax_panel_numbers(window, wait_settled, steps):
    load(window, wait_settled, "v1")
    steps.set_stage("softmax")
    panel = steps.softmax_panel
    assert steps.extras.isVisible() and steps.extras.currentWidget() is panel
    weights = np.array([0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820])
    by_hand = -sum(p * math.log(p) for p in weights)
    np.testing.assert_allclose(panel.sweep_weights, weights, atol=1e-4)
    assert panel.sweep_entropy == pytest.approx(by_hand, abs=1e-3)
    assert f"H = {panel.sweep_entropy:.4f} nats" in panel.entropy_text.text()
    panel.factor.setValue(100.0)
    panel.factor.valueChanged.emit(100.0)
    # Sharpened toward one-hot on the largest score (journey's own key, 1.3098 before scaling).
    assert panel.sweep_weights.argmax() == 1 and panel.sweep_weights.max() > 0.9
    assert panel.sweep_entropy < by_hand / 5


def test_why_scaling_demo_is_one_undo_step(window, wait_settled, steps):
    # From any seed and row: at seed 42, row 4, the demo once showed no row above 0.65.
    window.controls.seed.spin.setValue(42)
    window._query_chosen(3)
    wait_settled(window)
    steps.set_stage("softmax")
    before = window.doc.state()
    steps.softmax_panel.why.click()
    wait_settled(window)
    cfg = window.trace.config
    assert (cfg.n_q, cfg.d_in, cfg.d_out, cfg.scale, cfg.causal) == (8, 16, 64, False, False)
    assert steps.query == 1 and window.trace.weights[0, 1].max() == pytest.approx(0.966, abs=1e-3)
    assert "softmax saturates." in window.statusBar().currentMessage()
    unscaled = steps.softmax_panel.sweep_entropy
    assert unscaled < 0.5 * math.log(8)  # saturated: far from uniform over 8 keys
    window.controls.scale.setChecked(True)
    wait_settled(window)
    assert steps.softmax_panel.sweep_entropy > 2 * unscaled  # √d_k spreads the weights again
    assert window.trace.weights[0, 1].max() == pytest.approx(0.232, abs=1e-3)
    window.doc.undo_stack.undo()
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.doc.state() == before


def test_mask_methods_side_by_side(window, wait_settled, steps):
    steps.set_stage("mask")
    panel = steps.mask_panel
    assert steps.extras.currentWidget() is panel
    trace = window.trace
    np.testing.assert_array_equal(panel.method1.matrix, trace.weights_renormalize[0])
    np.testing.assert_array_equal(panel.method2.matrix, trace.weights_neg_inf[0])
    assert panel.largest < 1e-6
    assert f"{panel.largest:.3g}" in panel.difference.text()
    window.controls.causal.setChecked(False)
    wait_settled(window)
    assert not steps.extras.isVisible()


def test_the_mask_comparison_says_when_method_1_breaks_down(window, wait_settled, steps):
    """Every visible weight of a row underflowed: the panel said "nan (float32 rounding:
    they agree)"."""
    from attn_explorer.model.state import ExplorerState, TokenSequence

    tokens = TokenSequence(("a", "b", "c"), ((1.0, 0.0), (0.0, 1.0), (5.0, 5.0)))
    state = ExplorerState(queries=tokens, kv=None, controls=window.doc.controls)
    state = state.with_controls(projection="none", causal=True, scale=False, temperature=0.01)
    window.doc.load_state(state, "cold")
    wait_settled(window)
    steps.set_stage("mask")
    text = steps.mask_panel.difference.text()
    assert text.startswith("Method 1 breaks down on rows 1, 2:") and "nan" not in text
    # Wrapped: on one line the sentence made the panel, and the window, 1,253 px wide.
    assert steps.mask_panel.minimumSizeHint().width() <= 960


def test_method_1_broken_on_every_row_is_said_without_a_numpy_warning(
    window, wait_settled, steps, recwarn
):
    """Every row of method 1 divided 0 by 0: numpy warned 'All-NaN slice encountered' on the
    console while the panel wrote its sentence."""
    from attn_explorer.model.state import ExplorerState, TokenSequence

    tokens = TokenSequence(("a", "b", "c"), ((1.0, 0.0), (5.0, 0.0), (5.0, 0.0)))
    state = ExplorerState(queries=tokens, kv=None, controls=window.doc.controls)
    state = state.with_controls(
        projection="none", causal=False, padding=True, valid_len=1, scale=False, temperature=0.01
    )
    window.doc.load_state(state, "cold")
    wait_settled(window)
    steps.set_stage("mask")
    text = steps.mask_panel.difference.text()
    assert text.startswith("Method 1 breaks down on rows 1, 2, 3:")
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_the_scaling_demo_is_in_the_examples_menu(window, wait_settled, steps):
    """Its button is on the softmax panel, which a short window leaves out."""
    window.controls.seed.spin.setValue(42)
    wait_settled(window)
    window.why_scaling_action.trigger()
    wait_settled(window)
    assert window.tabs.currentIndex() == 1 and steps.stage == "softmax"
    assert window.trace.config.d_out == 64 and not window.trace.config.scale
    assert steps.followed.text().startswith("Following query 2 “t2”")
