"""Hostile input, fed to the whole window: it stays up, says what was wrong, loses nothing.

The table model's own refusals (text, NaN, ±inf, 1e308, empty cells, bad pastes) are tested in
test_embedding_editor.py; here the same values go in the way a user types them, next to the
controls, token names from any script, and every impossible combination of controls.
"""

import itertools

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from attn_explorer.engine import compute
from tests.ui.conftest import assert_shows

# The offscreen platform has no window manager; these are not the app's warnings.
OFFSCREEN_NOISE = r"This plugin does not support (raise|propagateSizeHints)"
pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(OFFSCREEN_NOISE),
]


def type_into(qtbot, spin, text: str) -> None:
    """Select all of a spin box's text, type `text` and press Enter, as a user would."""
    spin.setFocus()
    spin.lineEdit().selectAll()
    qtbot.keyClicks(spin.lineEdit(), text)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    spin.clearFocus()  # leaving the box fixes up what was typed


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


UNREADABLE = ("abc", "nan", "inf", "-inf", "")


@pytest.mark.parametrize("text", [*UNREADABLE, "-5", "1e308", "99999999"])
@pytest.mark.parametrize("control", ["seed", "d_out", "heads", "dropout", "temperature"])
def test_a_control_refuses_what_it_cannot_hold(window, wait_settled, qtbot, control, text):
    pair = getattr(window.controls, control)
    field = {"heads": "num_heads"}.get(control, control)
    before = window.doc.controls
    type_into(qtbot, pair.spin, text)
    if text in UNREADABLE:
        assert pair.value() == getattr(before, field)  # refused: the value stays
    wait_settled(window)
    after = window.doc.controls
    assert getattr(after, field) == pytest.approx(pair.value())  # what is shown is what counts
    changed = {name for name in before.names() if getattr(before, name) != getattr(after, name)}
    assert changed <= {field}  # nothing else moved
    assert np.isfinite(window.trace.context).all()
    assert_shows(window)


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


def test_a_long_paste_is_computed(window, wait_settled):
    block = "\n".join(
        f"t{i}\t{i % 7 / 7:.3f}\t{i % 5 / 5:.3f}\t{i % 3 / 3:.3f}" for i in range(300)
    )

    window.editor.query_table.setCurrentIndex(window.doc.queries.index(0, 0))
    window.editor.query_table.paste(block)
    wait_settled(window)
    assert window.trace.config.n_q == 300
    assert_shows(window)


def test_values_at_the_edge_of_float32_are_refused_by_the_engine_not_drawn(window, qtbot):
    model = window.doc.queries
    shown = window.trace
    for col in (1, 2, 3):
        assert model.setData(model.index(0, col), "3e38")
    qtbot.waitUntil(lambda: "overflowed float32" in window.status_text.text(), timeout=20_000)
    assert window.trace is shown
    assert model.data(model.index(0, 1)) == "3e+38"  # what was typed is kept, to be fixed


CHOICES = {
    "projection": ["none", "rand", "linear"],
    "head_layout": ["stacked", "split"],
    "num_heads": [1, 3, 4],
    "d_out": [1, 4, 6],
    "causal": [False, True],
    "cross": [False, True],
}


def set_controls(window, values: dict) -> None:
    c = window.controls
    c.projection.setCurrentIndex(c.projection.findData(values["projection"]))
    c.layout_box.setCurrentIndex(c.layout_box.findData(values["head_layout"]))
    c.heads.spin.setValue(values["num_heads"])
    c.d_out.spin.setValue(values["d_out"])
    c.causal.setChecked(values["causal"])
    c.cross.setChecked(values["cross"])


def test_every_combination_of_controls_computes_or_is_explained(window, wait_settled, qtbot):
    """All 216 combinations, including every impossible one: each is drawn or explained."""
    kv = window.doc.kv
    kv.remove_tokens([0, 1])  # four keys for six queries: causal cross-attention is impossible
    explained = 0
    for combo in itertools.product(*CHOICES.values()):
        values = dict(zip(CHOICES, combo, strict=True))
        set_controls(window, values)
        for name, value in values.items():
            assert getattr(window.doc.controls, name) == value  # no control moved another
        config = window.doc.config()
        problems = config.problems()
        if not problems:
            wait_settled(window)
            assert window.trace.config == config
            continue
        explained += 1
        qtbot.waitUntil(lambda p=problems: window.problems == p)
        assert window.status_text.text() == problems[0].message
        assert window.trace is not None and window.trace.config.problems() == []
        for problem in problems:
            label = window.controls.errors.get(problem.field)
            assert label is not None and problem.message in label.text()
            assert label.isVisible()
    assert explained > 50
    # Back to a possible config: the error lines clear and the picture follows.
    possible = dict(projection="linear", head_layout="split", num_heads=3, d_out=6)
    set_controls(window, {**possible, "causal": False, "cross": True})
    wait_settled(window)
    assert all(not label.isVisible() for label in window.controls.errors.values())
    np.testing.assert_array_equal(window.trace.context, compute(window.doc.config()).context)


