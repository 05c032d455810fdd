"""The model view on a tiny GPT-2: every layer × head drawn as one image, a head's summary under
the pointer, and a click that opens the head in the lab with the model's own numbers."""

from __future__ import annotations

import numpy as np
import pytest

from tests.lens.conftest import TEXT


def test_the_grid_is_one_image_of_every_layer_and_head(model_view):
    grid = model_view.model_grid
    assert (grid.layers, grid.heads) == (3, 4)
    assert model_view.image.image.shape == grid.image.shape
    assert model_view.heading.text().endswith("3 layers × 4 heads, 13 tokens")


def test_a_heads_summary_names_its_numbers(model_view):
    from attn_explorer.ui.lens.model_window import head_summary

    text = head_summary(model_view.model_run, 1, 2)
    entropy = model_view.model_run.summaries.entropy[1, 2]
    assert text.startswith(f"Layer 2, head 3: entropy {entropy:.2f} bits")


def test_a_head_summary_in_vietnamese_keeps_the_decimal_point(model_view, vietnamese):
    from attn_explorer.ui.lens.model_window import head_summary

    text = head_summary(model_view.model_run, 0, 0)
    assert text.startswith("Tầng 1, đầu 1") and "," not in text.split(":")[1].split(" ")[2]


def test_clicking_a_head_opens_it_in_the_lab(model_view, window, wait_settled):
    from attn_explorer.lens.capture import forward

    model_view.open_in_lab(2, 1)
    wait_settled(window)
    config = window.doc.config()
    assert config.given is not None and config.d_in == 32 and config.causal
    _, _, attentions = forward(model_view.loaded, TEXT)
    np.testing.assert_allclose(window.trace.weights[0], attentions[2][0, 1].numpy(), atol=1e-5)
    assert window.tabs.currentIndex() == 0


def test_the_layer_under_a_resting_pointer_and_those_beside_an_opened_head_are_made_ready(
    model_view, window, wait_settled, qtbot
):
    """Before the click: a head's layer is made ready while the pointer rests on it, and the
    head's trace computed, which the click then draws; once a head is open, the layers above
    and below it, each the object its heads then open with."""
    from attn_explorer.engine import ready as computed
    from attn_explorer.lens.capture import forward
    from attn_explorer.lens.lab import head_config

    grid = model_view.model_grid
    x, y = grid.origin(1, 2)
    model_view._hovered(model_view.image.mapToScene(x + grid.tile / 2, y + grid.tile / 2))
    cache = model_view.model_run.rows_cache
    assert 1 not in cache  # not while the pointer moves on
    qtbot.waitUntil(lambda: 1 in cache, timeout=2000)
    ready = cache[1].result(timeout=30)
    qtbot.waitUntil(lambda: bool(computed._ready), timeout=5000)  # the head's trace too
    (trace, compared, _seconds), *_ = computed._ready
    assert trace.config.given == head_config(model_view.model_run, 1, 2).given and compared
    model_view.open_in_lab(1, 2)
    wait_settled(window)
    assert window.doc.config().embeddings is ready
    assert window.trace is trace and not computed._ready  # drawn without computing it again
    _, _, attentions = forward(model_view.loaded, TEXT)
    np.testing.assert_allclose(window.trace.weights[0], attentions[1][0, 2].numpy(), atol=1e-5)
    qtbot.waitUntil(lambda: {0, 2} <= set(cache), timeout=2000)
    [cache[layer].result(timeout=30) for layer in (0, 2)]


def test_a_head_rested_on_again_is_not_computed_again(model_view, monkeypatch):
    """A pointer nudged within a head's tile rests again: that head's trace is computed ahead
    once, and the ready traces (two kept) are not filled with copies of it."""
    computed = []
    monkeypatch.setattr(
        "attn_explorer.ui.lens.model_window.prepare_head",
        lambda _run, layer, head: computed.append((layer, head)),
    )
    model_view.head_prepared = None
    for pointed in [(0, 1), (0, 1), (2, 3), (0, 1)]:
        model_view.pointed = pointed
        model_view._prepare_pointed()
    assert computed == [(0, 1), (2, 3), (0, 1)]


