"""The embedding table: edits, refusals, undo/redo, paste, structure, model contract."""

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoStack

from attn_explorer.engine.presets import JOURNEY, JOURNEY_TOKENS
from attn_explorer.model.state import TokenSequence
from attn_explorer.ui.editing.embedding_model import EmbeddingTableModel


@pytest.fixture
def doc(new_document):
    return new_document()


@pytest.fixture
def model(doc):
    return doc.queries


def value(model, row, col):
    return model.data(model.index(row, col), Qt.ItemDataRole.EditRole)


def test_model_passes_qtmodeltester(model, qtmodeltester):  # the model outlives the tester
    qtmodeltester.check(model, force_py=True)


def test_model_passes_qtmodeltester_after_structural_edits(doc, model, qtmodeltester):
    model.insert_tokens(2, 3, np.random.default_rng(0))
    doc.add_dimension(np.random.default_rng(0))
    model.remove_tokens([0])
    qtmodeltester.check(model, force_py=True)


def test_shows_tokens_and_values(model):
    assert model.rowCount() == 6 and model.columnCount() == 4
    assert model.data(model.index(1, 0)) == "journey"
    assert model.data(model.index(1, 1)) == "0.55"
    assert model.headerData(0, Qt.Orientation.Horizontal) == "token"
    assert model.headerData(3, Qt.Orientation.Horizontal) == "3"
    assert model.headerData(0, Qt.Orientation.Vertical) == "1"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("abc", "“abc” is not a number"),
        ("nan", "NaN is not allowed"),
        ("inf", "Infinity is not allowed"),
        ("-inf", "Infinity is not allowed"),
        ("1e308", "too large for float32"),
        ("", "The cell is empty"),
        ("   ", "The cell is empty"),
    ],
)
def test_bad_value_is_refused_and_the_previous_value_kept(qtbot, model, text, reason):
    with qtbot.waitSignal(model.inputRejected) as caught:
        assert not model.setData(model.index(1, 1), text)
    index, message = caught.args
    assert (index.row(), index.column()) == (1, 1)
    assert reason in message and "The previous value '0.55' is kept." in message
    assert value(model, 1, 1) == "0.55"
    assert not model.undo_stack.canUndo()


def test_empty_token_name_is_refused(qtbot, model):
    with qtbot.waitSignal(model.inputRejected):
        assert not model.setData(model.index(0, 0), "")
    assert model.tokens[0] == "Your"


def test_decimal_comma_and_typographic_minus_are_understood(model):
    assert model.setData(model.index(0, 1), "0,25")
    assert model.setData(model.index(0, 2), "\u22120.5")
    assert model.values[0].tolist() == [0.25, -0.5, 0.89]


def test_tokens_may_be_any_text(model):
    for name in ("🙂", "שלום", "line\nbreak", " "):
        assert model.setData(model.index(0, 0), name)
        assert model.tokens[0] == name


def test_undo_and_redo_round_trip(doc, model):
    original = model.sequence()
    model.setData(model.index(2, 3), "9.5")
    model.setData(model.index(2, 0), "begins")
    model.insert_tokens(6, 1, np.random.default_rng(0))
    doc.add_dimension(np.random.default_rng(0))
    changed = model.sequence()
    assert changed.tokens[2] == "begins" and changed.embeddings[2][2] == 9.5
    assert len(changed.tokens) == 7 and changed.d_in == 4
    while doc.undo_stack.canUndo():
        doc.undo_stack.undo()
    assert model.sequence() == original
    while doc.undo_stack.canRedo():
        doc.undo_stack.redo()
    assert model.sequence() == changed


def test_undo_restores_values_exactly(doc, model):
    model.setData(model.index(0, 1), "0.1234567890123")
    doc.undo_stack.undo()
    assert model.values[0, 0] == 0.43


def test_add_remove_and_move_tokens(model):
    model.insert_tokens(1, 2, np.random.default_rng(0))
    assert model.tokens[:4] == ("Your", "tok7", "tok8", "journey")
    assert all(0 <= v < 1 for v in model.values[1])
    model.remove_tokens([1, 2])
    assert model.tokens == JOURNEY_TOKENS
    assert model.move_token(0, 1) == 1
    assert model.tokens[:2] == ("journey", "Your")
    assert model.values[1].tolist() == list(JOURNEY[0])
    assert model.move_token(0, -1) == 0  # nothing above the first


def test_dimensions_change_in_both_tables(doc):
    doc.add_dimension(np.random.default_rng(0))
    assert doc.queries.d_in == doc.kv.d_in == 4
    assert doc.remove_dimension(0) is None
    assert doc.queries.values[1].tolist()[:2] == [0.87, 0.66]
    assert doc.kv.d_in == 3
    doc.remove_dimension(0)
    doc.remove_dimension(0)
    assert doc.remove_dimension(0) == "The embeddings need at least one dimension."
    assert doc.queries.d_in == 1


