"""The step-through's stages: each draws the trace's arrays, skips say why, and the keys,
buttons and Play walk them."""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from attn_explorer.engine import STEP_KEYS, compute, preset
from attn_explorer.model.state import ExplorerState
from attn_explorer.text.steps import step_text
from attn_explorer.ui.steps.stage_panels import stage_panels
from tests.ui.steps.conftest import load


@pytest.mark.parametrize("name", ["mha", "dropout", "cross", "padding", "simple"])
def test_every_stage_shows_the_trace_arrays(window, wait_settled, steps, name):
    load(window, wait_settled, name)
    trace = compute(window.doc.config())
    for key in STEP_KEYS:
        steps.set_stage(key)
        panels = stage_panels(trace, key, steps.head)
        assert len(steps.figure.plots) == len(panels) > 0
        for plot, panel in zip(steps.figure.plots, panels, strict=True):
            assert plot.shown.name == panel.name
            expected = trace.matrix(panel.name, panel.head)
            np.testing.assert_array_equal(plot.matrix, expected.astype(plot.matrix.dtype))
        assert steps.figure.formula.text == step_text(trace.step(key)).formula_html


def test_revisiting_stages_reuses_the_plots(window, wait_settled, steps):
    """Stage figures draw on a pool of plots: none are built on a second pass, none leak."""
    load(window, wait_settled, "mha")
    for key in STEP_KEYS:
        steps.set_stage(key)
    pool = list(steps.figure._pool)
    for key in reversed(STEP_KEYS):
        steps.set_stage(key)
        assert all(plot in pool for plot in steps.figure.plots)
    assert steps.figure._pool == pool
    steps.set_stage("scale")  # two matrices: the rest of the pool must let go of its arrays
    unplaced = [p for p in pool if p not in steps.figure.plots]
    assert unplaced and all(p.matrix is None and p.hidden is None for p in unplaced)


def test_stage_shapes_are_in_the_titles(window, steps):
    steps.set_stage("scores")
    titles = [plot.title.text for plot in steps.figure.plots]
    assert "Queries Q" in titles[0] and "6×2" in titles[0]
    assert "6×6" in titles[-1]


@pytest.mark.parametrize(
    ("name", "changes", "skips"),
    [
        ("causal-class", {}, {"dropout", "concat", "out_proj"}),
        ("simple", {}, {"projections", "scale", "mask", "dropout", "concat", "out_proj"}),
        ("mha", {}, {"dropout"}),
        ("dropout", {"training": False}, {"dropout", "concat", "out_proj"}),
        ("padding", {"scale": False}, {"scale", "dropout", "concat", "out_proj"}),
    ],
)
def test_skipped_stages_are_marked_with_their_reason(
    window, wait_settled, steps, name, changes, skips
):
    state = ExplorerState.from_config(preset(name).config).with_controls(**changes)
    window.doc.load_state(state, "test")
    wait_settled(window)
    grey = {
        key
        for row, key in enumerate(STEP_KEYS)
        if steps.stages.tabTextColor(row).name() == "#a0a0a0"
    }
    assert grey == skips
    for key in skips:
        steps.set_stage(key)
        reason = step_text(window.trace.step(key)).reason
        assert reason and steps.figure.reason.text == reason
        assert reason in steps.stages.tabToolTip(STEP_KEYS.index(key))
        assert "skipped" in steps.figure.title.text


def test_arrow_keys_and_buttons_navigate(steps, qtbot):
    steps.set_stage("embeddings")
    steps.stages.setFocus()
    qtbot.keyClick(steps.stages, Qt.Key.Key_Right)
    assert steps.stage == "projections"
    qtbot.keyClick(steps.figure_view, Qt.Key.Key_Right)
    assert steps.stage == "scores"
    qtbot.keyClick(steps.figure_view, Qt.Key.Key_Left)
    assert steps.stage == "projections"
    steps.next_button.click()
    assert steps.stage == "scores"
    steps.prev_button.click()
    steps.prev_button.click()
    assert steps.stage == "embeddings" and not steps.prev_button.isEnabled()


def test_play_walks_through_the_stages_that_apply_and_stops(steps, qtbot):
    steps.timer.setInterval(10)
    applying = [s.key for s in steps.trace.steps if s.applies]
    assert len(applying) < len(STEP_KEYS)  # the default example skips some (no mask, ...)
    visited = []
    steps.stageChanged.connect(visited.append)
    steps.set_stage(applying[-1])
    visited.clear()
    steps.play_button.click()  # from the last stage that applies: start again
    # (seven stages drawn and painted: 1.3 s on a quiet machine, 3.5 s at a load of 7)
    qtbot.waitUntil(lambda: not steps.play_button.isChecked(), timeout=10_000)
    assert applying[0] == "embeddings" and visited == applying
    assert steps.play_button.text() == "▶ Play"


def test_space_plays_and_pauses(steps, qtbot):
    steps.set_stage("embeddings")
    steps.stages.setFocus()
    qtbot.keyClick(steps.stages, Qt.Key.Key_Space)
    assert steps.play_button.isChecked() and steps.timer.isActive()
    qtbot.keyClick(steps.stages, Qt.Key.Key_Space)
    assert not steps.play_button.isChecked() and not steps.timer.isActive()
    assert steps.stage == "embeddings"


def test_a_focused_button_or_slider_keeps_space_and_the_arrows(window, steps, qtbot):
    """The step-through's Space, ← and → took the keys from its own widgets: Space on Next
    started Play, → on the k slider changed the stage instead of k."""
    window.activateWindow()
    steps.set_stage("softmax")
    steps.next_button.setFocus()
    qtbot.waitUntil(steps.next_button.hasFocus)
    qtbot.keyClick(steps.next_button, Qt.Key.Key_Space)
    assert steps.stage == "dropout" and not steps.play_button.isChecked()
    steps.set_stage("softmax")
    slider = steps.softmax_panel.factor.slider
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus)
    before = slider.value()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert steps.stage == "softmax" and slider.value() == before + slider.singleStep()
    steps.stages.setFocus()  # elsewhere in the step-through, the keys still walk the stages
    qtbot.keyClick(steps.stages, Qt.Key.Key_Right)
    assert steps.stage == "dropout"


def test_a_focused_head_box_keeps_space_and_the_arrows(window, wait_settled, steps, qtbot):
    """Space on the step-through's head box started Play instead of opening its list."""
    window.load_preset("wrapper")
    wait_settled(window)
    window.activateWindow()
    steps.set_stage("softmax")
    steps.head_box.setFocus()
    qtbot.waitUntil(steps.head_box.hasFocus)
    qtbot.keyClick(steps.head_box, Qt.Key.Key_Down)
    assert steps.head_box.currentIndex() == 1 and steps.stage == "softmax"
    qtbot.keyClick(steps.head_box, Qt.Key.Key_Space)
    assert not steps.play_button.isChecked()
    assert steps.head_box.view().isVisible()
    steps.head_box.hidePopup()