def test_open_head_from_the_command_line_counts_from_one_and_leaves_nothing_to_save(
    model_view, window, wait_settled
):
    from attn_explorer.lens.errors import LensError
    from attn_explorer.ui.lens.open_model import open_head

    with pytest.raises(LensError, match="LAYER:HEAD"):
        open_head(window, model_view, "three", None)
    with pytest.raises(LensError, match="there is no head 5"):
        open_head(window, model_view, "1:5", None)
    open_head(window, model_view, "3:4", "scores")
    wait_settled(window)
    assert window.doc.undo_stack.isClean()
    assert window.stepper.stage == "scores"
    assert (
        window.statusBar().currentMessage() == "Open layer 3, head 4 of " + model_view.loaded.name
    )


def test_typing_runs_the_model_again_off_the_windows_thread(model_view, qtbot):
    model_view.text.setText("the dog sat")
    model_view.rerun()
    assert model_view.runner.busy or model_view.model_run.tokens == ("the", "␣dog", "␣sat")
    qtbot.waitUntil(lambda: model_view.model_run.tokens == ("the", "␣dog", "␣sat"), timeout=30_000)
    assert model_view.model_grid.image.shape[0] == 3 * 48 + 2 * 4  # 3 tokens, enlarged
    assert model_view.heading.text().endswith("3 tokens")


def test_text_too_long_is_said_under_the_grid(model_view, qtbot):
    model_view.text.setText("the cat " * 50)
    model_view.rerun()
    qtbot.waitUntil(lambda: "reads at most 64" in model_view.summary.text(), timeout=30_000)


def test_the_model_view_saves_its_figure_and_the_open_heads_script(model_view, tmp_path):
    from PySide6.QtGui import QImage

    model_view.write_figure(str(tmp_path / "grid.png"))
    assert QImage(str(tmp_path / "grid.png")).width() > 4 * 48
    model_view.write_figure(str(tmp_path / "grid.svg"))
    assert (tmp_path / "grid.svg").read_text().lstrip().startswith("<?xml")
    assert not model_view.save_script.isEnabled()
    model_view.open_in_lab(1, 2)
    assert model_view.save_script.isEnabled()
    model_view.write_script(str(tmp_path / "head.py"))
    script = (tmp_path / "head.py").read_text()
    assert "LAYER = 2\nHEAD = 3\n" in script
    assert f'MODEL = "{model_view.loaded.source}"' in script
    compile(script, "head.py", "exec")


def test_a_new_session_after_a_head_in_the_lab_draws_its_own_weights(
    model_view, window, wait_settled
):
    """File → New (a reset of the document) leaves the real head's weights behind: the
    default example computes with weights drawn from its seed, and nothing is refused."""
    from attn_explorer.engine import compute
    from attn_explorer.model.state import default_state

    model_view.open_in_lab(1, 1)
    wait_settled(window)
    assert window.doc.config().given is not None
    window.doc.reset(default_state())
    wait_settled(window)
    assert window.doc.config().given is None and not window.problems
    assert window.trace.context.tolist() == compute(default_state().config()).context.tolist()


def test_typing_at_the_end_reruns_only_the_new_tokens_and_draws_what_a_fresh_run_would(
    model_view, qtbot
):
    from attn_explorer.lens.capture import run
    from attn_explorer.lens.grid import grid

    model_view.text.setText(TEXT + " and the cat sat")
    model_view.rerun()
    qtbot.waitUntil(lambda: model_view.model_run.text.endswith("cat sat"), timeout=30_000)
    assert model_view.model_run.reused == 13  # the text's own tokens, kept
    fresh = run(model_view.loaded, TEXT + " and the cat sat")
    np.testing.assert_array_equal(model_view.model_grid.image, grid(fresh.weights).image)


