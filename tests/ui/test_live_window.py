"""The live window: controls reach the engine, views show its numbers, nothing is lost."""

import json
import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF, QSettings, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QGuiApplication, QKeySequence

from attn_explorer.engine import PRESETS, compute
from attn_explorer.model.state import ExplorerState
from attn_explorer.ui.engine_thread import Failure
from attn_explorer.ui.main_window import MainWindow
from tests.ui.conftest import assert_shows, settled


def test_first_picture_is_the_default_example(window):
    weights = window.board.views["weights"].plot.matrix
    np.testing.assert_allclose(weights[1, :2], [0.4833, 0.5167], atol=1e-4)
    assert window.board.views["scores"].plot.shown.name == "masked_scores"
    assert_shows(window)


def test_the_status_bar_says_the_engine_is_starting_until_the_first_picture(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.status_text.text() == "Starting the engine (loading PyTorch)…"
    with qtbot.waitSignal(win.firstPicture, timeout=30_000):
        win.show()
    assert win.status_text.text().startswith("linear · d_out 2")
    win.close()
    assert not win.bridge.is_running()


@pytest.mark.parametrize(
    ("control", "value", "field", "expected"),
    [
        ("seed", 789, "seed", 789),
        ("d_out", 5, "d_out", 5),
        ("heads", 3, "num_heads", 3),
        ("dropout", 0.35, "dropout", 0.35),
        ("temperature", 2.5, "temperature", 2.5),
    ],
)
def test_each_slider_reaches_the_engine(window, wait_settled, control, value, field, expected):
    getattr(window.controls, control).spin.setValue(value)
    wait_settled(window)
    assert getattr(window.trace.config, field) == pytest.approx(expected)
    assert_shows(window)


def test_slider_half_of_a_pair_reaches_the_engine(window, wait_settled):
    window.controls.d_out.slider.setValue(window.controls.d_out.slider.value() + 3)
    wait_settled(window)
    assert window.trace.config.d_out == 5
    assert window.controls.d_out.spin.value() == 5


@pytest.mark.parametrize(
    ("widget", "data", "field", "expected"),
    [
        ("projection", "rand", "projection", "rand"),
        ("projection", "none", "projection", "none"),
        ("layout_box", "split", "head_layout", "split"),
        ("mask_method", "renormalize", "mask_method", "renormalize"),
    ],
)
def test_each_choice_reaches_the_engine(window, wait_settled, widget, data, field, expected):
    box = getattr(window.controls, widget)
    box.setCurrentIndex(box.findData(data))
    wait_settled(window)
    assert getattr(window.trace.config, field) == expected
    assert_shows(window)


@pytest.mark.parametrize(
    ("check", "field", "value"),
    [
        ("out_proj", "out_proj", True),
        ("qkv_bias", "qkv_bias", True),
        ("causal", "causal", False),
        ("scale", "scale", False),
        ("training", "training", False),
    ],
)
def test_each_checkbox_reaches_the_engine(window, wait_settled, check, field, value):
    getattr(window.controls, check).setChecked(value)
    wait_settled(window)
    assert getattr(window.trace.config, field) == value
    assert_shows(window)


def test_valid_length_reaches_the_engine(window, wait_settled):
    window.controls.valid_len.setValue(4)
    window.controls.padding.setChecked(True)
    wait_settled(window)
    assert window.trace.config.valid_len == 4
    assert window.board.views["mask"].plot.matrix[0].tolist() == [0, 1, 1, 1, 1, 1]
    assert window.board.views["mask"].plot.matrix[5].tolist() == [0, 0, 0, 0, 1, 1]
    assert_shows(window)


def test_reseeding_dropout_shows_the_tutorials_dropped_weights(window, wait_settled):
    """Tutorial 000 §3.5.2 set up by hand: seed 789, causal, p 0.5, reseed with 123."""
    c = window.controls
    assert not c.reseed_dropout.isEnabled()  # p = 0: no dropout to reseed
    assert c.reseed_dropout.toolTip().endswith("Disabled: No dropout to reseed: p is 0.")
    c.seed.spin.setValue(789)
    c.dropout.spin.setValue(0.5)
    assert c.reseed_dropout.isEnabled() and not c.dropout_seed.isEnabled()
    c.dropout_seed.setValue(123)
    c.reseed_dropout.setChecked(True)
    assert c.dropout_seed.isEnabled()
    box = window.board.weight_box
    box.setCurrentIndex(box.findData("weights_dropped"))
    wait_settled(window)
    assert window.trace.config.dropout_seed == 123
    np.testing.assert_allclose(
        window.board.views["weights"].plot.matrix[2], [0.7599, 0.6194, 0.6206, 0, 0, 0], atol=1e-4
    )
    assert window.doc.undo_stack.undoText() == "Turn on reseeding before dropout"
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.trace.config.dropout_seed is None
    assert not c.reseed_dropout.isChecked() and c.dropout_seed.value() == 123
    assert_shows(window)


def test_cross_attention_uses_the_second_table(window, wait_settled):
    window.doc.kv.insert_tokens(6, 2, np.random.default_rng(1))
    window.controls.causal.setChecked(False)
    window.controls.cross.setChecked(True)
    wait_settled(window)
    assert window.trace.config.n_k == 8
    assert window.board.views["weights"].plot.matrix.shape == (6, 8)
    assert window.editor.tabs.isTabEnabled(1)
    assert_shows(window)


def test_preset_menu_loads_an_example(window, wait_settled):
    combo = window.controls.preset
    combo.setCurrentIndex(combo.findData("mha"))
    combo.activated.emit(combo.currentIndex())
    wait_settled(window)
    np.testing.assert_allclose(window.trace.context[0], [0.3190, 0.4858], atol=1e-4)
    assert combo.currentText() == PRESETS["mha"].title  # the box names what is loaded
    assert window.controls.heads.value() == 2
    assert window.controls.layout_box.currentData() == "split"
    assert_shows(window)
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.trace.config.num_heads == 1
    assert combo.currentText() == PRESETS["causal-class"].title  # the default example's


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

    from attn_explorer.cli.window import add_state_arguments, state_from_args

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

    from attn_explorer.cli.window import add_state_arguments, state_from_args

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
    assert window.doc.undo_stack.undoText() == f"Load example “{PRESETS['mha'].title}”"


def test_rapid_moves_coalesce_and_end_on_the_last_config(window, wait_settled, qtbot):
    before = window.bridge.computations
    for seed in range(1000, 1200):
        window.controls.seed.slider.setValue(seed)
        if seed % 10 == 0:
            qtbot.wait(1)  # let some results arrive mid-burst, as a real drag would
    wait_settled(window)
    assert window.trace.config.seed == 1199
    assert window.bridge.computations - before < 60
    assert_shows(window)


def test_edits_within_one_event_loop_turn_are_sent_once_more_at_its_end(window, wait_settled):
    """The first edit goes to the engine at once; the rest of a same-turn burst, once."""
    generation = window.bridge.generation
    window.controls.seed.spin.setValue(500)
    assert window.bridge.generation == generation + 1  # no waiting for the first
    for seed in range(501, 600):
        window.controls.seed.spin.setValue(seed)
    assert window.bridge.generation == generation + 1
    wait_settled(window)
    assert window.bridge.generation == generation + 2
    assert window.trace.config.seed == 599
    assert_shows(window)


def test_impossible_combination_is_explained_and_the_picture_stays(window, wait_settled, qtbot):
    window.controls.layout_box.setCurrentIndex(window.controls.layout_box.findData("split"))
    window.controls.d_out.spin.setValue(5)
    wait_settled(window)
    window.controls.heads.spin.setValue(2)
    error = window.controls.errors["num_heads"]
    qtbot.waitUntil(error.isVisible)
    assert "d_out 5 cannot be split into 2 heads" in error.text()
    assert "d_out 5 cannot be split" in window.status_text.text()
    shown = window.trace
    assert shown.config.d_out == 5 and shown.config.num_heads == 1  # the last good picture
    assert window.controls.d_out.value() == 5  # nothing else was changed
    window.controls.d_out.spin.setValue(6)
    wait_settled(window)
    assert not error.isVisible()
    assert window.trace.config.num_heads == 2


def test_engine_errors_show_in_the_status_bar(window, qtbot):
    model = window.doc.queries
    model.setData(model.index(0, 1), "1e30")
    model.setData(model.index(0, 2), "1e30")
    window.controls.projection.setCurrentIndex(window.controls.projection.findData("none"))
    qtbot.waitUntil(lambda: "overflowed float32" in window.status_text.text(), timeout=20_000)
    assert window.trace.config.projection == "linear"  # the last good picture stays


def test_status_bar_summarises_config_shapes_and_time(window, wait_settled):
    window.controls.heads.spin.setValue(2)
    wait_settled(window)
    assert window.status_text.text() == "linear · d_out 2 · 2 heads (stacked) · causal · seed 123"
    assert window.shape_text.text() == "X 6×3 → Q,K,V 2×6×2 → α 2×6×6 → out 6×4"
    assert window.time_text.text().startswith("engine ")


def test_the_shapes_show_whole_or_elided_never_cut_at_their_start(window, wait_settled):
    """After "Why √dₖ? Show me" the shapes read "‹ 8×16 → Q,K,V …": a text a few pixels wider
    than its fixed-width, right-aligned label lost its leading "X" with no sign of it."""
    window.stepper.softmax_panel.why.click()
    wait_settled(window)
    label, full = window.shape_text, "X 8×16 → Q,K,V 1×8×64 → α 1×8×8 → out 8×64"

    def shown_in_full_or_visibly_cut() -> bool:
        fits = label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
        whole = label.text() == full and label.toolTip() == ""
        cut = label.text().startswith("X 8×16") and "…" in label.text()
        return fits and (whole or (cut and label.toolTip() == full))

    assert shown_in_full_or_visibly_cut()
    assert label.full_text() == full
    own = label.width()  # the bar has room for the whole text: the label gets it
    for width in (120, 900, own):  # as a narrower or wider window would size it
        label.setFixedWidth(width)
        assert shown_in_full_or_visibly_cut(), width
        assert (label.text() == full) == (width != 120)


def test_head_selector_and_grid(window, wait_settled):
    window.controls.heads.spin.setValue(4)
    wait_settled(window)
    window.board.set_head(2)
    assert window.board.views["weights"].plot.shown.head == 2
    assert_shows(window)
    window.board.show_all_heads(True)
    assert len(window.board.grid_plots) == 4
    expected = compute(window.doc.config())
    for h, plot in enumerate(window.board.grid_plots):
        np.testing.assert_array_equal(plot.matrix, expected.weights[h])


def test_all_heads_grid_shares_one_scale_that_ignores_masked_cells(window, wait_settled):
    window.controls.heads.spin.setValue(3)
    wait_settled(window)
    board = window.board
    board.show_all_heads(True)
    board.heads_array.setCurrentIndex(board.heads_array.findData("masked_scores"))
    trace = window.trace
    visible = np.abs(trace.scaled_scores[:, ~trace.mask])  # the −∞ cells must not count
    lo, hi = board.grid_bar.levels
    assert math.isfinite(hi) and lo == -hi
    assert visible.max() <= hi < 2 * visible.max()
    assert all(plot.levels == (lo, hi) for plot in board.grid_plots)


def test_all_heads_grid_reuses_its_plots_as_the_head_count_changes(window, wait_settled):
    """Plots are pooled: one built per change was never freed (a leak found by the soak)."""
    window.board.show_all_heads(True)
    made: set[int] = set()
    for heads in (4, 2, 6, 1, 4):
        window.controls.heads.spin.setValue(heads)
        wait_settled(window)
        plots = window.board.grid_plots
        assert len(plots) == heads
        made |= {id(p) for p in plots}
        expected = compute(window.doc.config())
        for h, plot in enumerate(plots):
            assert plot.scene() is window.board.grid.scene()
            np.testing.assert_array_equal(plot.matrix, expected.weights[h])
    assert len(made) == 6
    unplaced = [p for p in window.board._grid_pool if p not in window.board.grid_plots]
    assert unplaced and all(p.matrix is None and p.shown is None for p in unplaced)


def test_hover_explains_and_click_follows_a_query(window):
    plot = window.board.views["scores"].plot
    text = window.board.explain_cell(plot, 1, 0)
    assert text.startswith("ωₘ[2,1] = ω[2,1] = ")  # the example masks the raw scores first
    plot.cellClicked.emit(3, 0)
    assert window.doc.view.query == 3
    for key in ("scores", "mask", "weights", "queries", "context"):
        assert window.board.views[key].plot._row_box.isVisible()
        assert window.board.views[key].plot._row_box.rect().top() == 3
    assert not window.board.views["keys"].plot._row_box.isVisible()
    assert window.editor.query_table.currentIndex().row() == 3


def test_the_keyboard_moves_over_cells_explains_them_and_follows_a_query(window, qtbot):
    """Hover and click were the only ways to read how a cell was computed or to follow a
    query: a keyboard user could do neither."""
    from PySide6.QtWidgets import QApplication

    view = window.board.views["weights"]
    window.activateWindow()
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, Qt.Key.Key_Down)  # shows the cursor on the followed query's row
    assert view.key_cell == (1, 0)
    qtbot.keyClick(view, Qt.Key.Key_Down)
    qtbot.keyClick(view, Qt.Key.Key_Right)
    assert view.key_cell == (2, 1)
    assert view.plot._hover_box.isVisible() and view.plot._hover_box.rect().top() == 2
    assert window.board.explanation.text() == window.board.explain_cell(view.plot, 2, 1)
    for _ in range(9):
        qtbot.keyClick(view, Qt.Key.Key_Down)
    assert view.key_cell == (5, 1)  # stops at the last row
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert window.doc.view.query == window.board.query == window.stepper.query == 5
    window.doc.queries.remove_tokens([4, 5])  # the outlined row is gone: an IndexError
    qtbot.waitUntil(lambda: view.plot.matrix.shape[0] == 4)
    qtbot.keyClick(view, Qt.Key.Key_Return)
    assert view.key_cell == (3, 1) and window.board.query == 3
    window.editor.query_table.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not view)
    assert view.key_cell is None and not view.plot._hover_box.isVisible()