@pytest.mark.parametrize(
    ("text", "shown"),
    [("1e400", "1e400"), ("-2e999", "-2e999"), ("9" * 400, "9999999999999999999…")],
    ids=["1e400", "-2e999", "400 nines"],
)
def test_a_number_too_large_even_for_python_is_called_too_large_not_infinity(
    window, qtbot, text, shown
):
    """1e400 was refused with "Infinity is not allowed", which the learner never typed."""
    from tests.ui.editing.test_editor_widget import type_into_cell

    table = window.editor.query_table
    type_into_cell(qtbot, table, 2, 2, text)
    assert table.table.values[2, 1] == 0.85
    assert window.editor.error.text() == (
        f"{shown} is too large for float32 (at most about ±3.4e38). "
        "The previous value '0.85' is kept."
    )


@pytest.mark.parametrize("text", ["inf", "-Infinity", "+INF"])
def test_a_typed_infinity_is_still_called_infinity(window, qtbot, text):
    from tests.ui.editing.test_editor_widget import type_into_cell

    type_into_cell(qtbot, window.editor.query_table, 2, 2, text)
    assert window.editor.error.text().startswith("Infinity is not allowed: type a finite number.")


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
    window, wait_settled, qtbot, name
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
    window, wait_settled, qtbot
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
    window, wait_settled, qtbot, name
):
    """A right-to-left override in a name reversed the rest of the sentence ("may attend to
    key 1" drawn backwards); Hebrew or Arabic letters pulled the numbers after them into
    their own right-to-left run."""
    steps = follow_second_token(window, wait_settled, qtbot, name)
    numbers = steps.followed.text().split("\n")[1]
    assert reads_left_to_right(numbers, "= [0.5500, 0.8700, 0.6600]")
    hover = window.board.explain_cell(window.board.views["mask"].plot, 1, 0)
    assert reads_left_to_right(hover, "may attend to key 1")


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
    ("spin", "switch", "text", "message"),
    [
        ("valid_len", "padding", "5000", "5000 is outside 1 to 4096: the valid length stays 6."),
        ("valid_len", "padding", "0", "0 is outside 1 to 4096: the valid length stays 6."),
        (
            "dropout_seed",
            "reseed_dropout",
            "-1",
            "-1 is outside 0 to 9999: the dropout seed stays 123.",
        ),
        (
            "dropout_seed",
            "reseed_dropout",
            "12345",
            "12345 is outside 0 to 9999: the dropout seed stays 123.",
        ),
        ("valid_len", "padding", "2.5", "2.5 is not a whole number: the valid length stays 6."),
    ],
    ids=["valid length 5000", "valid length 0", "seed -1", "seed 12345", "valid length 2.5"],
)
def test_a_whole_number_out_of_range_is_refused_not_cut_short(
    window, wait_settled, qtbot, spin, switch, text, message
):
    """The box dropped the keystroke that took it past its range: 5000 typed as the valid
    length became 500 (then "Valid length 500 is outside 1 to 6"), -1 as a seed became 1."""
    controls = window.controls
    controls.training.setChecked(True)
    controls.dropout.spin.setValue(0.5)
    getattr(controls, switch).setChecked(True)
    wait_settled(window)
    box = getattr(controls, spin)
    before = window.doc.controls
    type_into(qtbot, box, text)
    assert box.value() == getattr(before, spin)
    assert box.text() == str(getattr(before, spin))
    assert window.doc.controls == before
    assert controls.errors[spin].text() == message
    assert controls.errors[spin].isVisible()
    type_into(qtbot, box, "3")  # a number in range is taken, and the message goes
    wait_settled(window)
    assert getattr(window.doc.controls, spin) == 3
    assert not controls.errors[spin].isVisible()


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


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.95", "0.95 is outside 0.00 to 0.90: p stays 0.30."),
        ("1", "1 is outside 0.00 to 0.90: p stays 0.30."),
        ("-0.1", "-0.1 is outside 0.00 to 0.90: p stays 0.30."),
        ("0.125", "0.125 has more than 2 decimals: p stays 0.30."),
    ],
)
def test_a_decimal_box_refuses_a_number_out_of_range_in_words(qtbot, text, message):
    """RangeDoubleSpinBox, for a float control such as dropout p (0 to 0.9)."""
    from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

    from attn_explorer.ui.editing.range_spin import RangeDoubleSpinBox

    holder = QWidget()
    qtbot.addWidget(holder)
    box = RangeDoubleSpinBox("p")
    box.setDecimals(2)
    box.setRange(0.0, 0.9)
    box.setValue(0.3)
    box.setKeyboardTracking(False)
    other = QLineEdit()
    layout = QVBoxLayout(holder)
    layout.addWidget(box)
    layout.addWidget(other)
    holder.show()
    said, values = [], []
    box.refused.connect(said.append)
    box.valueChanged.connect(values.append)
    type_into(qtbot, box, text)
    assert said == [message]
    assert values == [] and box.value() == 0.3 and box.text() == "0.30"


