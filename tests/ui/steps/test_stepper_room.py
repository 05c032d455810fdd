"""Room in the step-through: the stage names, the matrices, the panels and the lesson in a
small or short window and at a larger text size."""

import pytest
from PySide6.QtCore import QRectF

from attn_explorer.engine import preset
from attn_explorer.ui.steps.room import MATRIX_ROW_MIN_HEIGHT
from attn_explorer.ui.text_size import text_size
from tests.ui.conftest import example_lesson
from tests.ui.steps.conftest import load


def test_a_laptop_window_shows_all_stage_names_and_gives_the_matrices_room(window, steps, qtbot):
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    steps.set_stage("softmax")
    qtbot.wait(50)
    bar = steps.stages
    metrics = bar.fontMetrics()
    for index in range(bar.count()):
        assert bar.tabRect(index).right() <= bar.width()
        assert bar.tabRect(index).width() > metrics.horizontalAdvance(bar.tabText(index))
    assert steps.extras.isVisible()
    assert steps.extras.height() <= steps.height() // 3
    assert steps.figure_view.height() > steps.extras.height()


@pytest.mark.parametrize("stage", ["softmax", "mask"])
def test_a_short_window_gives_the_matrices_room_first(
    window, wait_settled, steps, qtbot, stage, normal_size
):
    """At 1080p and 200 % (960 × 540 logical pixels) the softmax bars ran into their slider
    and text, and the stage's matrices were a line of labels: now the bars give way."""
    load(window, wait_settled, "causal")
    steps.set_stage(stage)
    window.resize(960, 540)
    # While the panel is shown it counts in the window's least height, which may stop this
    # first resize short of 540 px; once it gives way the window goes down as far as its
    # least height lets it, as it does when the learner drags its edge on.
    qtbot.waitUntil(lambda: not steps.extras.isVisible())
    window.resize(960, 540)
    least = max(540, window.layout().totalMinimumSize().height())
    qtbot.waitUntil(lambda: window.height() <= least and not steps.extras.isVisible())
    assert steps.figure_view.height() >= 200
    window.resize(960, 800)  # room for both: the panel comes back, at its full height
    qtbot.waitUntil(lambda: steps.extras.isVisible())
    qtbot.wait(20)
    assert steps.extras.height() >= steps.extras.currentWidget().minimumSizeHint().height()
    assert steps.figure_view.height() >= steps.figure_need()


def matrix_heights(steps) -> list[float]:
    return [plot.geometry().height() for plot in steps.figure.plots]


@pytest.mark.parametrize("stage", ["softmax", "mask"])
def test_a_small_window_keeps_the_stage_matrices_not_the_panel(
    window, wait_settled, steps, qtbot, stage
):
    """At 1024 × 700 the title and formula took most of the 200 px kept for the figure: the
    scores and weights were strips 8–40 px tall without numbers, beside a full-size panel."""
    load(window, wait_settled, "causal")
    steps.set_stage(stage)
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.height() == 700 and not steps.extras.isVisible())
    qtbot.wait(20)
    assert min(matrix_heights(steps)) >= MATRIX_ROW_MIN_HEIGHT
    left_out = {  # and it says so: at 150 % text the panel went without a word
        "softmax": "The softmax bars, the sharpening slider and “Why √d_k?” (also in the",
        "mask": "The comparison of the two masking methods needs more height",
    }[stage]
    assert steps.extras_left_out.isVisible()
    assert steps.extras_left_out.text().startswith(left_out)
    window.resize(1366, 768)  # a laptop: both fit
    qtbot.waitUntil(lambda: steps.extras.isVisible())
    qtbot.wait(20)
    assert not steps.extras_left_out.isVisible()
    assert min(matrix_heights(steps)) >= MATRIX_ROW_MIN_HEIGHT
    assert steps.figure_view.height() >= steps.figure_need()


