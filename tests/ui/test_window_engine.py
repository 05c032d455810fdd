"""The engine round trip: every control reaches the engine, bursts of edits are sent once
per turn, and what cannot be computed is said while the last picture stays."""

import numpy as np
import pytest

from attn_explorer.ui.main_window import MainWindow
from tests.ui.conftest import assert_shows


def test_first_picture_is_the_default_example(window):
    weights = window.board.views["weights"].plot.matrix
    np.testing.assert_allclose(weights[1, :2], [0.4833, 0.5167], atol=1e-4)
    assert window.board.views["scores"].plot.shown.name == "masked_scores"
    assert_shows(window)


def test_the_status_bar_says_the_engine_is_starting_until_the_first_picture(qtbot):
    win = MainWindow()
    qtbot.addWidget(win)
    assert win.status_text.text() == "Starting the engine (loading PyTorch)…"
    with qtbot.waitSignal(win.firstPicture, timeout=30_000):
        win.show()
    # Written once the picture is on screen (`StatusLine.show_picture`).
    qtbot.waitUntil(lambda: not win.status_line.waiting)
    assert win.status_text.text().startswith("linear · d_out 2")
    win.close()
    assert not win.bridge.is_running()


@pytest.mark.parametrize(
    ("control", "value", "field", "expected"),
    [
        ("seed", 789, "seed", 789),
        ("d_out", 5, "d_out", 5),
        ("heads", 3, "num_heads", 3),
        ("dropout", 0.35, "dropout", 0.35),
        ("temperature", 2.5, "temperature", 2.5),
    ],
)
def test_each_slider_reaches_the_engine(window, wait_settled, control, value, field, expected):
    getattr(window.controls, control).spin.setValue(value)
    wait_settled(window)
    assert getattr(window.trace.config, field) == pytest.approx(expected)
    assert_shows(window)


def test_slider_half_of_a_pair_reaches_the_engine(window, wait_settled):
    window.controls.d_out.slider.setValue(window.controls.d_out.slider.value() + 3)
    wait_settled(window)
    assert window.trace.config.d_out == 5
    assert window.controls.d_out.spin.value() == 5


@pytest.mark.parametrize(
    ("widget", "data", "field", "expected"),
    [
        ("projection", "rand", "projection", "rand"),
        ("projection", "none", "projection", "none"),
        ("layout_box", "split", "head_layout", "split"),
        ("mask_method", "renormalize", "mask_method", "renormalize"),
    ],
)
def test_each_choice_reaches_the_engine(window, wait_settled, widget, data, field, expected):
    box = getattr(window.controls, widget)
    box.setCurrentIndex(box.findData(data))
    wait_settled(window)
    assert getattr(window.trace.config, field) == expected
    assert_shows(window)


@pytest.mark.parametrize(
    ("check", "field", "value"),
    [
        ("out_proj", "out_proj", True),
        ("qkv_bias", "qkv_bias", True),
        ("causal", "causal", False),
        ("scale", "scale", False),
        ("training", "training", False),
    ],
)
def test_each_checkbox_reaches_the_engine(window, wait_settled, check, field, value):
    getattr(window.controls, check).setChecked(value)
    wait_settled(window)
    assert getattr(window.trace.config, field) == value
    assert_shows(window)


def test_valid_length_reaches_the_engine(window, wait_settled):
    window.controls.valid_len.setValue(4)
    window.controls.padding.setChecked(True)
    wait_settled(window)
    assert window.trace.config.valid_len == 4
    assert window.board.views["mask"].plot.matrix[0].tolist() == [0, 1, 1, 1, 1, 1]
    assert window.board.views["mask"].plot.matrix[5].tolist() == [0, 0, 0, 0, 1, 1]
    assert_shows(window)


