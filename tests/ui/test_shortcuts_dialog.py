"""Help > Keyboard Shortcuts lists every key the window answers to, as it is now."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from attn_explorer.ui.shortcuts_dialog import plain
from attn_explorer.ui.text_size import text_size

TABLE = "Embedding table (while it has focus)"
STEPS = "Step-through tab (while it has focus)"


def test_every_shortcut_of_the_window_is_listed(window):
    listed = window.show_shortcuts().rows()
    keys = {k for _, _, row_keys in listed for k in row_keys.split(", ")}
    native = QKeySequence.SequenceFormat.NativeText
    for action in window.findChildren(QAction):
        for sequence in action.shortcuts():
            assert sequence.toString(native) in keys, plain(action.text())


def test_the_list_says_where_each_key_works(window, qtbot):
    window.controls.seed.spin.setValue(7)  # Undo now reads "Undo …" with the edit's name
    assert window.doc.undo_stack.canUndo()
    rows = window.show_shortcuts().rows()
    assert ("Edit", "Undo the last edit", "Ctrl+Z") in rows
    assert ("Edit", "Redo the edit last undone", "Ctrl+Shift+Z, Ctrl+Y") in rows
    assert ("View", "Larger text", "Ctrl++, Ctrl+=") in rows
    steps = [row for row in rows if row[0] == STEPS]  # shown whole when one is missing
    assert (STEPS, "Next stage", "Right") in steps, steps
    assert (STEPS, "Play or pause the walk through the stages", "Space") in steps, steps
    assert (TABLE, "Insert a token after the current one", "Ctrl+I") in rows
    assert (TABLE, "Set the selected values to 0", "Del, Backspace") in rows
    assert (TABLE, "Paste a block at the current cell", "Ctrl+V") in rows
    matrix = "A matrix (while it has focus)"
    assert (matrix, "Follow the query of that cell's row", "Enter, Space") in rows
    # Ctrl+I works only in the table: under Edit it would promise it everywhere.
    assert not [r for r in rows if r[0] == "Edit" and r[2] == "Ctrl+I"]


def test_f1_opens_one_list_beside_the_window(window, qtbot):
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    dialog = window.menus.shortcuts_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    qtbot.keyClick(window, Qt.Key.Key_F1)
    assert window.menus.shortcuts_dialog is dialog
    # Every row readable in full: the keys column is as wide as its widest entry.
    tree = dialog.tree
    assert tree.columnWidth(0) >= tree.sizeHintForColumn(0)
    assert tree.viewport().width() >= tree.columnWidth(0) + tree.sizeHintForColumn(1)
    dialog.close()


def keys_whole(dialog) -> bool:
    """Every key of the list readable in full, with nothing to scroll sideways."""
    tree = dialog.tree
    return (
        tree.columnWidth(1) >= tree.sizeHintForColumn(1)
        and tree.columnWidth(0) + tree.columnWidth(1) <= tree.viewport().width()
        and not tree.horizontalScrollBar().isVisible()
    )


def test_the_list_follows_a_larger_text_size(window, normal_size, qtbot):
    """Opened, then the text made larger (the list stays open beside the window): its columns
    kept their first widths and the keys read "Ctrl+…", though the screen had room."""
    dialog = window.show_shortcuts()
    text_size.set_factor(1.5)
    qtbot.wait(50)
    tree = dialog.tree
    assert tree.columnWidth(0) >= tree.sizeHintForColumn(0)  # both columns whole: it fits
    assert keys_whole(dialog)
    title = tree.topLevelItem(0).font(0)  # "File", in bold, grew with the rest
    assert title.bold() and title.pointSizeF() == tree.font().pointSizeF()
    dialog.close()
    window.show_shortcuts()  # and opened again, as large as it was left
    assert tree.columnWidth(0) >= tree.sizeHintForColumn(0) and keys_whole(dialog)
    dialog.close()


def test_on_a_screen_too_narrow_for_both_columns_the_keys_stay_whole(window, normal_size, qtbot):
    """At 200 % the list is wider than the test's 800-pixel screen: the keys were cut to
    "Ctrl+…" and a scroll bar appeared; now what a key does gives way (its whole text in
    its tooltip), never the key."""
    text_size.set_factor(2.0)
    dialog = window.show_shortcuts()
    qtbot.wait(50)
    tree = dialog.tree
    room = dialog.screen().availableGeometry()
    assert tree.sizeHintForColumn(0) + tree.sizeHintForColumn(1) > room.width()
    assert dialog.width() <= room.width()
    assert keys_whole(dialog)
    keys = {child.text(1): child for _, child in items(tree)}
    assert "Ctrl+Shift+Z, Ctrl+Y" in keys
    longest = max((child for _, child in items(tree)), key=lambda c: len(c.text(0)))
    assert longest.toolTip(0) == longest.text(0)
    dialog.close()


def items(tree):
    for i in range(tree.topLevelItemCount()):
        top = tree.topLevelItem(i)
        for j in range(top.childCount()):
            yield top, top.child(j)


def test_no_two_entries_of_a_menu_share_an_alt_letter(window):
    """File had "&Save" and "Export All &Stages…", View "&Matrices" and "S&maller text": with
    two entries on one letter, Alt+F then S only moved between them and saved nothing."""
    import re

    def shared_letters(actions) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for action in actions:
            match = re.search(r"&([^&])", action.text().replace("&&", ""))
            if match:
                found.setdefault(match.group(1).lower(), []).append(action.text())
        return {letter: texts for letter, texts in found.items() if len(texts) > 1}

    menus = [action.menu() for action in window.menuBar().actions()]
    menus += [a.menu() for menu in menus for a in menu.actions() if a.menu() is not None]
    assert shared_letters(window.menuBar().actions()) == {}
    for menu in menus:
        assert shared_letters(menu.actions()) == {}, menu.title()


def test_the_edit_menu_shows_table_keys_as_keys_of_the_table(window):
    """The Edit menu showed "Ctrl+I" beside Insert token as if the whole window answered to
    it; on the matrices it did nothing."""
    edit = window.menuBar().actions()[1].menu()
    (insert,) = [a for a in edit.actions() if "Ctrl+I" in a.text()]
    assert insert.text() == "Insert token\tCtrl+I in the table" and insert.shortcut().isEmpty()
    rows = window.doc.queries.rowCount()
    insert.trigger()  # chosen from the menu, it acts on the table as before
    assert window.doc.queries.rowCount() == rows + 1


def test_ctrl_1_and_2_put_the_keyboard_in_the_tab(window, stepped_window, qtbot):
    """Ctrl+1 while the matrices already showed left the keyboard in the table."""
    window.activateWindow()
    window.editor.query_table.setFocus()
    qtbot.keyClick(window.editor.query_table, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.focusWidget() is window.board.views["weights"]
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert window.tabs.currentWidget() is window.stepper
    assert window.focusWidget() is window.stepper.stages


def test_ctrl_1_on_the_all_heads_grid_puts_the_keyboard_on_what_shows(window, qtbot):
    """The keyboard went to the single weights matrix hidden behind the grid: the arrows
    then changed the explanation and Enter the followed query, unseen."""
    window.activateWindow()
    window.board.show_all_heads(True)
    window.editor.query_table.setFocus()
    qtbot.keyClick(window.editor.query_table, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert window.focusWidget() is window.board.grid and window.board.grid.isVisible()
