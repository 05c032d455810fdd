"""The `window` fixture's reuse (tests/ui/window_reuse.py): a window a test changed in the
ways tests do comes back as a new one, and one changed in a way the reset does not undo is
not used again."""

import pytest

from attn_explorer.model.state import default_state
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.main_window import MainWindow
from tests.ui import window_reuse
from tests.ui.conftest import settled


@pytest.fixture
def pool(qtbot, monkeypatch, wait_settled):
    """A pool of its own around a new window, and `back()` to hand that window back after a
    test, as the fixture does when the next test uses one."""
    configure_pyqtgraph()
    win = MainWindow()
    qtbot.addWidget(win, before_close_func=lambda w: w.doc.undo_stack.setClean())
    win.resize(*window_reuse.SIZE)
    with qtbot.waitSignal(win.firstPicture, timeout=30_000):
        win.show()
    own = window_reuse.WindowPool()
    own.remember_new(win)

    def back() -> None:
        own.next_uses_window = True
        own.give_back(
            win,
            False,
            monkeypatch,
            lambda w, new: window_reuse.reset(w, new, settled, wait_settled),
        )

    own.back = back
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
    wait_settled(win)
    pool.back()
    assert pool.window is win, pool.last_reason
    state, fresh = win.current_state(), default_state()
    assert state.config() == fresh.config() and state.view == fresh.view
    assert win.doc.undo_stack.count() == 0
    assert window_reuse.looks(win) == pool.new.look


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
