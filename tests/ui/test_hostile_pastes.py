"""Hostile pastes and typing into the embeddings' table, fed to the whole window: it stays up,
says what was wrong, loses nothing.

The table model's own refusals (text, NaN, ±inf, 1e308, empty cells, bad pastes) are tested in
tests/ui/editing/test_embedding_editor.py; here the same values go in the way a user types or
pastes them, with the window around the table."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from attn_explorer.text.examples import example_text
from tests.ui.conftest import STRICT_QT_LOG, assert_shows

pytestmark = STRICT_QT_LOG  # a Qt warning fails the test


def type_in_open_cell(window, qtbot, index, text: str) -> None:
    """Open the Queries X cell `index` for editing and type `text`, without pressing Enter:
    the value stands typed, not yet taken in."""
    from PySide6.QtWidgets import QLineEdit

    table = window.editor.query_table
    window.activateWindow()
    table.setFocus()
    table.setCurrentIndex(index)
    table.edit(index)
    editor = table.findChild(QLineEdit)
    editor.selectAll()
    qtbot.keyClicks(editor, text)


def test_zero_tokens_is_explained_and_undone(window, wait_settled, qtbot):
    model = window.doc.queries
    before = model.sequence()
    shown = window.trace
    model.remove_tokens(list(range(model.rowCount())))
    qtbot.waitUntil(lambda: "no tokens" in window.editor.error.text())
    assert window.trace is shown  # the last good picture stays
    assert "no tokens" in window.status_text.text()
    banner = window.stale_banner
    assert banner.isVisible(), "the old picture must not pass for the current one"
    assert banner.full_text().startswith("These matrices are for the last settings that could")
    assert "no tokens" in banner.full_text()
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert model.sequence() == before  # nothing entered was lost
    assert window.editor.error.text() == ""
    qtbot.waitUntil(lambda: not banner.isVisible())  # once the new picture is drawn


def test_a_long_reason_beside_the_tabs_does_not_widen_the_window(window, wait_settled, qtbot):
    """A learner on a laptop typed 1e20: the notice took its whole text as its least width,
    pushed the window 222 px past the screen, squeezed the tab 'Step through' to 'S' and
    left the window that wide after Ctrl+Z."""
    window.resize(1024, 700)
    qtbot.waitUntil(lambda: window.width() == 1024)
    model = window.doc.queries
    model.setData(model.index(1, 3), "1e20")
    banner = window.stale_banner
    qtbot.waitUntil(banner.isVisible)
    qtbot.wait(50)  # the window's layout settles
    assert window.width() == 1024
    tab_bar = window.tabs.tabBar()
    assert tab_bar.width() >= tab_bar.sizeHint().width(), "the tabs' names must stay whole"
    assert banner.geometry().right() <= window.tabs.width()
    assert "overflowed float32" in banner.full_text()
    assert banner.text().endswith("…") and banner.full_text().startswith(banner.text()[:-1])
    assert "overflowed float32" in banner.toolTip()  # the whole reason, on hovering
    window.doc.undo_stack.undo()
    wait_settled(window)
    qtbot.waitUntil(lambda: not banner.isVisible())
    assert window.width() == 1024


def test_the_remove_button_keeps_the_last_token(window):
    window.editor.query_table.selectAll()
    window.editor.actions["remove_token"].trigger()
    assert window.doc.queries.rowCount() == 6
    assert "At least one token must stay" in window.editor.error.text()


def test_a_ten_thousand_row_paste_is_refused_with_a_message(window, qtbot):
    before = window.doc.queries.sequence()
    block = "\n".join(f"t{i}\t1\t2\t3" for i in range(10_000))
    QGuiApplication.clipboard().setText(block)
    window.editor.query_table.setCurrentIndex(window.doc.queries.index(0, 0))
    window.editor.query_table.paste()
    assert "10,000 rows" in window.editor.error.text()
    assert window.doc.queries.sequence() == before


def test_a_block_with_a_stray_quote_is_refused_with_a_message(window):
    """A partial cell copied with its opening quote: the whole block became one token name."""
    before = window.doc.queries.sequence()
    QGuiApplication.clipboard().setText('"Your\t0.1\t0.2\t0.3\nam\t0.3\t0.4\t0.5\n')
    window.editor.query_table.setCurrentIndex(window.doc.queries.index(0, 0))
    window.editor.query_table.paste()
    assert window.editor.error.text() == (
        'Row 1, column 1 of the block starts with a quote (") that is never closed, so the '
        "rest of the block would be one cell: remove the quote or close it. Nothing was pasted."
    )
    assert window.doc.queries.sequence() == before
    assert not window.doc.undo_stack.canUndo()


def test_a_long_paste_is_computed(window, wait_settled):
    block = "\n".join(
        f"t{i}\t{i % 7 / 7:.3f}\t{i % 5 / 5:.3f}\t{i % 3 / 3:.3f}" for i in range(300)
    )

    window.editor.query_table.setCurrentIndex(window.doc.queries.index(0, 0))
    window.editor.query_table.paste(block)
    wait_settled(window)
    assert window.trace.config.n_q == 300
    assert_shows(window)


HEADED = {
    # x.csv of File > Export Data, opened in a spreadsheet and copied whole.
    "exported": (
        "\t1\t2\t3\nYour\t0.1\t0.2\t0.3\nam\t0.4\t0.5\t0.6",
        0,
        "Row 1, column 1 of the block: A token needs a name (a space is allowed).",
    ),
    "named": (
        "token\tx\ty\tz\nYour\t0.1\t0.2\t0.3\nam\t0.4\t0.5\t0.6",
        0,
        "Row 1, column 2 of the block: “x” is not a number.",
    ),
    "values only": (
        "x\ty\tz\n0.1\t0.2\t0.3\n0.4\t0.5\t0.6",
        1,
        "Row 1, column 1 of the block: “x” is not a number.",
    ),
    "comma-separated": (
        "token,x,y,z\nYour,0.1,0.2,0.3\nam,0.4,0.5,0.6",
        0,
        "Row 1, column 2 of the block: “x” is not a number.",
    ),
}


@pytest.mark.parametrize(("block", "column", "where"), HEADED.values(), ids=HEADED.keys())
def test_a_block_with_a_header_row_is_refused_as_headings(window, block, column, where):
    """A block copied with its column headings was refused for its first cell: "A token
    needs a name", or "“x” is not a number", with no word of the headings that caused it."""
    table, model = window.editor.query_table, window.doc.queries
    before = model.sequence()
    table.setCurrentIndex(model.index(0, column))
    QGuiApplication.clipboard().setText(block)
    window.editor.actions["paste"].trigger()
    assert window.editor.error.text() == (
        "Row 1 of the block looks like column headings, and the rows below it read well: "
        f"copy the block without its first row. ({where}) Nothing was pasted."
    )
    assert model.sequence() == before
    assert not window.doc.undo_stack.canUndo()