def test_every_token_is_labelled_at_tutorial_size(window):
    rows, cols = window.board.views["weights"].plot.tick_labels
    assert rows == cols == ["Your", "journey", "starts", "with", "one", "step"]


def test_no_column_label_is_cut_off_at_the_right(window, qtbot):
    """A slanted label leans right of its column; the last must end inside its axis, whose
    cached picture clips anything beyond (the narrow mask view once showed "ste")."""
    window.resize(1500, 900)
    qtbot.wait(50)
    width_of = QFontMetricsF(QFont()).horizontalAdvance
    for key, view in window.board.views.items():
        plot = view.plot
        axis = plot.top_axis
        assert axis.labels, key
        position, text = axis.labels[-1]
        x = axis.mapFromScene(plot.view.mapViewToScene(QPointF(position, 0))).x()
        reach = {0: width_of(text) / 2, 45: width_of(text) * 0.7072, 90: 8}[axis.angle]
        assert x + reach <= axis.boundingRect().right() + 2, (key, axis.angle, text)


def test_labels_thin_out_for_long_sequences(window, wait_settled):
    window.doc.queries.insert_tokens(6, 250, np.random.default_rng(0))
    wait_settled(window)
    rows, cols = window.board.views["weights"].plot.tick_labels
    assert 5 < len(rows) < 256 and 5 < len(cols) < 256
    assert window.board.views["weights"].plot.cells._texts == ([], [])  # no cell text


