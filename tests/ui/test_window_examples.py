"""The examples (menu, box, command line, their lessons) and the controls they set: greyed
where they change nothing, without leaving the example."""

import numpy as np
from PySide6.QtCore import QPointF, Qt

from attn_explorer.engine import PRESETS
from attn_explorer.text.examples import example_text
from attn_explorer.ui.main_window import MainWindow
from tests.ui.conftest import assert_shows, example_lesson


def test_preset_menu_loads_an_example(window, wait_settled):
    combo = window.controls.preset
    combo.setCurrentIndex(combo.findData("mha"))
    combo.activated.emit(combo.currentIndex())
    wait_settled(window)
    np.testing.assert_allclose(window.trace.context[0], [0.3190, 0.4858], atol=1e-4)
    assert combo.currentText() == example_text("mha").title  # the box names what is loaded
    assert window.controls.heads.value() == 2
    assert window.controls.layout_box.currentData() == "split"
    assert_shows(window)
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.trace.config.num_heads == 1
    assert combo.currentText() == example_text("causal-class").title  # the default example's


def test_the_dropout_example_shows_the_weights_it_drops_until_undone(window, wait_settled):
    """The dropout example opened on the softmax weights: "journey" read 0.55 and 0.45 beside
    a context of 0.0000 and 0.0000 (computed from the dropped weights), and nothing on screen
    showed the description's "kept cells × 2, the rest 0"."""
    box = window.board.weight_box
    weights = window.board.views["weights"].plot
    window.load_preset("dropout")
    wait_settled(window)
    assert box.currentText() == "Weights after dropout"
    assert weights.title.text.startswith("<b>Weights after dropout</b>")
    assert weights.matrix[1, :2].tolist() == [0.0, 0.0]  # journey's, as its context
    assert weights.matrix[0, 0] == 2.0  # kept: × 1/(1 − p)
    assert window.trace.context[1].tolist() == [0.0, 0.0]
    box.setCurrentIndex(box.findData("weights"))  # the softmax weights, asked for
    assert weights.title.text.startswith("<b>Weights before dropout</b>")
    window.doc.undo_stack.undo()  # the example and the weights it chose, in one step
    wait_settled(window)
    assert box.currentText() == "Weights (softmax)"
    assert weights.title.text.startswith("<b>Attention weights</b>")
    window.doc.undo_stack.redo()
    wait_settled(window)
    assert box.currentText() == "Weights after dropout"
    # An example without dropout after it: the softmax weights, not "after dropout" over a
    # matrix titled "no dropout".
    window.load_preset("causal")
    wait_settled(window)
    assert box.currentText() == "Weights (softmax)"
    assert weights.title.text.startswith("<b>Attention weights</b>")
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert box.currentText() == "Weights after dropout"


def test_a_window_opened_on_the_dropout_example_shows_the_dropped_weights(qtbot):
    """`python main.py --preset dropout`, as the command line makes its state."""
    import argparse

    from attn_explorer.cli.arguments import add_state_arguments, state_from_args

    parser = argparse.ArgumentParser()
    add_state_arguments(parser)
    state = state_from_args(parser.parse_args(["--preset", "dropout"]))
    window = MainWindow(state)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    assert window.board.weight_box.currentText() == "Weights after dropout"
    plain = state_from_args(parser.parse_args(["--preset", "causal"]))
    assert plain.view.weights_array == "weights"  # no dropout: the softmax weights


def test_the_dropout_example_follows_starts_until_undone(window, wait_settled):
    """It followed “journey”, whose weights are all dropped: its A·V worked example was
    "= 0 = 0.0000". “starts” keeps the tutorial's 0.7599, 0.6194, 0.6206."""
    from attn_explorer.ui.steps.worked_lines import followed_text

    window._query_chosen(4)  # the learner follows “one”
    steps = window.doc.undo_stack.count()
    window.load_preset("dropout")
    wait_settled(window)
    assert window.doc.undo_stack.count() == steps + 1  # one step, the query included
    assert window.doc.view.query == window.board.query == window.stepper.query == 2
    text = followed_text(window.trace, "context", 0, window.stepper.query)
    assert text.startswith("Following query 3 “starts”:")
    text = text.replace("\u00a0", " ")  # (the formula's lead is one unbreakable piece)
    assert "z3[1] = Σⱼ α_d[3,j]·vⱼ[1] = 0.7599×(-0.0872) + 0.6194×(-0.1137) + " in text
    assert window.editor.query_table.currentIndex().row() == 2
    window.doc.undo_stack.undo()  # the example, and the query it chose
    wait_settled(window)
    assert window.doc.view.query == window.board.query == window.stepper.query == 4
    window.doc.undo_stack.redo()
    wait_settled(window)
    assert window.doc.view.query == window.stepper.query == 2
    window.load_preset("causal")  # the other examples follow “journey”, as the tutorials
    wait_settled(window)
    assert window.doc.view.query == window.stepper.query == 1