def test_a_bad_first_row_among_bad_rows_is_named_as_before(window):
    table, model = window.editor.query_table, window.doc.queries
    table.setCurrentIndex(model.index(0, 0))
    table.paste("a\tx\t0.2\t0.3\nb\t0.4\ty\t0.6")
    assert window.editor.error.text() == (
        "Row 1, column 2 of the block: “x” is not a number. Nothing was pasted."
    )


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            "a\t1\t2\t3\n\nb\t4\t5\t6",
            "Row 2 of the block is empty, but row 1 has 4 cells. Nothing was pasted.",
        ),
        ("a\t1\t2\t3\nb", "Row 2 of the block has 1 cell but row 1 has 4. Nothing was pasted."),
    ],
    ids=["empty line", "one cell"],
)
def test_a_ragged_block_is_refused_in_plain_words(window, block, message):
    """A blank line inside a block was "Row 2 of the block has 1 cells"."""
    table, model = window.editor.query_table, window.doc.queries
    before = model.sequence()
    table.setCurrentIndex(model.index(0, 0))
    table.paste(block)
    assert window.editor.error.text() == message
    assert model.sequence() == before


@pytest.fixture
def language():
    from PySide6.QtCore import QLocale

    default = QLocale()
    yield lambda name: QLocale.setDefault(QLocale(name))
    QLocale.setDefault(default)


@pytest.mark.parametrize("text", ["1,000", "-2,500", "12,345"])
def test_a_thousands_comma_is_not_read_as_a_decimal_comma_in_english(window, qtbot, language, text):
    """In English "1,000" is a thousand; it was read as the decimal comma 1,000 = 1.0."""
    from tests.ui.editing.test_editor_widget import type_into_cell

    language("en_US")
    table = window.editor.query_table
    type_into_cell(qtbot, table, 2, 2, text)
    assert table.table.values[2, 1] == 0.85
    whole, decimal = text.replace(",", ""), text.replace(",", ".")
    assert window.editor.error.text() == (
        f"“{text}” could be {whole} or {decimal}: type it without the comma, or with a "
        "decimal point. The previous value '0.85' is kept."
    )
    table.setCurrentIndex(table.table.index(2, 1))
    table.paste(f"0.1\t{text}")
    assert table.table.values[2].tolist() == [0.57, 0.85, 0.64]  # refused in a paste too
    assert f"“{text}” could be {whole} or {decimal}" in window.editor.error.text()


@pytest.mark.parametrize(
    ("lang", "text", "value"),
    [
        ("en_US", "0,125", 0.125),
        ("en_US", "1,5", 1.5),
        ("en_US", "10,25", 10.25),
        ("de_DE", "1,000", 1.0),
        ("vi_VN", "12,345", 12.345),
    ],
)
def test_a_decimal_comma_is_still_read_as_one(window, qtbot, language, lang, text, value):
    from tests.ui.editing.test_editor_widget import type_into_cell

    language(lang)
    type_into_cell(qtbot, window.editor.query_table, 2, 2, text)
    assert window.doc.queries.values[2, 1] == value
    assert window.editor.error.text() == ""


