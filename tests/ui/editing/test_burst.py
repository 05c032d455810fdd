"""A burst of changes (a scripted sweep, 1,000 a second) as the controls and the undo history
show it: each change costs the window little (benchmarks/soak.py times the burst), and what
the learner sees and undoes is what one change at a time gave."""

import random

from PySide6.QtCore import Qt

from attn_explorer.ui.editing.controls import ControlsPanel
from benchmarks.soak import soak_actions
from tests.ui.conftest import assert_shows


def test_a_burst_of_seed_changes_is_undone_by_one_ctrl_z(window, wait_settled, qtbot):
    spin = window.controls.seed.spin
    assert spin.value() == 123
    for seed in range(2000, 2300):  # one turn of the event loop, as a late benchmark tick
        spin.setValue(seed)
    assert window.doc.controls.seed == 2299
    assert window.controls.seed.slider.value() == 2299
    wait_settled(window)
    assert window.trace.config.seed == 2299
    assert_shows(window)
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert window.doc.controls.seed == 123
    assert spin.value() == 123 and window.controls.seed.slider.value() == 123
    assert not window.doc.undo_stack.canUndo()
    wait_settled(window)
    assert window.trace.config.seed == 123
    assert_shows(window)


def test_a_change_not_made_by_its_widget_is_shown_by_it(window):
    """The document changed by another way (a script, the heads panel): the widget follows."""
    window.doc.set_control("seed", 77)
    assert window.controls.seed.value() == 77
    window.doc.set_control("padding", False)
    window.doc.set_control("causal", False)
    assert not window.controls.causal.isChecked()
    assert not window.controls.mask_method.isEnabled()  # no mask: the method is moot
    window.doc.undo_stack.undo()  # (the window's example has a causal mask)
    assert window.controls.causal.isChecked() and window.controls.mask_method.isEnabled()


def test_the_enabled_states_follow_a_sweep_through_zero(window):
    """p swept down to 0 and up again: training mode is disabled at 0 only, and its tooltip
    says why, though most moves of p leave the enabled states as they were."""
    controls = window.controls
    controls.training.setChecked(True)
    for p in (0.5, 0.3, 0.1, 0.0):
        controls.dropout.spin.setValue(p)
    assert not controls.training.isEnabled()
    assert "p is 0: nothing is dropped" in controls.training.toolTip()
    assert not controls.reseed_dropout.isEnabled()
    controls.dropout.spin.setValue(0.2)
    assert controls.training.isEnabled() and controls.reseed_dropout.isEnabled()
    assert "Disabled" not in controls.training.toolTip()


SHOWN = {
    "seed": "value",
    "d_out": "value",
    "heads": "value",
    "dropout": "value",
    "temperature": "value",
    "valid_len": "value",
    "dropout_seed": "value",
    "projection": "currentData",
    "layout_box": "currentData",
    "mask_method": "currentData",
    "qkv_bias": "isChecked",
    "out_proj": "isChecked",
    "scale": "isChecked",
    "causal": "isChecked",
    "padding": "isChecked",
    "training": "isChecked",
    "cross": "isChecked",
    "reseed_dropout": "isChecked",
    "mask_before_scaling": "isChecked",
}


def shown(panel) -> dict:
    """What every control shows: its value, whether it is enabled, and its tooltip."""
    return {
        name: (
            getattr(getattr(panel, name), reader)(),
            getattr(panel, name).isEnabled(),
            getattr(panel, name).toolTip(),
        )
        for name, reader in SHOWN.items()
    }


def test_after_random_edits_every_control_shows_what_a_new_panel_shows(
    window, stepped_window, qtbot
):
    """Random edits of every kind (the soak's): the panel, which sets only what changed,
    shows what a panel built from the document at that moment shows."""
    rng = random.Random(29)
    actions = soak_actions(window, rng)
    for i in range(300):
        rng.choice(actions)()
        if i % 30 == 29:
            fresh = ControlsPanel(window.doc)
            try:
                assert shown(window.controls) == shown(fresh), f"after edit {i + 1}"
            finally:
                window.doc.controlsChanged.disconnect(fresh.sync)
                fresh.deleteLater()
        qtbot.wait(0)


def test_changes_made_in_one_turn_ask_the_engine_twice_and_stay_undoable(
    window, wait_settled, monkeypatch
):
    """A late tick of a burst makes dozens of changes in one turn of the event loop: the
    engine is asked for the first at once and for the newest when the turn ends, never for
    those between, while the document and the undo history keep every change (a run of one
    control merged into one step, another control a step of its own)."""
    wait_settled(window)
    asked = []
    request = window.bridge.request

    def spy(config, *args):
        asked.append((config.seed, config.d_out))
        return request(config, *args)

    monkeypatch.setattr(window.bridge, "request", spy)
    controls, stack = window.controls, window.doc.undo_stack
    seed, d_out, steps = window.doc.controls.seed, window.doc.controls.d_out, stack.count()
    for value in range(500, 540):
        controls.seed.spin.setValue(value)
    controls.d_out.spin.setValue(d_out + 1)
    controls.seed.spin.setValue(541)
    assert asked == [(500, d_out)]  # the turn goes on: only its first change so far
    wait_settled(window)
    assert asked == [(500, d_out), (541, d_out + 1)]
    assert window.trace.config.seed == 541
    assert_shows(window)
    assert stack.count() == steps + 3  # seeds, d_out, the last seed
    stack.undo()
    assert (window.doc.controls.seed, window.doc.controls.d_out) == (539, d_out + 1)
    stack.undo()
    assert (window.doc.controls.seed, window.doc.controls.d_out) == (539, d_out)
    stack.undo()
    assert (window.doc.controls.seed, window.doc.controls.d_out) == (seed, d_out)
    assert controls.seed.value() == seed and controls.d_out.value() == d_out
    wait_settled(window)
    assert window.trace.config.seed == seed
