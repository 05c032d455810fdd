from pathlib import Path

import numpy as np
import pytest

from attn_explorer.engine import compute
from attn_explorer.text.examples import example_text
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.export import file_actions
from attn_explorer.ui.main_window import MainWindow
from tests.ui import window_reset, window_reuse

# The offscreen platform has no window manager; these are not the app's warnings.
OFFSCREEN_NOISE = r"This plugin does not support (raise|propagateSizeHints)"
# A module's `pytestmark` where any other Qt warning fails its tests.
STRICT_QT_LOG = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(OFFSCREEN_NOISE),
]


@pytest.fixture(autouse=True)
def no_modal_dialogs(monkeypatch):
    """A modal message box would block a test run forever: fail instead. Tests that expect
    one use the `dialogs` fixture, which records them."""

    def refuse(parent, title, text, *args):
        raise AssertionError(f"unexpected dialog: {title}: {text}")

    monkeypatch.setattr(file_actions.QMessageBox, "question", refuse)
    monkeypatch.setattr(file_actions.QMessageBox, "critical", refuse)


@pytest.fixture(autouse=True)
def forget_export_choices():
    """The export dialog remembers its last format, scale and folder: each test starts fresh."""
    from PySide6.QtCore import QSettings

    from attn_explorer.ui.export.dialogs import SETTINGS_GROUP

    QSettings().remove(SETTINGS_GROUP)
    yield
    QSettings().remove(SETTINGS_GROUP)


@pytest.fixture
def normal_size(qapp):
    """The window's text size at 100 % before and after the test (and remembered so)."""
    from attn_explorer.ui.text_size import text_size

    text_size.reset()
    yield
    text_size.reset()
    text_size.remember()


def _window_group(item: pytest.Item) -> tuple[int, bool]:
    """Where `item` goes in the order below: with the window in English; in Vietnamese; in
    Vietnamese with Qt's own words too (a module's `in_vietnamese`); in the
    pseudo-translation; without a window. In each language, the tests that use the
    step-through come after those that do not."""
    names = getattr(item, "fixturenames", ())
    if "window" not in names:
        return 4, False
    steps = "steps" in names
    if "vietnamese" in names:
        return 1, steps
    if "in_vietnamese" in names:
        return 2, steps
    if "pseudo" in names:
        return 3, steps
    return 0, steps


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The window tests run one after another, those of one language together: a window is
    kept for the next test only where that test takes one in the same language
    (window_reuse.py), and building one costs some 0.8 s of CPU. Interleaved with tests that
    take none, one in four of the windows was built only because the test before had not
    used it. The tests without a window come last: with `-n`, the last tests are handed to
    the workers a few at a time, and a window test's worker would build a window for each
    few. Those that use the step-through come together in their language: a window it was
    shown on is handed only to another of them. The order within each group is the
    collection's."""
    here = Path(__file__).parent
    ui = [i for i, item in enumerate(items) if here in item.path.parents]
    ordered = sorted((items[i] for i in ui), key=_window_group)
    for i, item in zip(ui, ordered, strict=True):
        items[i] = item


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    """The `window` fixture keeps its window only for a next test that takes a used one (not
    one marked `new_window`): for any other, it is closed without a reset or a look."""
    names = getattr(nextitem, "fixturenames", ()) if nextitem is not None else ()
    new_only = nextitem is not None and nextitem.get_closest_marker("new_window") is not None
    window_reuse.pool.next_uses_window = "window" in names and not new_only
    window_reuse.pool.next_uses_steps = "steps" in names


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A window whose test failed is not used again: it may be anything."""
    report = yield
    if report.failed:
        item.window_failed = True
    return report


@pytest.fixture
def window(qtbot, monkeypatch, wait_settled, request):
    """The main window on the default example, shown, with its first picture drawn.

    The window of the test before where, reset, it is as a new one would be (see
    tests/ui/window_reuse.py), else a new one. A window that is not kept is closed at
    teardown, its edits counting as saved, so closing does not ask about them.
    """
    pool = window_reuse.pool
    uses_steps = "steps" in request.fixturenames
    new_only = request.node.get_closest_marker("new_window") is not None
    # Patched before the window is taken: a kept one is not taken, a new one is built so.
    pool.clean = window_reuse.only_harmless_patches(monkeypatch)
    win = pool.take(monkeypatch, new_only, uses_steps)
    if win is None:
        configure_pyqtgraph()
        win = MainWindow()
        win.resize(*window_reset.SIZE)
        with qtbot.waitSignal(win.firstPicture, timeout=30_000):
            win.show()
        pool.remember_new(win)

    def reset(w, new):
        window_reset.reset(w, new, settled, wait_settled)

    if uses_steps:
        pool.step_through(win, lambda w: show_steps(w, qtbot), reset)
    yield win
    pool.give_back(win, getattr(request.node, "window_failed", False), monkeypatch, reset)


def show_steps(win, qtbot) -> None:
    win.tabs.setCurrentWidget(win.stepper)
    qtbot.waitUntil(win.stepper.isVisible)


@pytest.fixture
def steps(window, qtbot):
    """The window on its step-through tab. The `window` fixture shows it as soon as the
    window is there, before any other fixture a test names (one that loads an example):
    a window kept between tests that use the step-through is checked with it shown (see
    window_reuse.WindowPool)."""
    show_steps(window, qtbot)
    return window.stepper


@pytest.fixture
def stepped_window(window, steps, qtbot):
    """The window back on its Matrices tab after the `steps` fixture showed the step-through
    on it, for a test that goes to the step-through itself or has a stage drawn while it is
    hidden (a session opened at a stage, an example that starts at one). Such a test leaves
    its window with a stage drawn and panels built, which a new window has not: the window
    was not kept, and the next test built one (0.6-1.1 s of CPU). A window the step-through
    was shown on is kept for the next test that uses it (see window_reuse.WindowPool), and
    draws its stage anew when shown, from the trace it then has. Named after `window`."""
    window.tabs.setCurrentIndex(0)
    qtbot.waitUntil(window.board.isVisible)
    return window


def settled(win) -> bool:
    """The window shows the trace of the document's current config, with nothing pending:
    its status bar too, which is written once the matrices are on screen."""
    return (
        win.trace is not None
        and not win.bridge.busy
        and not win.problems
        and win.trace.config == win.doc.config()
        and not win.status_line.waiting
    )


@pytest.fixture
def wait_settled(qtbot):
    def wait(win, timeout: int = 30_000) -> None:
        qtbot.waitUntil(lambda: settled(win), timeout=timeout)

    return wait


def assert_shows(win) -> None:
    """Every live heatmap shows exactly what compute() gives for the document's config."""
    expected = compute(win.doc.config())
    head = win.board.head
    for key, view in win.board.views.items():
        shown = view.plot.shown
        want = expected.matrix(shown.name, head)
        np.testing.assert_array_equal(
            view.plot.matrix, want.astype(view.plot.matrix.dtype), err_msg=key
        )
    assert win.board.views["weights"].plot.shown.name in ("weights", "weights_dropped")


def example_lesson(name: str) -> str:
    """The lesson line the window writes under the matrices and the stage for example `name`."""
    words = example_text(name)
    return f"Example: {words.title} — {words.source}"