def test_masked_cells_are_hatched_with_minus_infinity(window):
    plot = window.board.views["scores"].plot
    assert plot._hatch.hatched
    fine, _ = plot.cells._texts
    assert fine[1] == "−∞" and fine[0] != "−∞"
    weights = window.board.views["weights"].plot
    assert weights.image.image[0, 1] >> 24 == 0  # transparent over the hatching, not a zero colour
    assert weights.image.image[0, 0] >> 24 == 255


def test_the_scores_title_names_a_mask_only_when_there_is_one(window, wait_settled):
    plot = window.board.views["scores"].plot
    assert "Masked scores" in plot.title.text  # the default example is causal
    window.controls.causal.setChecked(False)
    wait_settled(window)
    assert "Masked" not in plot.title.text
    assert "Scores fed to softmax (no mask)" in plot.title.text


def test_mask_keys_navigate_heads(window, wait_settled, qtbot):
    window.controls.heads.spin.setValue(3)
    wait_settled(window)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_BracketRight, Qt.KeyboardModifier.ControlModifier)
    assert window.board.head == 1


def test_removing_the_followed_token_follows_the_last_one_until_undone(
    window, wait_settled, tmp_path
):
    """Undo brought the token back but not the following of it: the document's whole state
    differed from before the removal."""
    before = window.doc.state()
    window.board.views["weights"].plot.cellClicked.emit(5, 0)
    followed = window.doc.state()
    window.doc.queries.remove_tokens([4, 5])
    wait_settled(window)
    assert window.board.query == window.stepper.query == 3
    assert window.board.views["weights"].plot._row_box.rect().top() == 3
    assert window.current_figure()[0].query == 3
    assert window.files.save_to(tmp_path / "s.json")  # a session follows a token it has
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))["view"]["query"] == 3
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.doc.state() == followed != before
    assert window.board.query == window.stepper.query == 5
    assert window.board.views["weights"].plot._row_box.rect().top() == 5


