"""The live matrices in the window: heads and the all-heads grid, hover, keys and the
followed query, labels and hatching, at every window size and direction."""

import json
import math

import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QFont, QFontMetricsF

from attn_explorer.engine import PRESETS, compute
from attn_explorer.model.state import ExplorerState
from attn_explorer.ui.main_window import MainWindow
from tests.ui.conftest import assert_shows, settled


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


def test_mask_keys_navigate_heads(window, stepped_window, wait_settled, qtbot):
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


def test_undo_brings_back_the_head_that_was_chosen(window, stepped_window, wait_settled, qtbot):
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


def test_a_head_picked_from_the_list_is_drawn_once(
    window, stepped_window, wait_settled, monkeypatch
):
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
