"""The document's undo history: slider drags merge into one step, and nothing leaks."""

import gc

import pytest

from attn_explorer.engine.presets import preset
from attn_explorer.model.state import ExplorerState
from attn_explorer.ui.editing import document as document_module
from attn_explorer.ui.editing.document import UNDO_LIMIT


@pytest.fixture
def doc(new_document):
    return new_document(ExplorerState.from_config(preset("simple").config))


def live_control_commands() -> int:
    gc.collect()
    kind = document_module._ControlsEdit
    return sum(type(o) is kind for o in gc.get_objects())


def test_a_drag_of_one_control_is_one_undo_step(doc):
    start = doc.controls.seed
    for seed in range(1, 60):
        doc.set_control("seed", seed)
    assert doc.controls.seed == 59
    assert doc.undo_stack.count() == 1
    doc.undo_stack.undo()
    assert doc.controls.seed == start
    doc.undo_stack.redo()
    assert doc.controls.seed == 59


def test_merged_moves_leave_no_command_objects_behind(doc):
    before = live_control_commands()
    for seed in range(1, 300):
        doc.set_control("seed", seed)
    assert live_control_commands() - before == 1


def test_dragging_back_to_the_start_leaves_nothing_to_undo(doc):
    start = doc.controls.d_out
    doc.set_control("d_out", start + 1)
    doc.set_control("d_out", start + 2)
    doc.set_control("d_out", start)
    assert doc.controls.d_out == start
    assert doc.undo_stack.count() == 0
    assert not doc.undo_stack.canUndo()


def test_another_control_starts_a_new_step(doc):
    doc.set_control("seed", 5)
    doc.set_control("d_out", 4)
    doc.set_control("seed", 6)
    assert doc.undo_stack.count() == 3
    doc.undo_stack.undo()
    assert (doc.controls.seed, doc.controls.d_out) == (5, 4)


def test_a_pause_starts_a_new_step(doc, monkeypatch):
    doc.set_control("seed", 5)
    monkeypatch.setattr(document_module, "MERGE_SECONDS", -1.0)
    doc.set_control("seed", 6)
    assert doc.undo_stack.count() == 2
    doc.undo_stack.undo()
    assert doc.controls.seed == 5


def test_nothing_merges_into_the_saved_state(doc):
    doc.set_control("seed", 5)
    doc.undo_stack.setClean()
    doc.set_control("seed", 6)
    assert doc.undo_stack.count() == 2
    assert not doc.undo_stack.isClean()
    doc.undo_stack.undo()
    assert doc.undo_stack.isClean()
    assert doc.controls.seed == 5


def test_after_an_undo_a_move_starts_a_new_step(doc):
    doc.set_control("seed", 5)
    doc.set_control("d_out", 4)
    doc.undo_stack.undo()
    doc.set_control("d_out", 6)
    assert doc.undo_stack.count() == 2
    doc.undo_stack.undo()
    assert doc.controls.d_out == preset("simple").config.d_out


def test_history_is_bounded(doc, monkeypatch):
    monkeypatch.setattr(document_module, "MERGE_SECONDS", -1.0)
    for seed in range(UNDO_LIMIT + 50):
        doc.set_control("seed", seed + 1)
    assert doc.undo_stack.count() == UNDO_LIMIT
    assert doc.controls.seed == UNDO_LIMIT + 50


def test_undo_steps_are_named_by_the_words_on_the_controls(doc):
    """The Edit menu read "Undo Change num heads", "Change out proj", "Change cross": field
    names, half English in a translated window."""
    from attn_explorer.model.state import Controls
    from attn_explorer.ui.editing.document import CONTROL_NAMES

    assert set(CONTROL_NAMES) == set(Controls.names())
    doc.set_control("num_heads", 2)
    assert doc.undo_stack.undoText() == "Change heads"
    doc.set_control("causal", True)
    assert doc.undo_stack.undoText() == "Turn on causal mask"
    doc.set_control("out_proj", True)
    assert doc.undo_stack.undoText() == "Turn on output projection"
    on = not doc.controls.scale
    doc.set_control("scale", on)
    assert doc.undo_stack.undoText() == f"Turn {'on' if on else 'off'} division by √d_k"
    doc.load_state(ExplorerState.from_config(preset("mha").config), "Load example")
    doc.undo_stack.undo()
    doc._record_controls(doc.controls, None)
    assert doc.undo_stack.undoText() == "Change settings"