def _followed_token(window) -> str:
    return window.doc.queries.tokens[window.board.query]


@pytest.mark.parametrize(
    ("edit", "row"),
    [
        (lambda q: q.insert_tokens(0, 2), 5),  # two new tokens above it
        (lambda q: q.remove_tokens([0]), 2),  # a token above it removed
        (lambda q: q.move_token(3, 1), 4),  # moved down by one
        (lambda q: q.move_token(2, 1), 2),  # the token above it moved down past it
        (lambda q: q.insert_tokens(5, 1), 3),  # a token below it: nothing moves
    ],
)
def test_the_followed_query_stays_on_its_token_when_rows_move(window, wait_settled, edit, row):
    """The followed query was a row number: inserting a token above it followed another
    token, and the step-through silently explained a different word."""
    window.board.views["weights"].plot.cellClicked.emit(3, 0)
    token = _followed_token(window)
    edit(window.doc.queries)
    wait_settled(window)
    assert window.board.query == window.stepper.query == window.doc.view.query == row
    assert _followed_token(window) == token
    assert window.current_figure()[0].query == row
    assert window.editor.query_table.current_row() == row
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.board.query == window.stepper.query == window.doc.view.query == 3
    window.doc.undo_stack.redo()
    wait_settled(window)
    assert window.board.query == window.stepper.query == row
    assert _followed_token(window) == token


def test_undoing_a_row_edit_keeps_a_query_chosen_since(window, wait_settled):
    """Undo of an inserted token brought back the query followed before it, dropping the
    one the learner had clicked since."""
    window.doc.queries.insert_tokens(0, 1)
    wait_settled(window)
    window.board.views["weights"].plot.cellClicked.emit(4, 0)  # "with"
    assert _followed_token(window) == "with"
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.board.query == window.stepper.query == window.doc.view.query == 3
    assert _followed_token(window) == "with"
    window.doc.undo_stack.redo()
    wait_settled(window)
    assert _followed_token(window) == "with"


def test_removing_the_followed_token_follows_the_one_that_took_its_place(window, wait_settled):
    window.board.views["weights"].plot.cellClicked.emit(2, 0)
    after = window.doc.queries.tokens[3]
    window.doc.queries.remove_tokens([1, 2])
    wait_settled(window)
    assert window.board.query == window.stepper.query == 1
    assert _followed_token(window) == after
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.board.query == window.stepper.query == 2