def test_undo_after_heads_of_two_layers_gives_back_the_first_head(model_view, window, wait_settled):
    from attn_explorer.lens.lab import head_config

    model_view.open_in_lab(0, 1)
    wait_settled(window)
    first = window.doc.config()
    model_view.open_in_lab(2, 3)
    wait_settled(window)
    assert window.doc.config() == head_config(model_view.model_run, 2, 3)
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.doc.config() == first and window.doc.config().given == first.given
    assert window.trace.config == first
    window.doc.undo_stack.redo()
    wait_settled(window)
    assert window.doc.config().given == head_config(model_view.model_run, 2, 3).given


def test_an_opened_heads_rows_stay_an_array_until_a_cell_is_edited_and_undone(
    model_view, window, wait_settled
):
    """Opening, computing and drawing a head, and showing its rows in the embedding table,
    turn none of the layer's rows into Python floats; a cell edited in the table changes the
    config and the trace (the layer's rows untouched), and undo gives back their numbers."""
    from attn_explorer.engine.given import ArrayRows

    model_view.open_in_lab(1, 2)
    wait_settled(window)
    rows = window.doc.config().embeddings
    assert isinstance(rows, ArrayRows) and rows.converted == 0
    before = window.trace.weights[0].copy()
    table = window.doc.queries
    assert table.data(table.index(0, 1)) == f"{rows.array[0, 0]:.6g}"  # the shown cell
    assert table.setData(table.index(0, 1), "2.5")
    wait_settled(window)
    assert window.doc.config().embeddings[0][0] == 2.5 and rows.array[0, 0] != 2.5
    assert not np.allclose(window.trace.weights[0], before)
    assert rows.converted == 0 and table.data(table.index(0, 1)) == "2.5"
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.doc.config().embeddings == rows
    np.testing.assert_array_equal(window.trace.weights[0], before)


def test_an_edited_big_table_stays_an_array_and_each_edit_undoes(
    model_view, window, wait_settled, monkeypatch
):
    """A table as big as a real layer's (here: the tiny model's, with the threshold lowered)
    is handed to the config as an array after an edit too, never as Python floats: each
    edit writes a copy (the config before it keeps its numbers), and undo and redo give
    each table's numbers and trace back."""
    from attn_explorer.engine.given import ArrayRows
    from attn_explorer.ui.editing import embedding_model

    monkeypatch.setattr(embedding_model, "ARRAY_ROWS_FROM", 100)  # 13 × 32 = 416 numbers
    model_view.open_in_lab(2, 0)
    wait_settled(window)
    rows, table = window.doc.config().embeddings, window.doc.queries
    first_trace = window.trace.weights[0].copy()
    assert table.setData(table.index(3, 5), "1.25")
    wait_settled(window)
    once = window.doc.config().embeddings
    assert isinstance(once, ArrayRows) and once.array[3, 4] == 1.25 and once.converted == 0
    assert table.setData(table.index(4, 5), "-3")
    wait_settled(window)
    twice = window.doc.config().embeddings
    assert isinstance(twice, ArrayRows) and (twice.array[3, 4], twice.array[4, 4]) == (1.25, -3)
    assert once.array[4, 4] == rows.array[4, 4] != -3  # the earlier table kept its numbers
    second_trace = window.trace.weights[0].copy()
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.doc.config().embeddings == once and table.data(table.index(4, 5)) != "-3"
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.doc.config().embeddings == rows
    np.testing.assert_array_equal(window.trace.weights[0], first_trace)
    window.doc.undo_stack.redo()
    window.doc.undo_stack.redo()
    wait_settled(window)
    assert window.doc.config().embeddings == twice
    np.testing.assert_array_equal(window.trace.weights[0], second_trace)
    assert rows.converted == once.converted == twice.converted == 0