def test_the_command_line_opens_an_example_on_its_followed_query():
    import argparse

    from attn_explorer.cli.arguments import add_state_arguments, state_from_args

    parser = argparse.ArgumentParser()
    add_state_arguments(parser)
    assert state_from_args(parser.parse_args(["--preset", "dropout"])).view.query == 2
    assert state_from_args(parser.parse_args(["--preset", "v1"])).view.query == 1


def test_the_example_box_loads_only_what_is_chosen_in_its_list(window, wait_settled, qtbot):
    """↓ on the closed box, a letter, or a wheel tick over it (while scrolling the controls)
    each replaced the whole session with the first example."""
    from PySide6.QtCore import QPoint
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    combo = window.controls.preset
    before = window.doc.state()
    wheel = QWheelEvent(
        QPointF(combo.rect().center()),
        QPointF(combo.mapToGlobal(combo.rect().center())),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(combo, wheel)
    assert window.doc.state() == before and window.doc.undo_stack.count() == 0
    combo.setFocus()
    for key, shift in ((Qt.Key.Key_Down, False), (Qt.Key.Key_S, False), (Qt.Key.Key_C, True)):
        modifier = Qt.KeyboardModifier.ShiftModifier if shift else Qt.KeyboardModifier.NoModifier
        qtbot.keyClick(combo, key, modifier)
        assert combo.view().isVisible()  # the list opens; nothing is loaded
        assert window.doc.state() == before and window.doc.undo_stack.count() == 0
        combo.hidePopup()
    combo.showPopup()
    list_view = combo.view()
    list_view.setCurrentIndex(combo.model().index(combo.findData("mha"), 0))
    qtbot.keyClick(list_view, Qt.Key.Key_Return)
    wait_settled(window)
    assert window.controls.heads.value() == 2
    assert window.doc.undo_stack.undoText() == f"Load example “{example_text('mha').title}”"


def test_the_loaded_example_is_named_and_its_lesson_read_whole(
    window, stepped_window, wait_settled
):
    """The dropout example's lesson was only in the status bar, cut in the middle ("kept
    cell…starts”"), and the examples' box always read "Load a tutorial example…"."""
    combo, help_pane = window.controls.preset, window.board.explanation
    example = PRESETS["dropout"]
    # At startup, the default example is named, its lesson above the hover help.
    assert combo.currentText() == example_text("causal-class").title
    startup_lesson, hover_help = help_pane.text().split("\n")
    assert startup_lesson.startswith(
        "Example: CausalAttention (seed 123) — "
        "Build a Large Language Model (From Scratch), chapter 3 (§3.5.3 CausalAttention)"
    )
    assert hover_help.startswith("Hover over a cell to see how it is computed")
    window.load_preset("dropout")
    wait_settled(window)
    assert combo.currentText() == "Dropout 0.5 on the causal weights (reseed 123)"
    lesson = example_lesson(example.name)
    assert help_pane.text() == lesson + "\n" + hover_help  # whole, the hover help after it
    assert "the tutorial's 0.7599, 0.6194, 0.6206 (all of “journey”'s are dropped)" in lesson
    assert example_text(example.name).source in combo.toolTip()
    # An edit that changes what is computed leaves the example: the box and the strip say so.
    window.controls.dropout_seed.setValue(124)
    wait_settled(window)
    assert combo.currentIndex() == 0 and combo.currentText() == "Load a tutorial example…"
    assert help_pane.text() == hover_help
    assert example_text(example.name).source not in combo.toolTip()
    window.doc.undo_stack.undo()  # back to the example: named again, its lesson again
    wait_settled(window)
    assert combo.currentText() == example_text(example.name).title and help_pane.text().startswith(
        lesson
    )
    # Where the learner looks (stage, followed query, head) is no edit of the example.
    window._query_chosen(4)
    window.tabs.setCurrentIndex(1)
    window.stepper.set_stage("softmax")
    window.tabs.setCurrentIndex(0)
    assert combo.currentText() == example_text(example.name).title
    # A hover replaces the lesson; an edit after it leaves the cell's explanation alone.
    plot = window.board.views["weights"].plot
    window.board._clicked(plot, 2, 1)
    cell = help_pane.text()
    assert (
        cell == window.board.explain_cell(plot, 2, 1)
        and example_text(example.name).source not in cell
    )
    window.controls.temperature.spin.setValue(2.0)
    wait_settled(window)
    assert combo.currentIndex() == 0 and help_pane.text() == cell
    # Choosing the list's first entry loads nothing and names what is on screen.
    window.doc.undo_stack.undo()
    wait_settled(window)
    combo.setCurrentIndex(0)
    combo.activated.emit(0)
    assert (
        combo.currentText() == example_text(example.name).title
        and window.doc.config() == example.config
    )


def test_the_seed_is_disabled_where_nothing_is_drawn_and_the_summary_leaves_it_out(
    window, wait_settled
):
    """The `happy` example draws nothing at random, yet the status bar said "seed 123" and
    the seed slider moved as if it mattered."""
    c = window.controls
    window.load_preset("happy")
    wait_settled(window)
    assert not c.seed.isEnabled() and c.seed.value() == 123  # the value is kept
    assert c.seed.toolTip().endswith(
        "Disabled: Nothing is drawn at random: with projection “none” there are no weights "
        "(and no output projection), and no dropout acts."
    )
    window.statusBar().clearMessage()
    assert window.status_text.text() == "none · 1 head"
    # An output projection draws its weights from the seed: it matters again.
    c.out_proj.setChecked(True)
    wait_settled(window)
    assert c.seed.isEnabled() and window.status_text.text() == "none · 1 head · out_proj · seed 123"
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert not c.seed.isEnabled()
    # So does a dropout mask drawn after it, and not one drawn from its own seed.
    c.dropout.spin.setValue(0.5)
    wait_settled(window)
    assert c.seed.isEnabled() and window.status_text.text().endswith("dropout 0.5 · seed 123")
    c.reseed_dropout.setChecked(True)
    wait_settled(window)
    assert not c.seed.isEnabled() and "“Reseed first”" in c.seed.toolTip()
    assert window.status_text.text().endswith("dropout 0.5 · dropout seed 123")
    # Projections draw their weights from it.
    c.projection.setCurrentIndex(c.projection.findData("linear"))
    wait_settled(window)
    assert c.seed.isEnabled() and not c.seed.toolTip().count("Disabled")
    assert "· seed 123" in window.status_text.text()


def test_training_mode_is_disabled_while_p_is_0(window, wait_settled):
    """ "Training mode (dropout active)" stayed ticked and active at p = 0, where nothing is
    dropped in either mode."""
    c = window.controls
    assert c.doc.controls.dropout == 0 and c.training.isChecked()
    assert not c.training.isEnabled()
    assert "dropout active" not in c.training.text()
    assert c.training.toolTip().endswith(
        "Disabled: p is 0: nothing is dropped, so training and evaluation mode compute the same."
    )
    c.dropout.spin.setValue(0.3)
    wait_settled(window)
    assert c.training.isEnabled() and c.training.isChecked()
    c.training.setChecked(False)
    wait_settled(window)
    assert not window.trace.config.dropout_active
    assert c.reseed_dropout.toolTip().endswith(
        "Disabled: No dropout to reseed: training mode is off."
    )
    c.dropout.spin.setValue(0.0)
    wait_settled(window)
    assert not c.training.isEnabled() and not c.training.isChecked()  # kept, greyed
    assert c.reseed_dropout.toolTip().endswith("Disabled: No dropout to reseed: p is 0.")
    window.doc.undo_stack.undo()  # p back to 0.3: training can be ticked again
    wait_settled(window)
    assert c.training.isEnabled() and not c.training.isChecked()


def test_heads_are_disabled_without_projections_unless_more_than_one(window, wait_settled):
    c = window.controls
    window.load_preset("simple")
    wait_settled(window)
    assert not c.heads.isEnabled() and c.heads.value() == 1
    assert c.heads.toolTip().endswith(
        "Disabled: With projection “none”, Q = K = V = X: there is one head."
    )
    window.doc.set_control("num_heads", 2)  # as a session could hold it: fixable where shown
    assert c.heads.isEnabled()


def test_a_greyed_setting_does_not_leave_the_example(window, wait_settled):
    """Back to projection none after a seed changed with nn.Linear: `happy` computes what it
    did, and the box names it again, though its (greyed) seed is another."""
    c, combo = window.controls, window.controls.preset
    window.load_preset("happy")
    wait_settled(window)
    c.projection.setCurrentIndex(c.projection.findData("linear"))
    c.seed.spin.setValue(7)
    wait_settled(window)
    assert combo.currentIndex() == 0
    c.projection.setCurrentIndex(c.projection.findData("none"))
    wait_settled(window)
    assert window.doc.controls.seed == 7 and not c.seed.isEnabled()
    assert combo.currentText() == example_text("happy").title