def test_a_seed_move_touches_no_control_tooltip_or_status_style(window, wait_settled):
    """Every move re-checks which controls are enabled and sets the status line; setting an
    unchanged tooltip or style sheet still costs each widget an event (a re-polish for the
    style sheet), 0.6 ms of a 6-token move."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    class Count(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def eventFilter(self, obj, event):
            if event.type() in (QEvent.Type.ToolTipChange, QEvent.Type.StyleChange):
                self.seen.append(type(obj).__name__)
            return False

    window.controls.seed.spin.setValue(500)
    wait_settled(window)
    counter = Count()
    QApplication.instance().installEventFilter(counter)
    try:
        window.controls.seed.spin.setValue(501)
        wait_settled(window)
    finally:
        QApplication.instance().removeEventFilter(counter)
    # Only the status line, whose text (and so tooltip) names the new seed.
    assert counter.seen == ["QLabel"]
    assert "seed 501" in window.status_text.toolTip()


def test_loading_an_example_names_it_until_the_next_edit(window, qtbot, wait_settled):
    preset = PRESETS["causal"]
    window.load_preset("causal")
    wait_settled(window)
    qtbot.wait(20)
    bar = window.statusBar()
    # The new picture's summary must not overwrite the notice.
    assert bar.currentMessage() == f"Loaded example “{preset.title}”"
    assert not window.status_text.isVisible()
    window.controls.seed.spin.setValue(window.controls.seed.spin.value() + 1)
    wait_settled(window)
    assert bar.currentMessage() == ""
    assert window.status_text.isVisible()
    assert window.status_text.text().startswith("linear · d_out")


def test_a_problem_is_not_hidden_behind_a_notice(window, qtbot, wait_settled):
    window.controls.layout_box.setCurrentIndex(window.controls.layout_box.findData("split"))
    window.controls.d_out.spin.setValue(5)
    wait_settled(window)
    window.notify("Saved somewhere")
    window.controls.heads.spin.setValue(2)
    qtbot.waitUntil(lambda: bool(window.problems))
    assert window.statusBar().currentMessage() == ""
    assert window.status_text.isVisible()
    assert "d_out 5 cannot be split" in window.status_text.text()


def test_an_engine_failure_after_a_notice_clears_the_notice(window):
    """No edit in between (a loaded example whose numbers overflow): the failure itself must
    clear the notice, or the notice would hide it."""
    window.notify("Loaded an example")
    window._show_failure(Failure(window.bridge.generation, "Scores overflowed float32.", None))
    assert window.statusBar().currentMessage() == ""
    assert window.status_text.isVisible()
    assert window.status_text.text() == "Scores overflowed float32."


def test_a_long_notice_takes_the_shapes_room_and_a_longer_one_is_cut_in_the_middle(window):
    bar = window.statusBar()
    assert window.shape_text.x() - 8 == window.time_text.x() - 8 - window.shape_text.width() - 6
    window.notify("Saved a.json")  # fits: the shapes stay, no tooltip
    assert bar.currentMessage() == "Saved a.json" and bar.toolTip() == ""
    assert window.shape_text.isVisible()

    window.resize(960, 760)  # a small screen: the demonstration's notice needs the shapes' room
    window.stepper.softmax_panel.why.click()
    assert "Ctrl+Z undoes the demo." in bar.currentMessage()
    assert bar.toolTip() == "" and not window.shape_text.isVisible()
    bar.clearMessage()  # the notice's time is up: the shapes come back
    assert window.shape_text.isVisible()

    path = "/home/teacher/" + "lectures/" * 40 + "attention-week-3.png"
    window.notify(f"Exported {path}")  # longer than the whole bar: cut, whole in the tooltip
    shown = bar.currentMessage()
    assert shown.startswith("Exported /home/") and shown.endswith("week-3.png") and "…" in shown
    assert bar.fontMetrics().horizontalAdvance(shown) <= window.time_text.x() - 8
    assert bar.toolTip() == f"Exported {path}"
    window.notify("Saved a.json")  # a short notice after it brings the shapes back at once
    assert window.shape_text.isVisible() and bar.toolTip() == ""
    bar.clearMessage()
    assert bar.toolTip() == ""


def test_notices_fit_a_right_to_left_status_bar(window):
    """Measured as if left to right, every notice became "…" beside labels on the left."""
    bar = window.statusBar()
    window.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
    try:
        window.resize(1501, 940)  # lay the bar out right to left
        window.resize(1500, 940)
        assert window.time_text.x() < window.shape_text.x() < bar.width() // 2
        window.notify("Saved a.json")
        assert bar.currentMessage() == "Saved a.json" and window.shape_text.isVisible()
        path = "/home/teacher/" + "lectures/" * 40 + "attention-week-3.png"
        window.notify(f"Exported {path}")
        shown = bar.currentMessage()
        assert shown.startswith("Exported /home/") and shown.endswith("week-3.png")
        right_end = window.time_text.geometry().right() + 1 + 2
        assert bar.fontMetrics().horizontalAdvance(shown) <= bar.width() - 12 - right_end
    finally:
        window.setLayoutDirection(Qt.LayoutDirection.LeftToRight)


def _tip(widget) -> str:
    """The tooltip Qt shows over `widget`: its own, else the nearest ancestor's."""
    while widget is not None and not widget.toolTip():
        widget = widget.parentWidget()
    return widget.toolTip() if widget is not None else ""


@pytest.mark.parametrize("tab", [0, 1])
def test_every_control_says_what_it_does(window, qtbot, tab):
    from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QSlider

    window.tabs.setCurrentIndex(tab)
    qtbot.waitUntil(window.tabs.currentWidget().isVisible)
    silent = [
        f"{type(c).__name__} {getattr(c, 'text', lambda: '')()!r}"
        for kind in (QAbstractButton, QComboBox, QAbstractSpinBox, QSlider)
        for c in window.findChildren(kind)
        if c.isVisible() and c.objectName() != "qt_tableview_cornerbutton" and not _tip(c)
    ]
    assert silent == []


