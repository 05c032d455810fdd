"""The window's layout and menus: tooltips and words in the menus, its fit to a projector,
its place on the screen, F9 and F11."""

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QGuiApplication, QKeySequence

from attn_explorer.ui.main_window import MainWindow


def _tip(widget) -> str:
    """The tooltip Qt shows over `widget`: its own, else the nearest ancestor's."""
    while widget is not None and not widget.toolTip():
        widget = widget.parentWidget()
    return widget.toolTip() if widget is not None else ""


@pytest.mark.parametrize("tab", [0, 1])
def test_every_control_says_what_it_does(window, qtbot, tab):
    from PySide6.QtWidgets import QAbstractButton, QAbstractSpinBox, QComboBox, QSlider

    window.tabs.setCurrentIndex(tab)
    qtbot.waitUntil(window.tabs.currentWidget().isVisible)
    silent = [
        f"{type(c).__name__} {getattr(c, 'text', lambda: '')()!r}"
        for kind in (QAbstractButton, QComboBox, QAbstractSpinBox, QSlider)
        for c in window.findChildren(kind)
        if c.isVisible() and c.objectName() != "qt_tableview_cornerbutton" and not _tip(c)
    ]
    assert silent == []


def test_edit_menu_entries_are_words_not_arrows(window):
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    texts = [a.text().split("\t")[0] for a in edit.actions() if not a.isSeparator()]
    assert "Move token up" in texts and "Move token down" in texts
    assert all(len(t.replace("&", "")) > 2 for t in texts), texts
    assert window.editor.actions["move_up"].iconText() == "↑"  # the button stays compact


@pytest.mark.parametrize("name", ["mha", "cross"])
def test_the_window_fits_a_1024_pixel_projector(window, wait_settled, name):
    """The preset box sized to its longest title, the board's boxes to theirs and the status
    labels to the longest shapes made the window at least 1128 px wide: on a 1024 × 768
    projector the weights and the context were off the screen."""
    window.load_preset(name)
    wait_settled(window)
    assert window.minimumSizeHint().width() <= 960  # also 1920 × 1080 at 200 %
    window.resize(960, 700)
    assert window.width() == 960


def test_the_first_window_fits_the_screen_and_later_ones_open_where_it_was_left(qtbot):
    room = QGuiApplication.primaryScreen().availableGeometry()  # 800 × 800 offscreen
    first = MainWindow()
    qtbot.addWidget(first, before_close_func=lambda w: w.doc.undo_stack.setClean())
    first.place_on_screen((1500, 940))  # too big for this screen: the whole screen
    assert first.windowState() & Qt.WindowState.WindowMaximized
    small = MainWindow()
    qtbot.addWidget(small, before_close_func=lambda w: w.doc.undo_stack.setClean())
    QSettings().remove("window/geometry")
    small.place_on_screen((700, 600))
    assert (small.width(), small.height()) == (700, 600)
    assert small.geometry().center() == room.center()
    small.resize(720, 640)
    small.close()
    again = MainWindow()
    qtbot.addWidget(again, before_close_func=lambda w: w.doc.undo_stack.setClean())
    again.place_on_screen((1500, 940))
    assert (again.width(), again.height()) == (720, 640)
    again.close()
    QSettings().remove("window/geometry")


def test_a_window_sized_for_a_screenshot_leaves_the_users_place_alone(window):
    QSettings().setValue("window/geometry", b"kept")
    window.close()
    assert QSettings().value("window/geometry") == b"kept"
    QSettings().remove("window/geometry")


def values_written(view) -> bool:
    """Whether a matrix view writes its values (they fit its cells)."""
    from PySide6.QtCore import QRectF

    cells = view.plot.cells
    cell = cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
    return cells.written(cell) is not None


def test_f9_gives_the_matrices_the_whole_width_to_present(window, wait_settled, qtbot):
    """At 1280 × 720 (a small laptop) the controls' column leaves room for the scores, mask,
    weights and context only, Q, K and V giving way; hiding it shows and writes every matrix."""
    window.resize(1280, 720)
    window.load_preset("wrapper")
    wait_settled(window)
    qtbot.waitUntil(lambda: window.width() == 1280)
    action, splitter = window.controls_action, window.window_layout.splitter
    assert action.shortcut().toString() == "F9" and action.isChecked()
    assert action in window.menuBar().actions()[2].menu().actions()  # View
    views = window.board.views
    assert values_written(views["weights"]) and values_written(views["scores"])
    assert not views["queries"].isVisible()
    action.trigger()
    qtbot.waitUntil(lambda: all(v.isVisible() and values_written(v) for v in views.values()))
    assert not window.controls.isVisible() and not window.editor.isVisible()
    action.trigger()
    qtbot.waitUntil(lambda: window.controls.isVisible() and splitter.sizes()[0] > 300)
    # A width the user gave the column comes back after F9 twice.
    window.resize(1500, 700)
    qtbot.waitUntil(lambda: window.width() == 1500)
    splitter.moveSplitter(600, 1)
    given = splitter.sizes()[0]
    assert given > window.window_layout.side.minimumSizeHint().width() + 100
    action.trigger()
    qtbot.waitUntil(lambda: splitter.sizes()[0] == 0)  # hidden, and laid out so
    action.trigger()
    qtbot.waitUntil(lambda: window.controls.isVisible() and splitter.sizes()[0] == given)
    # Dragged shut by hand: the menu says so, and F9 opens it at its usual width.
    splitter.moveSplitter(0, 1)
    assert not action.isChecked()
    action.trigger()
    qtbot.waitUntil(lambda: window.controls.isVisible() and splitter.sizes()[0] > 300)


def test_f11_shows_the_window_full_screen_and_back(window, qtbot):
    action = window.full_screen_action
    assert action.shortcut().matches(QKeySequence(QKeySequence.StandardKey.FullScreen))
    window.setWindowState(Qt.WindowState.WindowMaximized)
    action.trigger()
    qtbot.waitUntil(lambda: bool(window.windowState() & Qt.WindowState.WindowFullScreen))
    action.trigger()
    qtbot.waitUntil(lambda: window.windowState() == Qt.WindowState.WindowMaximized)
    # Made full screen by the window manager, or restored so from a window closed in full
    # screen: F11 still leaves it, for the state before (F11 only unticked the menu).
    window.setWindowState(Qt.WindowState.WindowMaximized | Qt.WindowState.WindowFullScreen)
    qtbot.waitUntil(action.isChecked)
    action.trigger()
    qtbot.waitUntil(lambda: window.windowState() == Qt.WindowState.WindowMaximized)
    assert not action.isChecked()
    window.setWindowState(Qt.WindowState.WindowNoState)