def test_adding_a_token_to_a_full_table_says_why_nothing_happened(window, qtbot):
    """At 4,096 tokens "+ Token" (Ctrl+I) did nothing, without a word."""
    from attn_explorer.model.state import MAX_TOKENS

    table, model = window.editor.query_table, window.doc.queries
    table.setCurrentIndex(model.index(0, 0))
    table.paste("\n".join(f"t{i}\t0.1\t0.2\t0.3" for i in range(MAX_TOKENS)))
    assert model.rowCount() == MAX_TOKENS
    steps = window.doc.undo_stack.count()
    table.setCurrentIndex(model.index(5, 1))
    window.editor.actions["add_token"].trigger()
    assert model.rowCount() == MAX_TOKENS
    assert window.doc.undo_stack.count() == steps
    assert window.editor.error.text() == (
        "The table already holds the maximum of 4,096 tokens: remove one first."
    )
    assert window.editor.error.isVisible()


def test_a_block_pasted_into_a_cells_editor_is_quoted_on_one_line(window, qtbot):
    """Ctrl+V inside an open cell puts the whole block in that cell, as a spreadsheet does;
    refused, the message quoted it with its tab and line break: a message cut in two."""
    from PySide6.QtWidgets import QAbstractItemView, QLineEdit

    table, model = window.editor.query_table, window.doc.queries
    table.setCurrentIndex(model.index(2, 2))
    table.edit(table.currentIndex())
    editor = table.findChild(QLineEdit)
    editor.selectAll()
    QGuiApplication.clipboard().setText("0.5\t0.6\n0.7\t0.8")
    editor.paste()
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: table.state() != QAbstractItemView.State.EditingState)
    assert model.values[2, 1] == 0.85
    assert window.editor.error.text() == (
        "“0.5⇥0.6↵0.7⇥0.8” is not a number. The previous value '0.85' is kept."
    )


def example_action(window, name):

    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "E&xamples")
    return next(a for a in menu.actions() if a.text() == example_text(name).title)


def test_an_example_chosen_while_a_cell_is_typed_in_keeps_the_typed_value_for_undo(
    window, wait_settled, qtbot
):
    """A menu does not take the focus: with 0.99 typed in an open cell, an example chosen from
    Examples loaded around the open cell, and the 0.99 went into the example once the focus
    moved on (the tutorial's numbers changed unasked), never into the learner's own table
    that undoing the example gives back. The value typed is taken in first, as saving does."""
    model = window.doc.queries
    type_in_open_cell(window, qtbot, model.index(2, 1), "0.99")
    example_action(window, "mha").trigger()
    wait_settled(window)
    assert window.doc.undo_stack.undoText().startswith("Load example")
    window.doc.undo_stack.undo()
    assert model.values[2, 0] == 0.99  # the typed value, kept under the example
    window.doc.undo_stack.undo()
    assert model.values[2, 0] == 0.57


def test_an_example_chosen_while_a_seed_is_typed_keeps_it_for_undo(window, wait_settled, qtbot):
    seed = window.controls.seed.spin
    window.activateWindow()
    seed.setFocus()
    seed.lineEdit().selectAll()
    qtbot.keyClicks(seed.lineEdit(), "42")
    example_action(window, "mha").trigger()
    wait_settled(window)
    window.doc.undo_stack.undo()
    assert window.doc.controls.seed == 42
    assert seed.value() == 42


def test_undo_from_the_edit_menu_while_a_cell_is_typed_in_loses_no_step(window, qtbot):
    """Edit > Undo, clicked while 0.99 stood typed in an open cell, undid the edit before it;
    the 0.99 went in when the focus moved on, and that cleared the redo: the undone edit
    could not be had back. Opening the menu takes in what is typed, as clicking elsewhere
    does: Undo then undoes the typing, and Redo brings it back."""
    model, stack = window.doc.queries, window.doc.undo_stack
    model.setData(model.index(0, 1), "0.11")
    type_in_open_cell(window, qtbot, model.index(2, 1), "0.99")
    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    menu.aboutToShow.emit()  # as the menu opens (its popup would grab the keyboard)
    undo = menu.actions()[0]
    assert undo.text() == "&Undo Edit x3[1]"  # the menu names the typing it undoes
    undo.trigger()
    window.controls.seed.spin.setFocus()  # the focus moves on: nothing more goes in
    assert model.values[0, 0] == 0.11 and model.values[2, 0] == 0.57
    stack.redo()
    assert model.values[2, 0] == 0.99
    stack.undo()
    stack.undo()
    assert model.values[0, 0] == 0.43
    stack.redo()
    assert model.values[0, 0] == 0.11  # the earlier edit is still in the history