def test_edit_menu_entries_are_words_not_arrows(window):
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    texts = [a.text().split("\t")[0] for a in edit.actions() if not a.isSeparator()]
    assert "Move token up" in texts and "Move token down" in texts
    assert all(len(t.replace("&", "")) > 2 for t in texts), texts
    assert window.editor.actions["move_up"].iconText() == "↑"  # the button stays compact


def test_a_laptop_window_labels_every_column_of_the_tutorial_matrices(window, qtbot, wait_settled):
    window.load_preset("mha")
    wait_settled(window)
    window.resize(1280, 800)
    qtbot.waitUntil(lambda: window.width() == 1280)
    qtbot.wait(50)
    tokens = ["Your", "journey", "starts", "with", "one", "step"]
    for key in ("scores", "mask", "weights"):
        assert window.board.views[key].plot._shown_ticks[1] == tokens, key


def test_slanted_labels_are_inside_the_axis_area_that_is_repainted(window):
    axis = window.board.views["weights"].plot.top_axis
    assert axis.angle == 45
    rect = axis.boundingRect()
    view = axis.linkedView()
    last_x = axis.mapFromScene(view.mapViewToScene(QPointF(5.5, 0))).x()
    width = QFontMetricsF(axis.font()).horizontalAdvance("step")
    assert rect.right() >= last_x + width * math.cos(math.radians(45))


def test_a_big_table_settles_after_an_edit(qtbot, monkeypatch):
    """Sized to their shown labels, the axes of the mask and weights views of a 1024-token
    table traded 8 px forever after an edit (the thinning followed the size, the size the
    thinning): the window never went idle."""
    from attn_explorer.model.state import Controls, ExplorerState, random_sequence
    from attn_explorer.ui.heatmap import MatrixPlot

    state = ExplorerState(
        queries=random_sequence(1024, 128, seed=1),
        kv=None,
        controls=Controls(d_out=16, num_heads=4, causal=True),
    )
    win = MainWindow(state)
    qtbot.addWidget(win, before_close_func=lambda w: w.doc.undo_stack.setClean())
    win.resize(1500, 940)
    with qtbot.waitSignal(win.firstPicture, timeout=60_000):
        win.show()
    model = win.doc.queries
    model.setData(model.index(5, 3), "0.77")
    qtbot.waitUntil(lambda: settled(win), timeout=60_000)
    qtbot.wait(300)
    refreshes = []
    original = MatrixPlot._refresh_ticks
    monkeypatch.setattr(
        MatrixPlot, "_refresh_ticks", lambda self: refreshes.append(self) or original(self)
    )
    qtbot.wait(500)
    assert refreshes == []
    win.doc.undo_stack.setClean()
    win.close()


def test_the_all_heads_grid_outlines_the_followed_query_only_where_rows_are_queries(
    window, wait_settled
):
    window.controls.heads.spin.setValue(4)
    wait_settled(window)
    board = window.board
    board.show_all_heads(True)
    board.grid_plots[0].cellClicked.emit(4, 0)
    assert all(p._row_box.isVisible() for p in board.grid_plots)  # weights: query rows
    board.heads_array.setCurrentIndex(board.heads_array.findData("keys"))
    assert not any(p._row_box.isVisible() for p in board.grid_plots)  # key rows: none
    board.heads_array.setCurrentIndex(board.heads_array.findData("queries"))
    assert all(p._row_box.rect().top() == 4 for p in board.grid_plots)


@pytest.mark.parametrize("name", ["mha", "cross"])
def test_the_window_fits_a_1024_pixel_projector(window, wait_settled, name):
    """The preset box sized to its longest title, the board's boxes to theirs and the status
    labels to the longest shapes made the window at least 1128 px wide: on a 1024 × 768
    projector the weights and the context were off the screen."""
    window.load_preset(name)
    wait_settled(window)
    assert window.minimumSizeHint().width() <= 960  # also 1920 × 1080 at 200 %
    window.resize(960, 700)
    assert window.width() == 960


def test_the_first_window_fits_the_screen_and_later_ones_open_where_it_was_left(qtbot):
    room = QGuiApplication.primaryScreen().availableGeometry()  # 800 × 800 offscreen
    first = MainWindow()
    qtbot.addWidget(first, before_close_func=lambda w: w.doc.undo_stack.setClean())
    first.place_on_screen((1500, 940))  # too big for this screen: the whole screen
    assert first.windowState() & Qt.WindowState.WindowMaximized
    small = MainWindow()
    qtbot.addWidget(small, before_close_func=lambda w: w.doc.undo_stack.setClean())
    QSettings().remove("window/geometry")
    small.place_on_screen((700, 600))
    assert (small.width(), small.height()) == (700, 600)
    assert small.geometry().center() == room.center()
    small.resize(720, 640)
    small.close()
    again = MainWindow()
    qtbot.addWidget(again, before_close_func=lambda w: w.doc.undo_stack.setClean())
    again.place_on_screen((1500, 940))
    assert (again.width(), again.height()) == (720, 640)
    again.close()
    QSettings().remove("window/geometry")


def test_a_window_sized_for_a_screenshot_leaves_the_users_place_alone(window):
    QSettings().setValue("window/geometry", b"kept")
    window.close()
    assert QSettings().value("window/geometry") == b"kept"
    QSettings().remove("window/geometry")


