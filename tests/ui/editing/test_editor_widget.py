"""The editor as a user drives it: typing in cells, toolbar actions, keyboard shortcuts."""

from dataclasses import replace

import pytest
from PySide6.QtCore import QItemSelection, QItemSelectionModel, Qt
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit

from tests.ui.conftest import settled


def type_into_cell(qtbot, table, row, col, text):
    """Open the cell's editor as a double-click would, type, and press Enter."""
    table.setCurrentIndex(table.table.index(row, col))
    table.edit(table.currentIndex())
    editor = table.findChild(QLineEdit)
    assert editor is not None and editor.isVisible()
    editor.selectAll()
    qtbot.keyClicks(editor, text)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    # Qt commits an edit finished with Enter through a queued call.
    qtbot.waitUntil(lambda: table.state() != QAbstractItemView.State.EditingState)


def test_typing_a_value_in_a_cell_recomputes(window, wait_settled, qtbot):
    table = window.editor.query_table
    type_into_cell(qtbot, table, 1, 1, "0.9")
    assert table.table.values[1, 0] == 0.9
    wait_settled(window)
    assert window.trace.config.embeddings[1][0] == 0.9


def test_typing_text_in_a_cell_is_refused_where_it_was_typed(window, qtbot):
    table = window.editor.query_table
    type_into_cell(qtbot, table, 2, 2, "abc")
    assert table.table.values[2, 1] == 0.85
    assert window.editor.error.isVisible()
    assert "“abc” is not a number. The previous value '0.85' is kept." in window.editor.error.text()


