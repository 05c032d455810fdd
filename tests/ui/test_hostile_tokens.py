"""Token names from any script and of any length, fed to the whole window: computed,
labelled the same in the table, the matrices and the explanations, and never reordering
or breaking the sentence around them."""

import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import STRICT_QT_LOG, assert_shows

pytestmark = STRICT_QT_LOG  # a Qt warning fails the test


NAMES = {
    "emoji": "😀",
    "emoji-sequence": "🧑‍🏫 teacher",
    "hebrew": "שלום",
    "arabic": "مرحبا بالعالم",
    "newline": "line\nbreak",
    "tab": "tab\there",
    "long": "a" * 300,
    "markup": "<b>x</b>",
}


@pytest.mark.parametrize("name", NAMES.values(), ids=NAMES.keys())
def test_any_token_name_is_computed_and_labelled(window, wait_settled, name):
    model = window.doc.queries
    assert model.setData(model.index(1, 0), name)
    wait_settled(window)
    assert window.trace.config.tokens[1] == name
    assert model.data(model.index(1, 0), Qt.ItemDataRole.EditRole) == name
    scores = window.board.views["scores"].plot
    label = scores._shown_ticks[0][1]  # row labels: query tokens
    assert "\n" not in label  # a label stays on one line
    shown = label.replace("↵", "\n").replace("⇥", "\t")
    assert shown == name or (shown.endswith("…") and name.startswith(shown[:-1]))
    assert_shows(window)
    hover = window.board.explain_cell(scores, 1, 0)
    assert hover and "nan" not in hover.lower()


def test_one_token_attends_to_itself(window, wait_settled):
    model = window.doc.queries
    model.remove_tokens(list(range(1, model.rowCount())))
    wait_settled(window)
    assert window.trace.config.n_q == 1
    np.testing.assert_array_equal(window.board.views["weights"].plot.matrix, [[1.0]])
    assert_shows(window)


@pytest.mark.parametrize("name", ["a\tb", "new\nline", '"quoted"', " the", "x,y;z"])
def test_a_copied_token_name_pastes_back_whole(window, name):
    """A tab or line break in a name used to split it on paste and overwrite the next row."""
    table, model = window.editor.query_table, window.doc.queries
    model.setData(model.index(0, 0), name)
    below = model.tokens[2:], model.values[2:].copy()
    table.setCurrentIndex(model.index(0, 0))
    table.selectRow(0)
    table.copy_selection()
    table.setCurrentIndex(model.index(1, 0))
    table.paste()
    assert window.editor.error.text() == ""
    assert model.tokens[1] == name
    np.testing.assert_array_equal(model.values[1], model.values[0])
    assert model.tokens[2:] == below[0]
    np.testing.assert_array_equal(model.values[2:], below[1])


def reads_left_to_right(text: str, part: str) -> bool:
    """`part` of `text` (one line) is drawn left to right, as a learner reads it: a token's
    right-to-left letters or override must not carry the rest of the sentence with them."""
    from PySide6.QtGui import QFont, QTextLayout

    layout = QTextLayout(text, QFont())
    layout.beginLayout()
    line = layout.createLine()
    line.setLineWidth(100_000)
    layout.endLayout()
    start = text.index(part)
    xs = [line.cursorToX(start + k)[0] for k in range(len(part) + 1)]
    return xs == sorted(xs) and xs[0] < xs[-1]


def follow_second_token(window, wait_settled, qtbot, name):
    model = window.doc.queries
    assert model.setData(model.index(1, 0), name)
    window.controls.causal.setChecked(False)
    wait_settled(window)
    window.show_tab(1)
    steps = window.stepper
    qtbot.waitUntil(steps.isVisible)
    steps.set_stage("embeddings")
    return steps


@pytest.mark.parametrize("name", ["line\nbreak", "tab\there", "a\u2028b"])
def test_a_token_name_with_a_line_break_stays_on_one_line_of_an_explanation(
    window, stepped_window, wait_settled, qtbot, name
):
    """The hover text and the step-through broke their sentences at the name's line break:
    "Following query 2 “line" on one line, "break”:" on the next."""
    steps = follow_second_token(window, wait_settled, qtbot, name)
    first, numbers = steps.followed.text().split("\n")[:2]
    assert first.startswith("Following query 2 “") and first.endswith("”:")
    assert numbers.startswith("x2 “") and numbers.endswith("” = [0.5500, 0.8700, 0.6600]")
    hover = window.board.explain_cell(window.board.views["weights"].plot, 1, 0)
    assert hover.split("\n")[1].startswith("Query 2 “")
    assert hover.split("\n")[1].endswith(
        "” gives this share of its attention to key 1 “Your”; the row sums to 1."
    )