def test_a_loaded_table_is_the_config_s_own_object_through_undo_and_redo(doc):
    """A real layer's rows are compared and checked by identity: loading them must not
    rebuild them from the table's array (a fresh object would be converted and checked
    again on every switch of head)."""
    import numpy as np

    from attn_explorer.engine.given import ArrayRows
    from attn_explorer.model.state import TokenSequence

    before = doc.state().queries
    rows = ArrayRows.of(np.arange(12, dtype=np.float32).reshape(4, 3) / 8)
    loaded = TokenSequence(("a", "b", "c", "d"), rows)
    doc.load_state(ExplorerState(queries=loaded, controls=doc.controls), "Open head")
    assert doc.config().embeddings is rows
    assert doc.queries.data(doc.queries.index(1, 3)) == "0.625"  # row 2, dimension 3: 5/8
    doc.undo_stack.undo()
    assert doc.state().queries is before
    doc.undo_stack.redo()
    assert doc.state().queries is loaded
    assert doc.queries.replacement(loaded) is None  # another head of the layer: nothing to do


def test_a_cell_of_a_loaded_layer_is_edited_in_a_copy_and_undone_to_the_layer(doc):
    """The table shares a real layer's read-only array until a cell is written: the edit
    changes the table and its config, never the layer's rows, and undo gives those back."""
    import numpy as np

    from attn_explorer.engine.given import ArrayRows
    from attn_explorer.model.state import TokenSequence

    rows = ArrayRows.of(np.arange(12, dtype=np.float32).reshape(4, 3) / 8)
    loaded = TokenSequence(("a", "b", "c", "d"), rows)
    doc.load_state(ExplorerState(queries=loaded, controls=doc.controls), "Open head")
    assert np.shares_memory(doc.queries.values, rows.array)  # not copied on loading
    assert doc.queries.setData(doc.queries.index(1, 3), "9.5")
    assert doc.config().embeddings[1] == (0.375, 0.5, 9.5)
    assert rows[1] == (0.375, 0.5, 0.625) and rows.array[1, 2] == 0.625  # the layer's own
    doc.undo_stack.undo()
    assert doc.config().embeddings == rows
    assert doc.queries.data(doc.queries.index(1, 3)) == "0.625"
    doc.undo_stack.redo()
    assert doc.config().embeddings[1] == (0.375, 0.5, 9.5)


def test_a_control_set_by_name_is_the_value_replace_would_give(doc):
    """`with_control` copies the fields instead of building Controls again: for every
    control, the same frozen value as `dataclasses.replace` (equal, same hash), and the
    controls it was made from stay as they were."""
    from dataclasses import FrozenInstanceError, replace

    from attn_explorer.model.state import Controls
    from attn_explorer.ui.editing.document import with_control

    before = doc.controls
    others = {bool: lambda v: not v, int: lambda v: v + 1, float: lambda v: v / 2}
    others |= {str: lambda v: v + "x", tuple: lambda v: (*v, 9)}
    for name in Controls.names():
        old = getattr(before, name)
        value = others[type(old)](old)
        made = with_control(before, name, value)
        assert made == replace(before, **{name: value})
        assert hash(made) == hash(replace(before, **{name: value}))
        assert getattr(made, name) == value and getattr(before, name) == old
        assert type(made) is Controls
        with pytest.raises(FrozenInstanceError):
            made.seed = 1