def test_ctrl_z_and_ctrl_shift_z(window, wait_settled, qtbot):
    model = window.doc.queries
    model.setData(model.index(0, 1), "0.7")
    wait_settled(window)
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert model.values[0, 0] == 0.43
    qtbot.keyClick(
        window,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert model.values[0, 0] == 0.7
    wait_settled(window)
    assert window.trace.config.embeddings[0][0] == 0.7


def test_ctrl_z_undoes_a_value_typed_in_a_spin_box_that_keeps_focus(window, qtbot):
    """The spin box's text field claimed Ctrl+Z though it had nothing to undo after Enter,
    so Edit > Undo never ran while the box had focus."""
    spin = window.controls.seed.spin
    edit = spin.lineEdit()
    window.activateWindow()
    spin.setFocus()
    qtbot.waitUntil(lambda: QApplication.focusWidget() in (spin, edit))
    edit.selectAll()
    qtbot.keyClicks(edit, "77")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert window.doc.controls.seed == 77
    qtbot.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.doc.controls.seed == 123 and spin.value() == 123
    shift_ctrl = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    qtbot.keyClick(edit, Qt.Key.Key_Z, shift_ctrl)
    assert window.doc.controls.seed == 77
    edit.selectAll()
    qtbot.keyClicks(edit, "5")  # typing, not yet entered: Ctrl+Z undoes the typing
    qtbot.keyClick(edit, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert edit.text() == "77" and window.doc.controls.seed == 77


# What Shift turns a key into on a US keyboard: Qt matches a shortcut typed with Shift under
# both names, so Ctrl+Shift+= is also Ctrl++ (two actions on it: neither runs).
US_SHIFTED = dict(zip("=-1234567890[];',./`\\", '+_!@#$%^&*(){}:"<>?~|', strict=True))


def test_no_two_shortcuts_meet_on_a_us_keyboard(window):
    """Ctrl+Shift+= (+ Token) was Ctrl++ (Larger text): with the table focused, pressing it
    did nothing but print "Ambiguous shortcut overload" (seen under X11)."""
    owner = {}
    for action in window.findChildren(QAction):
        for sequence in action.shortcuts():
            text = sequence.toString()
            names = {text}
            mods, _, key = (text[:-2], "", "+") if text.endswith("++") else text.rpartition("+")
            if "Shift" in mods.split("+") and key in US_SHIFTED:
                unshifted = [m for m in mods.split("+") if m != "Shift"]
                names.add("+".join([*unshifted, US_SHIFTED[key]]))
            for name in names:
                assert owner.setdefault(name, action.text()) == action.text(), name
    assert {"Ctrl++", "Ctrl+-", "Ctrl+I", "Ctrl+Del"} <= set(owner)


def test_insert_and_remove_a_token_with_the_keyboard(window, qtbot):
    table = window.editor.query_table
    table.setFocus()
    table.setCurrentIndex(table.table.index(1, 1))
    qtbot.keyClick(table, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    assert window.doc.queries.rowCount() == 7 and window.doc.queries.tokens[2] != "starts"
    table.setCurrentIndex(table.table.index(2, 1))
    table.selectRow(2)
    qtbot.keyClick(table, Qt.Key.Key_Delete, Qt.KeyboardModifier.ControlModifier)
    assert window.doc.queries.tokens == ("Your", "journey", "starts", "with", "one", "step")


@pytest.mark.parametrize(
    ("keys", "row"),
    [
        ((Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier), 2),  # the token moves up
        ((Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier), 3),  # a token is inserted below
    ],
)
def test_a_table_shortcut_takes_in_the_value_being_typed_and_keeps_the_keyboard(
    window, qtbot, keys, row
):
    """Alt+↑ while typing 0.99 into a cell moved the token and dropped the 0.99 (the table's
    rebuild closed the editor unsaved), and no widget had the keyboard after it."""
    table = window.editor.query_table
    table.setFocus()
    table.setCurrentIndex(table.table.index(3, 1))
    qtbot.keyClick(table, Qt.Key.Key_0)  # typing opens the cell's editor
    assert table.state() == QAbstractItemView.State.EditingState
    qtbot.keyClicks(QApplication.focusWidget(), ".99")
    qtbot.keyClick(QApplication.focusWidget(), *keys)
    token = "with"
    assert table.table.tokens.index(token) == row
    assert table.table.values[row, 0] == 0.99
    assert QApplication.focusWidget() is table
    window.doc.undo_stack.undo()  # the action, then the typed value: two steps
    window.doc.undo_stack.undo()
    assert table.table.values[3, 0] == 0.22


def test_delete_clears_the_selected_values_in_one_undo_step(window, wait_settled, qtbot):
    table = window.editor.query_table
    model = table.table
    table.setFocus()
    table.selectionModel().select(
        QItemSelection(model.index(1, 0), model.index(2, 2)),
        QItemSelectionModel.SelectionFlag.ClearAndSelect,
    )
    qtbot.keyClick(table, Qt.Key.Key_Delete)
    assert model.values[1:3].tolist() == [[0.0, 0.0, 0.66], [0.0, 0.0, 0.64]]
    assert model.tokens[1:3] == ("journey", "starts")  # a token keeps its name
    wait_settled(window)
    assert window.trace.config.embeddings[1] == (0.0, 0.0, 0.66)
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert model.values[1:3].tolist() == [[0.55, 0.87, 0.66], [0.57, 0.85, 0.64]]
    table.selectionModel().select(
        model.index(0, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
    )
    qtbot.keyClick(table, Qt.Key.Key_Backspace)
    assert model.tokens[0] == "Your" and "A token needs a name" in window.editor.error.text()


def test_a_minus_zero_from_a_file_can_be_cleared_and_retyped(window, wait_settled, qtbot):
    """-0.0 == 0.0: Delete and a typed 0 counted as no change, and the cell kept "-0"."""
    model = window.doc.queries
    state = window.doc.state()
    values = [list(row) for row in state.queries.embeddings]
    values[0][0] = values[1][0] = -0.0
    queries = replace(state.queries, embeddings=tuple(map(tuple, values)))
    window.doc.reset(replace(state, queries=queries, kv=queries))
    assert model.data(model.index(0, 1)) == "-0"
    table = window.editor.query_table
    table.setFocus()
    table.setCurrentIndex(model.index(0, 1))
    qtbot.keyClick(table, Qt.Key.Key_Delete)
    assert model.data(model.index(0, 1)) == "0" and window.doc.undo_stack.canUndo()
    assert model.setData(model.index(1, 1), "0") and model.data(model.index(1, 1)) == "0"


def test_slider_drag_is_undone_in_one_step(window, wait_settled):
    for seed in range(124, 140):
        window.controls.seed.slider.setValue(seed)
    window.doc.undo_stack.undo()
    assert window.controls.seed.value() == 123
    wait_settled(window)
    assert window.trace.config.seed == 123


def test_toolbar_actions(window, wait_settled):
    editor = window.editor
    editor.query_table.setCurrentIndex(editor.query_table.table.index(5, 0))
    editor.actions["add_token"].trigger()
    assert window.doc.queries.rowCount() == 7
    editor.actions["add_dim"].trigger()
    assert window.doc.queries.d_in == 4
    wait_settled(window)
    assert window.trace.config.d_in == 4 and window.trace.config.n_q == 7
    editor.actions["remove_dim"].trigger()
    editor.query_table.selectAll()
    editor.actions["remove_token"].trigger()
    assert window.doc.queries.rowCount() == 7
    assert "At least one token must stay." in editor.error.text()


def test_copy_and_paste_with_the_keyboard(window, qtbot):
    table = window.editor.query_table
    table.setFocus()
    table.setCurrentIndex(table.table.index(0, 1))
    QGuiApplication.clipboard().setText("0.11\t0.22\n0.33\t0.44")
    qtbot.keyClick(table, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert table.table.values[:2, :2].tolist() == [[0.11, 0.22], [0.33, 0.44]]
    table.clearSelection()  # the pasted cell stays selected after the paste
    table.selectRow(1)
    qtbot.keyClick(table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text() == "journey\t0.33\t0.44\t0.66"


def test_the_current_cell_and_selection_stay_after_a_paste_and_its_undo(window, qtbot):
    """A paste resets the model, and the view forgot its current cell: the next Ctrl+V
    landed on the first token's name and renamed it."""
    table = window.editor.query_table
    model = table.table
    ctrl = Qt.KeyboardModifier.ControlModifier
    table.setFocus()
    table.setCurrentIndex(model.index(3, 2))
    table.setColumnWidth(0, 150)  # long token names: the names column widened by hand
    QGuiApplication.clipboard().setText("0.11\t0.22")
    qtbot.keyClick(table, Qt.Key.Key_V, ctrl)
    assert (table.currentIndex().row(), table.currentIndex().column()) == (3, 2)
    assert table.columnWidth(0) == 150
    QGuiApplication.clipboard().setText("0.33")
    qtbot.keyClick(table, Qt.Key.Key_V, ctrl)
    assert model.tokens[0] == "Your" and model.values[3].tolist() == [0.22, 0.33, 0.22]
    table.selectionModel().select(
        QItemSelection(model.index(1, 1), model.index(2, 3)),
        QItemSelectionModel.SelectionFlag.ClearAndSelect,
    )
    window.editor.actions["randomize"].trigger()
    qtbot.keyClick(table, Qt.Key.Key_Z, ctrl)
    assert (table.currentIndex().row(), table.currentIndex().column()) == (3, 2)
    assert sorted((i.row(), i.column()) for i in table.selectedIndexes()) == [
        (r, c) for r in (1, 2) for c in (1, 2, 3)
    ]
    table.setCurrentIndex(model.index(5, 3))
    window.editor.actions["remove_dim"].trigger()  # the current column is gone: the last one
    assert (table.currentIndex().row(), table.currentIndex().column()) == (5, 2)


def test_closing_during_a_computation_stops_the_thread(qtbot):
    from attn_explorer.model.state import default_state, random_sequence
    from attn_explorer.ui.main_window import MainWindow

    state = default_state()
    big = random_sequence(768, 32)
    from dataclasses import replace

    state = replace(state, queries=big, kv=big).with_controls(num_heads=8, d_out=32)
    win = MainWindow(state)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.bridge.busy)
    win.close()
    assert not win.bridge.is_running()
    assert not settled(win)


def test_tab_leaves_the_table_after_its_last_cell_and_shift_tab_before_its_first(window, qtbot):
    """Qt's table wraps Tab around: after 200 Tabs the keyboard was still in the table."""
    table = window.editor.query_table
    window.activateWindow()
    table.setFocus()
    rows, cols = table.table.rowCount(), table.table.columnCount()
    table.setCurrentIndex(table.table.index(rows - 1, cols - 2))
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is table
    assert (table.currentIndex().row(), table.currentIndex().column()) == (rows - 1, cols - 1)
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table
    table.setFocus()
    table.setCurrentIndex(table.table.index(0, 0))
    qtbot.keyClick(table, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ShiftModifier)
    assert QApplication.focusWidget() is not table