def test_undo_brings_back_the_head_that_was_chosen(window, wait_settled, qtbot):
    """Fewer heads show the last one, as fewer tokens show the last query; an undo that
    restores the heads restores the head chosen, on the board and in the step-through."""
    window.controls.heads.spin.setValue(4)
    wait_settled(window)
    window.board.set_head(3)
    assert window.stepper.head_box.currentIndex() == 3
    window.doc.undo_stack.setClean()  # the next change is its own undo step, not merged
    window.controls.heads.spin.setValue(2)
    wait_settled(window)
    assert window.board.head_box.currentIndex() == 1 and window.stepper.shown_head == 1
    assert window.board.views["weights"].plot.shown.head == 1
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.doc.controls.num_heads == 4
    assert window.board.head_box.currentIndex() == 3 and window.stepper.shown_head == 3
    assert window.board.views["weights"].plot.shown.head == 3
    window.doc.undo_stack.redo()  # two heads again: head 2 shown, head 4 still the choice
    wait_settled(window)
    assert window.board.head == 3 and window.board.head_box.currentIndex() == 1
    window.board.head_box.activated.emit(1)  # picking the head shown makes it the choice
    assert window.board.head == window.stepper.head == 1


def test_a_head_picked_from_the_list_is_drawn_once(window, wait_settled, monkeypatch):
    """Qt reports a pick twice (the index changed, then activated), and the board and the
    step-through each drew the new head twice, the step-through's figure included."""
    window.load_preset("wrapper")
    wait_settled(window)
    window.tabs.setCurrentWidget(window.stepper)
    drawn = []
    for owner, method in ((window.board, "_redraw"), (window.stepper, "redraw")):
        original = getattr(owner, method)
        monkeypatch.setattr(owner, method, lambda o=original, m=method: drawn.append(m) or o())
    box = window.board.head_box
    box.setCurrentIndex(1)  # as a pick from the list does: index changed, then activated
    box.activated.emit(1)
    assert sorted(drawn) == ["_redraw", "redraw"]
    assert window.board.views["weights"].plot.shown.head == window.stepper.shown_head == 1


@pytest.fixture
def right_to_left(qapp):
    """The application laid out right to left, as an Arabic or Hebrew translation does."""
    qapp.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
    yield
    qapp.setLayoutDirection(Qt.LayoutDirection.LeftToRight)


def test_matrices_read_left_to_right_in_a_right_to_left_window(right_to_left, qtbot):
    """Mirrored, the row labels sat right of their matrix, the colour bar's labels fell off
    its right edge, the stage's arrow pointed from the weights back to the scores, and the
    table's columns read 3, 2, 1."""
    win = MainWindow(ExplorerState.from_config(PRESETS["mha"].config))
    qtbot.addWidget(win, before_close_func=lambda w: w.doc.undo_stack.setClean())
    win.resize(1500, 940)
    with qtbot.waitSignal(win.firstPicture, timeout=30_000):
        win.show()
    assert win.isRightToLeft()
    for view in win.board.views.values():
        plot = view.plot
        left, box, bar = plot.plot.getAxis("left"), plot.view, plot.colorbar
        assert left.sceneBoundingRect().right() <= box.sceneBoundingRect().left() + 1
        assert box.sceneBoundingRect().right() <= bar.sceneBoundingRect().left() + 1
    # Their painters too: numbers written "-0.15", not "0.15-", right to left.
    views = [*win.board.views.values(), win.stepper.figure_view]
    assert all(view.viewport().isLeftToRight() for view in views)
    win.tabs.setCurrentWidget(win.stepper)
    win.stepper.set_stage("softmax")
    scores, weights = win.stepper.figure.plots
    assert scores.sceneBoundingRect().right() < weights.sceneBoundingRect().left()
    table = win.editor.query_table
    assert table.columnViewportPosition(1) < table.columnViewportPosition(2)


def values_written(view) -> bool:
    """Whether a matrix view writes its values (they fit its cells)."""
    from PySide6.QtCore import QRectF

    cells = view.plot.cells
    cell = cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
    return cells.written(cell) is not None


def test_f9_gives_the_matrices_the_whole_width_to_present(window, wait_settled, qtbot):
    """At 1024 × 700 (a small projector) the controls' column leaves the matrices too narrow for
    a single value; hiding it writes them all."""
    window.resize(1024, 700)
    window.load_preset("wrapper")
    wait_settled(window)
    qtbot.waitUntil(lambda: window.width() == 1024)
    action, splitter = window.controls_action, window.window_layout.splitter
    assert action.shortcut().toString() == "F9" and action.isChecked()
    assert action in window.menuBar().actions()[2].menu().actions()  # View
    weights = window.board.views["weights"]
    assert not values_written(weights)
    action.trigger()
    qtbot.waitUntil(lambda: all(values_written(v) for v in window.board.views.values()))
    assert not window.controls.isVisible() and not window.editor.isVisible()
    action.trigger()
    qtbot.waitUntil(lambda: window.controls.isVisible() and splitter.sizes()[0] > 300)
    # A width the user gave the column comes back after F9 twice.
    window.resize(1500, 700)
    qtbot.waitUntil(lambda: window.width() == 1500)
    splitter.moveSplitter(600, 1)
    given = splitter.sizes()[0]
    assert given > window.window_layout.side.minimumSizeHint().width() + 100
    action.trigger()
    qtbot.waitUntil(lambda: splitter.sizes()[0] == 0)  # hidden, and laid out so
    action.trigger()
    qtbot.waitUntil(lambda: window.controls.isVisible() and splitter.sizes()[0] == given)
    # Dragged shut by hand: the menu says so, and F9 opens it at its usual width.
    splitter.moveSplitter(0, 1)
    assert not action.isChecked()
    action.trigger()
    qtbot.waitUntil(lambda: window.controls.isVisible() and splitter.sizes()[0] > 300)


