"""A closed window is freed: nothing pending in the event loop keeps it, its matrix views or
its trace alive. Nor does the garbage collector's freeze of startup's objects
(ui/engine_thread.py): each test makes its first window's first result freeze them, as the
first window of a process does, whichever tests ran before."""

import gc
import weakref

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

from attn_explorer.ui import engine_thread
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.main_window import MainWindow


def close_and_free(window: MainWindow) -> None:
    window.doc.undo_stack.setClean()
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_closed_windows_are_freed(qapp, qtbot, monkeypatch):
    configure_pyqtgraph()
    monkeypatch.setattr(engine_thread, "_startup_frozen", False)
    monkeypatch.setattr(engine_thread, "_spent", False)
    boards = []
    # The first window's first result freezes startup's objects; the second is built and
    # closed after that freeze, as every later window of a process is.
    for _ in range(2):
        window = MainWindow()
        window.resize(1200, 800)
        # Drawn, and past the window's own start-up timers (the engine starts within 1 s).
        with qtbot.waitSignal(window.firstPicture, timeout=30_000):
            window.show()
        qtbot.wait(1100)
        # A resize or a new text size asks for the values' notice on the next turn of the
        # event loop; the window closes before that turn.
        window.board._values_may_change()
        boards.append(weakref.ref(window.board))
        close_and_free(window)
        del window
    QApplication.processEvents()
    gc.collect()
    alive = sum(board() is not None for board in boards)
    assert alive == 0, f"{alive} of 2 closed windows stayed alive"


def test_the_views_a_language_change_replaced_are_freed(qapp, qtbot, monkeypatch):
    """Frozen with startup's objects, the board the Vietnamese one replaced stayed alive."""
    configure_pyqtgraph()
    monkeypatch.setattr(engine_thread, "_startup_frozen", False)
    monkeypatch.setattr(engine_thread, "_spent", False)
    window = MainWindow()
    try:
        with qtbot.waitSignal(window.firstPicture, timeout=30_000):
            window.show()
        qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=5_000)
        english_board = weakref.ref(window.board)
        with qtbot.waitSignal(window.traceShown, timeout=30_000):
            window.set_language("vi")
        assert window.board.isVisible()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        gc.collect()
        assert english_board() is None
    finally:
        window.set_language("en")
        close_and_free(window)