def test_a_projector_at_200_percent_keeps_the_stage_matrices_legible(
    window, wait_settled, steps, qtbot, normal_size
):
    """A 1080p projector at 200 % text: the softmax bars kept 150 px though their titles and
    labels doubled (they ran into the slider), and the matrices were 8–40 px strips."""
    load(window, wait_settled, "causal")
    steps.set_stage("softmax")
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.height() == 1080)
    text_size.set_factor(2.0)
    qtbot.waitUntil(lambda: not steps.extras.isVisible())
    qtbot.wait(20)
    assert min(matrix_heights(steps)) >= 2 * MATRIX_ROW_MIN_HEIGHT
    assert steps.softmax_panel.score_plot.minimumHeight() == 300
    view = steps.figure_view
    for plot in steps.figure.plots:  # every value written, at 12 pt or more
        cell = plot.cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
        assert plot.cells.written(cell)[1].pointSizeF() >= 12
    text_size.reset()
    qtbot.waitUntil(steps.extras.isVisible)  # back at 100 %: room for the bars again


def test_sixteen_heads_concatenated_say_which_are_drawn_and_get_the_width(
    window, wait_settled, steps
):
    """Z_cat sat in one eighth of the width (unreadable), and nothing said that heads 9–16
    were left out of the row above it."""
    load(window, wait_settled, "mha")
    window.controls.d_out.spin.setValue(32)
    window.controls.heads.spin.setValue(16)
    wait_settled(window)
    steps.set_stage("concat")
    *heads, concat = steps.figure.plots
    assert len(heads) == 8
    assert "heads 9–16 are in Z_cat" in steps.figure.reason.text
    assert concat.width() > 4 * heads[0].width()


def test_the_step_through_shows_the_loaded_examples_lesson(window, wait_settled, steps, qtbot):
    """The matrices tab writes the example's lesson under its matrices; the step-through
    said nothing of which tutorial's numbers it walks through."""
    from attn_explorer.engine import PRESETS

    lesson = steps.lesson
    startup = PRESETS["causal-class"]
    assert lesson.isVisible()
    assert lesson.text() == example_lesson(startup.name)
    assert window.board.explanation.text().startswith(lesson.text())  # as the matrices say
    load(window, wait_settled, "dropout")
    whole = example_lesson("dropout")
    assert lesson.text() == whole and lesson.isVisible()
    # An edit that leaves the example takes the lesson away; undoing it brings it back.
    window.controls.dropout_seed.setValue(124)
    wait_settled(window)
    assert not lesson.isVisible()
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert lesson.isVisible() and lesson.text() == whole


def test_in_a_short_window_the_lesson_gives_way_to_the_matrices_and_the_panel(
    window, wait_settled, steps, qtbot
):
    """Written whole at 1024 × 768, the dropout lesson's four lines left out the softmax
    bars there: it is cut to one line (whole in its tooltip) before the panel goes."""
    example = preset("dropout")
    whole = example_lesson(example.name)
    load(window, wait_settled, "dropout")
    steps.set_stage("softmax")
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.height() == 768)
    qtbot.waitUntil(lambda: steps.softmax_panel.isVisible())
    lesson = steps.lesson
    assert lesson.isVisible() and not steps.extras_left_out.isVisible()
    assert lesson.text().endswith("…") and lesson.height() < 2 * lesson.fontMetrics().height()
    assert lesson.toolTip() == whole
    # The matrices keep their least height (laid out on a later turn).
    qtbot.waitUntil(lambda: steps.figure_view.height() >= steps.figure_need() - 1)
    window.resize(1500, 940)  # room: whole again
    qtbot.waitUntil(lambda: lesson.toolTip() == "")
    assert lesson.text() == whole and lesson.isVisible()


def test_a_panel_shown_at_a_larger_text_size_leaves_the_window_as_narrow_as_before(
    window, steps, qtbot, normal_size
):
    """The softmax panel, laid out at 200 % text and then put aside for the mask stage's,
    kept its width of then: back at 100 % the window could not be narrower than 869 px,
    81 more than before (more in a longer language)."""
    window.resize(1024, 768)
    steps.set_stage("mask")
    least = window.minimumSizeHint().width()
    for factor, stage in ((2.0, "softmax"), (1.0, "mask")):
        text_size.set_factor(factor)
        qtbot.wait(50)  # the new fonts reach the widgets as events
        steps.set_stage(stage)
        qtbot.wait(50)
    assert window.minimumSizeHint().width() == least
