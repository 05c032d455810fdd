"""The undo history keeps only what changed, and stays within its byte budget."""

import numpy as np
import pytest

from attn_explorer.model.state import ExplorerState, random_sequence
from attn_explorer.ui.editing import undo
from attn_explorer.ui.editing.undo import history_bytes


@pytest.fixture
def big_doc(new_document):
    """A 1024 × 256 table: 2 MB of values, so whole-table copies would show at once."""
    table = random_sequence(1024, 256, seed=1)
    return new_document(ExplorerState(queries=table, kv=table))


def table_of(model) -> tuple[tuple[str, ...], np.ndarray]:
    return model.tokens, model.values.copy()


def assert_same(a, b) -> None:
    assert a[0] == b[0]
    np.testing.assert_array_equal(a[1], b[1])


def test_moving_tokens_keeps_two_rows_per_step_not_the_table(big_doc):
    model = big_doc.queries
    start = table_of(model)
    row = 500
    for _ in range(20):
        row = model.move_token(row, +1)
    assert big_doc.undo_stack.count() == 20
    # Two rows of 256 floats before and after: 8 KB a step; the table is 2 MB.
    assert history_bytes(big_doc.undo_stack) < 20 * 10_000
    assert model.tokens[520] == start[0][500]
    big_doc.undo_stack.setIndex(0)
    assert_same(table_of(model), start)


def test_removing_scattered_rows_undoes_to_the_same_order(big_doc):
    model = big_doc.queries
    start = table_of(model)
    model.remove_tokens([3, 4, 5, 100, 1023, 0])
    assert model.rowCount() == 1018
    assert model.tokens[:3] == start[0][1:3] + start[0][6:7]
    assert history_bytes(big_doc.undo_stack) < 6 * 2 * 256 * 8 + 4000
    big_doc.undo_stack.undo()
    assert_same(table_of(model), start)


def test_adding_a_dimension_keeps_one_column_per_table(big_doc):
    big_doc.add_dimension(np.random.default_rng(0))
    assert big_doc.queries.d_in == 257
    assert history_bytes(big_doc.undo_stack) < 2 * 1024 * 8 + 1000
    big_doc.remove_dimension(10)
    assert big_doc.queries.d_in == 256
    big_doc.undo_stack.undo()
    big_doc.undo_stack.undo()
    np.testing.assert_array_equal(
        big_doc.queries.values, np.array(random_sequence(1024, 256, seed=1).embeddings)
    )


def test_pasting_a_row_keeps_that_row_only(big_doc):
    model = big_doc.queries
    before = table_of(model)
    assert model.paste(7, 1, "1\t2\t3") is None
    assert model.values[7, :4].tolist() == [1.0, 2.0, 3.0, before[1][7, 3]]
    assert history_bytes(big_doc.undo_stack) < 2 * 256 * 8 + 1000
    big_doc.undo_stack.undo()
    assert_same(table_of(model), before)


def test_past_the_byte_budget_the_oldest_steps_are_forgotten(big_doc, monkeypatch):
    """Budget of 5 MB, randomize steps of 4 MB (before and after): only the newest fits."""
    monkeypatch.setattr(undo, "UNDO_BUDGET_BYTES", 5 * 2**20)
    model, stack = big_doc.queries, big_doc.undo_stack
    big_doc.set_control("seed", 7)
    stack.setClean()  # saved here
    tables = [table_of(model)]
    for k in range(3):
        model.randomize(np.random.default_rng(k))
        tables.append(table_of(model))
        assert history_bytes(stack) <= 5 * 2**20
    assert stack.count() == 1
    assert stack.command(0).text() == "Randomize embeddings"
    assert not stack.isClean()
    stack.undo()  # back to the table before the last randomize, not further
    assert_same(table_of(model), tables[2])
    assert not stack.canUndo()
    assert not stack.isClean(), "the saved state was forgotten: the document stays modified"
    assert big_doc.controls.seed == 7
    stack.redo()
    assert_same(table_of(model), tables[3])


def test_a_saved_state_among_the_kept_steps_stays_reachable(big_doc, monkeypatch):
    monkeypatch.setattr(undo, "UNDO_BUDGET_BYTES", 9 * 2**20)
    model, stack = big_doc.queries, big_doc.undo_stack
    for k in range(3):
        model.randomize(np.random.default_rng(k))
        if k == 1:
            stack.setClean()
            saved = table_of(model)
    assert stack.count() == 2  # 4 MB each: the first was forgotten
    assert not stack.isClean()
    stack.undo()
    assert stack.isClean()
    assert_same(table_of(model), saved)
    stack.redo()
    assert not stack.isClean()


def test_a_slider_drag_still_merges_after_a_trim(big_doc, monkeypatch):
    monkeypatch.setattr(undo, "UNDO_BUDGET_BYTES", 5 * 2**20)
    big_doc.queries.randomize(np.random.default_rng(0))
    big_doc.queries.randomize(np.random.default_rng(1))
    for seed in range(1, 30):
        big_doc.set_control("seed", seed)
    assert [big_doc.undo_stack.command(i).text() for i in range(2)] == [
        "Randomize embeddings",
        "Change seed",
    ]