@pytest.mark.parametrize(
    ("name", "label"),
    [("line\nbreak", "line↵br…"), ("tab\there", "tab⇥here"), ("a" * 300, "a" * 7 + "…")],
    ids=["newline", "tab", "long"],
)
def test_the_softmax_bars_label_a_key_as_the_matrices_do(window, wait_settled, qtbot, name, label):
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
    from attn_explorer.engine import PRESETS

    menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "E&xamples")
    return next(a for a in menu.actions() if a.text() == PRESETS[name].title)


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


@pytest.mark.parametrize(
    ("control", "text", "message"),
    [
        ("heads", "100", "100 is outside 1 to 16: the number of heads stays 1."),
        ("d_out", "65", "65 is outside 1 to 64: d_out stays 2."),
        ("seed", "-1", "-1 is outside 0 to 9999: the seed stays 123."),
        ("seed", "10000", "10000 is outside 0 to 9999: the seed stays 123."),
        ("temperature", "0", "0 is outside 0.01 to 100.00: the temperature stays 1.00."),
        ("temperature", "1000", "1000 is outside 0.01 to 100.00: the temperature stays 1.00."),
        ("dropout", "0.95", "0.95 is outside 0.00 to 0.90: the dropout probability stays 0.00."),
        ("heads", "2.5", "2.5 is not a whole number: the number of heads stays 1."),
    ],
)
def test_a_slider_box_refuses_a_number_out_of_range_in_words(
    window, wait_settled, qtbot, control, text, message
):
    """The slider boxes cut what was typed short without a word: 100 heads became 10,
    d_out 65 became 6, seed -1 became 1, temperature 0 stayed 1.00 unexplained."""
    pair = getattr(window.controls, control)
    field = {"heads": "num_heads"}.get(control, control)
    before = window.doc.controls
    type_into(qtbot, pair.spin, text)
    wait_settled(window)
    assert window.doc.controls == before
    assert pair.spin.text() == pair.spin.textFromValue(getattr(before, field))
    assert window.controls.errors[field].text() == message
    assert window.controls.errors[field].isVisible()
    pair.spin.setValue(pair.spin.maximum() / 2)  # a number in range is taken; the message goes
    wait_settled(window)
    assert not window.controls.errors[field].isVisible()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("scale", [1e-30, 1e-38, 1e-42])
def test_matrices_of_tiny_values_are_coloured_as_larger_ones(qapp, scale):
    """Scores near 1e-38 (embeddings near 1e-20) were coloured in float32 with a factor of
    255 / 2e-38, which is infinite there: every cell above the lowest took the top colour,
    and numpy printed overflow warnings. Tiny values take the colours that the same values
    relative to their scale's top take at an ordinary size."""
    from attn_explorer.ui.heatmap import MatrixPlot

    def colours(factor):
        plot = MatrixPlot()
        values = np.array([[-1.0, -0.5, 0.0, 0.5, 1.0]], np.float32) * np.float32(factor)
        plot.set_matrix(values, kind="signed")
        greens = [int(v) >> 8 & 0xFF for v in plot.image.image[0]]  # the green channel
        return greens, plot.levels[1]

    tiny, top = colours(scale)
    assert len(set(tiny)) == 5, tiny  # five values, five colours, ordered
    assert tiny[:2] == sorted(tiny[:2]) and tiny[3:] == sorted(tiny[3:], reverse=True)
    ordinary, ordinary_top = colours(scale / top)  # the same values relative to the top
    assert ordinary_top == 1.0
    assert np.abs(np.array(tiny) - np.array(ordinary)).max() <= 2, (tiny, ordinary)