def test_a_thousand_character_token_name_leaves_the_followed_numbers_in_view(
    window, stepped_window, wait_settled, qtbot
):
    """A 1000-letter name was written whole: the step-through's panel, which cannot wrap a
    word, showed the name and cut the numbers off at its right edge."""
    steps = follow_second_token(window, wait_settled, qtbot, "L" * 1000)
    lines = steps.followed.text().split("\n")
    assert lines[1].endswith("” = [0.5500, 0.8700, 0.6600]")
    assert "…" in lines[1]
    room = steps.followed.viewport().width()
    metrics = steps.followed.label.fontMetrics()
    assert all(metrics.horizontalAdvance(line) < room for line in lines[:2]), room
    hover = window.board.explain_cell(window.board.views["weights"].plot, 1, 0)
    assert len(hover) < 500


@pytest.mark.parametrize(
    "name", ["\u202eabc", "שלום", "مرحبا بالعالم"], ids=["override", "hebrew", "arabic"]
)
def test_a_right_to_left_token_name_does_not_reorder_the_sentence_around_it(
    window, stepped_window, wait_settled, qtbot, name
):
    """A right-to-left override in a name reversed the rest of the sentence ("may attend to
    key 1" drawn backwards); Hebrew or Arabic letters pulled the numbers after them into
    their own right-to-left run."""
    steps = follow_second_token(window, wait_settled, qtbot, name)
    numbers = steps.followed.text().split("\n")[1]
    assert reads_left_to_right(numbers, "= [0.5500, 0.8700, 0.6600]")
    hover = window.board.explain_cell(window.board.views["mask"].plot, 1, 0)
    assert reads_left_to_right(hover, "may attend to key 1")


@pytest.mark.parametrize(
    ("name", "label"),
    [("line\nbreak", "line↵br…"), ("tab\there", "tab⇥here"), ("a" * 300, "a" * 7 + "…")],
    ids=["newline", "tab", "long"],
)
def test_the_softmax_bars_label_a_key_as_the_matrices_do(
    window, stepped_window, wait_settled, qtbot, name, label
):
    """The softmax stage's bars cut a key's name at 8 characters, line break and all: a
    two-line label ("line", "bre"), and "aaaaaaaa" with no sign that the name goes on."""
    steps = follow_second_token(window, wait_settled, qtbot, name)
    window.resize(1900, 1000)  # room for every key's label (narrower, every other is left out)
    steps.set_stage("softmax")
    panel = steps.softmax_panel
    qtbot.waitUntil(panel.isVisible)
    for plot in (panel.score_plot, panel.weight_plot, panel.sweep_plot):
        qtbot.waitUntil(lambda p=plot: 1 in dict(p.getAxis("bottom")._tickLevels[0]))
        ticks = dict(plot.getAxis("bottom")._tickLevels[0])
        assert ticks[1] == label
        assert ticks[0] == "Your"


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("line\nbreak", "line↵break"),
        ("tab\there", "tab⇥here"),
        ("a\x00b", "a␀b"),
        (" ", "␣"),
        ("\u200d", "␣"),
        ("\u200b\u2060", "␣␣"),
    ],
    ids=["newline", "tab", "nul", "space", "zero-width joiner", "zero-width"],
)
def test_the_table_shows_a_token_name_whole_and_visible(window, wait_settled, name, shown):
    """The table drew "line\nbreak" as "line…" and "tab\there" as "tab…" in a column with
    room for both words, and a name of zero-width characters as an empty cell (a name the
    table refuses to type)."""
    model = window.doc.queries
    assert model.setData(model.index(1, 0), name)
    assert model.data(model.index(1, 0)) == shown
    assert model.data(model.index(1, 0), Qt.ItemDataRole.EditRole) == name  # edited as is
    assert repr(name) in model.data(model.index(1, 0), Qt.ItemDataRole.ToolTipRole)
    wait_settled(window)
    scores = window.board.views["scores"].plot
    assert scores._shown_ticks[0][1] == shown  # the matrices label it the same way


def test_opening_and_closing_the_editor_of_a_long_name_keeps_it_whole(window, qtbot):
    """A 40,000-letter name (pasted) was cut to 32,767, the cell editor's default limit,
    by only opening its cell and pressing Enter: a silent, undoable "Edit token"."""
    from tests.ui.editing.test_editor_widget import type_into_cell

    model, table = window.doc.queries, window.editor.query_table
    name = "L" * 40_000
    table.setCurrentIndex(model.index(1, 0))
    table.paste(name)
    steps = window.doc.undo_stack.count()
    type_into_cell(qtbot, table, 1, 0, "")  # opens the editor, types nothing, presses Enter
    assert model.tokens[1] == name
    assert window.doc.undo_stack.count() == steps
