"""The `window` fixture's reuse (tests/ui/window_reuse.py): a window a test changed in the
ways tests do comes back as a new one, and one changed in a way the reset does not undo is
not used again."""

import pytest

from attn_explorer.model.state import default_state
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.main_window import MainWindow
from tests.ui import window_reset, window_reuse
from tests.ui.conftest import settled, show_steps


@pytest.fixture
def pool(qtbot, monkeypatch, wait_settled):
    """A pool of its own around a new window, and `back()` to hand that window back after a
    test, as the fixture does when the next test uses one."""
    configure_pyqtgraph()
    win = MainWindow()
    qtbot.addWidget(win, before_close_func=lambda w: w.doc.undo_stack.setClean())
    win.resize(*window_reset.SIZE)
    with qtbot.waitSignal(win.firstPicture, timeout=30_000):
        win.show()
    own = window_reuse.WindowPool()
    own.remember_new(win)

    def reset(w, new) -> None:
        window_reset.reset(w, new, settled, wait_settled)

    def back(steps: bool = False) -> None:
        own.next_uses_window = True
        own.next_uses_steps = steps
        own.give_back(win, False, monkeypatch, reset)

    def step_through() -> None:
        own.step_through(win, lambda w: show_steps(w, qtbot), reset)

    own.back = back
    own.show_step_through = step_through
    own.win = win
    return own


def test_a_window_edited_and_looked_around_in_comes_back_as_new(pool, wait_settled, qtbot):
    win = pool.win
    win.load_preset("mha")
    wait_settled(win)
    win.doc.set_control("seed", 7)
    win.board.score_box.setCurrentIndex(1)
    win.board.views["scores"].plot.cellClicked.emit(3, 0)  # follows the fourth query
    win.editor.query_table.selectRow(2)
    win.editor.query_table.setFocus()
    win.resize(1024, 700)
    win.notify("a notice")
    win.editor.rng.random()  # (made when random values are first asked for)
    wait_settled(win)
    pool.back()
    assert pool.window is win, pool.last_reason
    state, fresh = win.current_state(), default_state()
    assert state.config() == fresh.config() and state.view == fresh.view
    assert win.doc.undo_stack.count() == 0
    assert window_reuse.looks(win) == pool.new.look


def test_a_window_whose_methods_a_test_patched_comes_back_as_new(pool, monkeypatch):
    """A test's patches are undone before the reset, as after it; the methods of the
    window and its parts are the classes' again, and Qt's dialogs stay refused."""
    win = pool.win
    notices = []
    monkeypatch.setattr(win, "notify", notices.append)
    monkeypatch.setattr(win.files, "update_title", lambda: None)
    monkeypatch.setattr(window_reuse.QMessageBox, "question", lambda *args: None)
    win.notify("a notice")
    assert notices == ["a notice"]
    pool.back()
    assert pool.window is win, pool.last_reason
    assert "notify" not in vars(win) and "update_title" not in vars(win.files)
    assert window_reuse.QMessageBox.question(None, "", "") is None  # until the test's end
    assert window_reuse.looks(win) == pool.new.look


def test_a_window_built_under_a_fixtures_patch_is_not_kept(pool, monkeypatch):
    """Built while a fixture's patch stood (the `window` fixture says so in `clean`), a
    window may hold what the patch made: it is not used again."""
    pool.clean = False
    monkeypatch.setattr(pool.win, "notify", lambda text: None)
    pool.back()
    assert pool.window is None
    assert pool.closed == {"built under the test's patches": 1}


@pytest.mark.parametrize(
    "change",
    [
        "a lambda left connected",
        "a method patched on the window",
        "the step-through drawn",
    ],
)
def test_what_the_reset_does_not_undo_makes_a_new_window(pool, qtbot, change):
    win = pool.win
    if change == "a lambda left connected":
        win.traceShown.connect(lambda trace: None)
    elif change == "a method patched on the window":
        win.notify = lambda text: None
    else:
        win.tabs.setCurrentWidget(win.stepper)
        qtbot.waitUntil(win.stepper.isVisible)
    pool.back()
    assert pool.window is None
    assert sum(pool.closed.values()) == 1


def test_a_window_walked_through_its_stages_comes_back_as_shown_them_first(pool, wait_settled):
    """The step-through's stages, panels, followed cell and Play: what a test leaves there is
    brought back to what the window showed when the step-through was first shown on it."""
    win, stepper = pool.win, pool.win.stepper
    pool.show_step_through()
    first = pool.stepped
    assert stepper.isVisible() and stepper.stage == "embeddings"
    assert stepper._softmax_panel is None and stepper._mask_panel is None
    plots = len(stepper.figure._pool)
    for key in stepper.keys:  # builds both panels and a plot for each matrix of a stage
        stepper.set_stage(key)
    stepper.set_stage("scores")
    stepper.figure.cellClicked.emit(stepper.figure.plots[-1], 3, 2)  # works out a cell
    stepper.play_button.setChecked(True)
    win.resize(1024, 700)
    assert stepper._softmax_panel is not None and len(stepper.figure._pool) > plots
    pool.back(steps=True)
    assert pool.window is win, pool.last_reason
    assert pool.stepped is first
    assert (stepper.stage, stepper.query, stepper.column) == ("embeddings", 1, None)
    assert not stepper.play_button.isChecked() and not stepper.timer.isActive()
    assert stepper._softmax_panel is None and stepper._mask_panel is None
    assert len(stepper.figure._pool) == plots
    assert window_reuse.looks(win) == first.look


def test_a_window_shown_the_step_through_goes_only_to_a_test_that_uses_it(pool, monkeypatch):
    win = pool.win
    pool.show_step_through()
    pool.back(steps=False)  # the next test does not use the step-through
    assert pool.window is None
    assert pool.closed == {"the next test does not use the step-through": 1}
    assert not win.isVisible()


def test_a_stepped_window_a_test_left_a_lambda_on_is_not_used_again(pool):
    pool.show_step_through()
    pool.win.stepper.stageChanged.connect(lambda key: None)
    pool.back(steps=True)
    assert pool.window is None
    assert sum(pool.closed.values()) == 1