def test_randomize_is_one_undo_step(doc, model):
    model.randomize(np.random.default_rng(3))
    assert model.values.shape == (6, 3) and not np.array_equal(model.values, np.array(JOURNEY))
    doc.undo_stack.undo()
    np.testing.assert_array_equal(model.values, np.array(JOURNEY))


def test_paste_a_spreadsheet_block(model):
    assert model.paste(0, 1, "1\t2\t3\n4\t5\t6\n") is None
    assert model.values[:2].tolist() == [[1, 2, 3], [4, 5, 6]]
    assert model.paste(0, 0, "a,0.1,0.2,0.3\nb,0.4,0.5,0.6") is None
    assert model.tokens[:2] == ("a", "b") and model.values[1].tolist() == [0.4, 0.5, 0.6]


def test_paste_grows_the_table(model):
    block = "\n".join(f"w{i}\t{i}\t{i}\t{i}" for i in range(10))
    assert model.paste(0, 0, block) is None
    assert model.rowCount() == 10 and model.tokens[9] == "w9"
    assert model.values[9].tolist() == [9, 9, 9]


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("1\tx\t3", "Row 1, column 2 of the block: “x” is not a number."),
        ("1\t2\n3", "Row 2 of the block has 1 cell but row 1 has 2."),
        ("1\t2\t3\t4", "The block is 4 values wide but only 3 dimensions fit"),
        ("", "The clipboard holds no table to paste."),
        (
            "\n".join(["1\t2\t3"] * 10_000),
            "The block has 10,000 rows, but pasted from row 1 only 4,096 fit: a table holds "
            "at most 4,096 tokens.",
        ),
    ],
)
def test_bad_paste_changes_nothing(model, block, message):
    before = model.sequence()
    error = model.paste(0, 1, block)
    assert error is not None and message in error
    assert model.sequence() == before
    assert not model.undo_stack.canUndo()


@pytest.mark.parametrize(
    ("block", "message"),
    [
        (
            '"Your\t0.1\t0.2\t0.3\nam\t0.3\t0.4\t0.5\n',
            'Row 1, column 1 of the block starts with a quote (") that is never closed, so the '
            "rest of the block would be one cell: remove the quote or close it. Nothing was "
            "pasted.",
        ),
        ('Your,0.1,0.2,0.3\nam,"0.3,0.4,0.5', "Row 2, column 2 of the block starts with"),
    ],
)
def test_a_quote_that_never_closes_is_refused(model, block, message):
    """Refused with a message, not read as one token name holding every tab and line break."""
    before = model.sequence()
    error = model.paste(0, 0, block)
    assert error is not None and message in error
    assert model.sequence() == before
    assert not model.undo_stack.canUndo()


def test_sequence_is_reused_until_an_edit(model):
    first = model.sequence()
    assert model.sequence() is first
    model.setData(model.index(0, 1), "0.5")
    assert model.sequence() is not first


def test_restore_keeps_width_of_empty_tables(qapp):
    model = EmbeddingTableModel(QUndoStack(), "t")
    model.restore(TokenSequence(("a",), ((1.0, 2.0),)))
    assert model.columnCount() == 3


def test_clearing_ranges_keeps_only_the_rows_they_touch(model, doc):
    """Delete on a selection: overlapping ranges, two distant rows, names only."""
    model.clear([(0, 1, 1, 1), (1, 2, 2, 2), (5, 3, 5, 3)])
    assert model.values.tolist() == [
        [0.0, 0.15, 0.89],
        [0.0, 0.0, 0.66],
        [0.57, 0.0, 0.64],
        [0.22, 0.58, 0.33],
        [0.77, 0.25, 0.10],
        [0.05, 0.80, 0.0],
    ]
    step = doc.undo_stack.command(doc.undo_stack.count() - 1)
    # Rows 0-2 and row 5, not the rows between.
    assert [(e.start, len(e.before.tokens)) for e in step.edits] == [(0, 3), (5, 1)]
    doc.undo_stack.undo()
    assert model.values[0].tolist() == [0.43, 0.15, 0.89] and model.values[5, 2] == 0.55
    assert model.clear([(0, 0, 5, 0)]) == (
        "A token needs a name: Delete clears values, not token names."
    )


@pytest.mark.parametrize(("language", "row"), [("vi", [0.55, 0.15, 0.89]), ("en", [0, 55, 0.89])])
def test_a_pasted_decimal_comma_follows_the_language(model, language, row):
    from PySide6.QtCore import QLocale

    default = QLocale()
    QLocale.setDefault(QLocale(language))
    try:
        assert model.paste(0, 1, "0,55\n") is None
    finally:
        QLocale.setDefault(default)
    assert model.values[0].tolist() == row