def test_f11_shows_the_window_full_screen_and_back(window, qtbot):
    action = window.full_screen_action
    assert action.shortcut().matches(QKeySequence(QKeySequence.StandardKey.FullScreen))
    window.setWindowState(Qt.WindowState.WindowMaximized)
    action.trigger()
    qtbot.waitUntil(lambda: bool(window.windowState() & Qt.WindowState.WindowFullScreen))
    action.trigger()
    qtbot.waitUntil(lambda: window.windowState() == Qt.WindowState.WindowMaximized)
    # Made full screen by the window manager, or restored so from a window closed in full
    # screen: F11 still leaves it, for the state before (F11 only unticked the menu).
    window.setWindowState(Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen)
    qtbot.waitUntil(action.isChecked)
    action.trigger()
    qtbot.waitUntil(lambda: window.windowState() == Qt.WindowState.WindowMaximized)
    assert not action.isChecked()
    window.setWindowState(Qt.WindowState.WindowNoState)


def test_a_long_title_is_written_smaller_before_it_is_cut(window, wait_settled, qtbot):
    """Cross-attention at 1366 × 768: the scores' title lost its end, "· head 1 4×6", the
    non-square shape that is the point of the example."""
    window.resize(1366, 768)
    window.load_preset("cross")
    wait_settled(window)
    qtbot.waitUntil(lambda: window.width() == 1366)
    qtbot.wait(50)
    title = window.board.views["scores"].plot.title
    assert "head 1" in title.text and "4×6" in title.text
    assert title.item.scale() < 1
    assert title.itemRect().width() <= title.rect().width() + 0.5  # whole
    assert title.item.scale() >= title.LEAST_SCALE
    window.resize(1900, 768)  # room again: full size
    qtbot.waitUntil(lambda: title.item.scale() == 1)


def test_the_loaded_example_is_named_and_its_lesson_read_whole(window, wait_settled):
    """The dropout example's lesson was only in the status bar, cut in the middle ("kept
    cell…starts”"), and the examples' box always read "Load a tutorial example…"."""
    combo, help_pane = window.controls.preset, window.board.explanation
    example = PRESETS["dropout"]
    # At startup, the default example is named, its lesson above the hover help.
    assert combo.currentText() == PRESETS["causal-class"].title
    startup_lesson, hover_help = help_pane.text().split("\n")
    assert startup_lesson.startswith("Example: CausalAttention (seed 123) — Tutorial 000 §3.5.3")
    assert hover_help.startswith("Hover over a cell to see how it is computed")
    window.load_preset("dropout")
    wait_settled(window)
    assert combo.currentText() == "Dropout 0.5 on the causal weights (reseed 123)"
    lesson = f"Example: {example.title} — {example.source}"
    assert help_pane.text() == lesson + "\n" + hover_help  # whole, the hover help after it
    assert "the tutorial's 0.7599, 0.6194, 0.6206 (all of “journey”'s are dropped)" in lesson
    assert example.source in combo.toolTip()
    # An edit that changes what is computed leaves the example: the box and the strip say so.
    window.controls.dropout_seed.setValue(124)
    wait_settled(window)
    assert combo.currentIndex() == 0 and combo.currentText() == "Load a tutorial example…"
    assert help_pane.text() == hover_help
    assert example.source not in combo.toolTip()
    window.doc.undo_stack.undo()  # back to the example: named again, its lesson again
    wait_settled(window)
    assert combo.currentText() == example.title and help_pane.text().startswith(lesson)
    # Where the learner looks (stage, followed query, head) is no edit of the example.
    window._query_chosen(4)
    window.tabs.setCurrentIndex(1)
    window.stepper.set_stage("softmax")
    window.tabs.setCurrentIndex(0)
    assert combo.currentText() == example.title
    # A hover replaces the lesson; an edit after it leaves the cell's explanation alone.
    plot = window.board.views["weights"].plot
    window.board._clicked(plot, 2, 1)
    cell = help_pane.text()
    assert cell == window.board.explain_cell(plot, 2, 1) and example.source not in cell
    window.controls.temperature.spin.setValue(2.0)
    wait_settled(window)
    assert combo.currentIndex() == 0 and help_pane.text() == cell
    # Choosing the list's first entry loads nothing and names what is on screen.
    window.doc.undo_stack.undo()
    wait_settled(window)
    combo.setCurrentIndex(0)
    combo.activated.emit(0)
    assert combo.currentText() == example.title and window.doc.config() == example.config


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
    assert combo.currentText() == PRESETS["happy"].title
