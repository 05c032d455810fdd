"""A closed window is freed: nothing pending in the event loop keeps it, its matrix views or
its trace alive."""

import gc
import weakref

from PySide6.QtCore import QCoreApplication, QEvent
from PySide6.QtWidgets import QApplication

from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.main_window import MainWindow


def close_and_free(window: MainWindow) -> None:
    window.doc.undo_stack.setClean()
    window.close()
    window.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def test_closed_windows_are_freed(qapp, qtbot):
    configure_pyqtgraph()
    boards = []
    for _ in range(3):
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
    assert alive == 0, f"{alive} of 3 closed windows stayed alive"