def test_reseeding_dropout_shows_the_tutorials_dropped_weights(window, wait_settled):
    """Tutorial 000 §3.5.2 set up by hand: seed 789, causal, p 0.5, reseed with 123."""
    c = window.controls
    assert not c.reseed_dropout.isEnabled()  # p = 0: no dropout to reseed
    assert c.reseed_dropout.toolTip().endswith("Disabled: No dropout to reseed: p is 0.")
    c.seed.spin.setValue(789)
    c.dropout.spin.setValue(0.5)
    assert c.reseed_dropout.isEnabled() and not c.dropout_seed.isEnabled()
    c.dropout_seed.setValue(123)
    c.reseed_dropout.setChecked(True)
    assert c.dropout_seed.isEnabled()
    box = window.board.weight_box
    box.setCurrentIndex(box.findData("weights_dropped"))
    wait_settled(window)
    assert window.trace.config.dropout_seed == 123
    np.testing.assert_allclose(
        window.board.views["weights"].plot.matrix[2], [0.7599, 0.6194, 0.6206, 0, 0, 0], atol=1e-4
    )
    assert window.doc.undo_stack.undoText() == "Turn on reseeding before dropout"
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert window.trace.config.dropout_seed is None
    assert not c.reseed_dropout.isChecked() and c.dropout_seed.value() == 123
    assert_shows(window)


def test_cross_attention_uses_the_second_table(window, wait_settled):
    window.doc.kv.insert_tokens(6, 2, np.random.default_rng(1))
    window.controls.causal.setChecked(False)
    window.controls.cross.setChecked(True)
    wait_settled(window)
    assert window.trace.config.n_k == 8
    assert window.board.views["weights"].plot.matrix.shape == (6, 8)
    assert window.editor.tabs.isTabEnabled(1)
    assert_shows(window)


def test_rapid_moves_coalesce_and_end_on_the_last_config(window, wait_settled, qtbot):
    before = window.bridge.computations
    for seed in range(1000, 1200):
        window.controls.seed.slider.setValue(seed)
        if seed % 10 == 0:
            qtbot.wait(1)  # let some results arrive mid-burst, as a real drag would
    wait_settled(window)
    assert window.trace.config.seed == 1199
    assert window.bridge.computations - before < 60
    assert_shows(window)


def test_edits_within_one_event_loop_turn_are_sent_once_more_at_its_end(window, wait_settled):
    """The first edit goes to the engine at once; the rest of a same-turn burst, once."""
    generation = window.bridge.generation
    window.controls.seed.spin.setValue(500)
    assert window.bridge.generation == generation + 1  # no waiting for the first
    for seed in range(501, 600):
        window.controls.seed.spin.setValue(seed)
    assert window.bridge.generation == generation + 1
    wait_settled(window)
    assert window.bridge.generation == generation + 2
    assert window.trace.config.seed == 599
    assert_shows(window)


def test_impossible_combination_is_explained_and_the_picture_stays(window, wait_settled, qtbot):
    window.controls.layout_box.setCurrentIndex(window.controls.layout_box.findData("split"))
    window.controls.d_out.spin.setValue(5)
    wait_settled(window)
    window.controls.heads.spin.setValue(2)
    error = window.controls.errors["num_heads"]
    qtbot.waitUntil(error.isVisible)
    assert "d_out 5 cannot be split into 2 heads" in error.text()
    assert "d_out 5 cannot be split" in window.status_text.text()
    shown = window.trace
    assert shown.config.d_out == 5 and shown.config.num_heads == 1  # the last good picture
    assert window.controls.d_out.value() == 5  # nothing else was changed
    window.controls.d_out.spin.setValue(6)
    wait_settled(window)
    assert not error.isVisible()
    assert window.trace.config.num_heads == 2


def test_engine_errors_show_in_the_status_bar(window, qtbot):
    model = window.doc.queries
    model.setData(model.index(0, 1), "1e30")
    model.setData(model.index(0, 2), "1e30")
    window.controls.projection.setCurrentIndex(window.controls.projection.findData("none"))
    qtbot.waitUntil(lambda: "overflowed float32" in window.status_text.text(), timeout=20_000)
    assert window.trace.config.projection == "linear"  # the last good picture stays
