"""A window shown before its views: the matrices' area holds the picture saved when the same
settings were last drawn at the same size, only under its exact key, and the views replace it
with the same pixels."""

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QRect, Qt
from PySide6.QtGui import QColor, QImage, QKeyEvent, QMouseEvent, QPaintEvent
from PySide6.QtWidgets import QApplication, QToolButton

from attn_explorer.io import trace_cache
from attn_explorer.model.state import default_state
from attn_explorer.text import i18n
from attn_explorer.ui import restore, start_picture
from attn_explorer.ui.main_window import MainWindow
from attn_explorer.ui.text_size import text_size


@pytest.fixture
def pictures(tmp_path, monkeypatch, normal_size):
    """Pictures and traces kept in folders of the test's own."""
    monkeypatch.setenv(trace_cache.SWITCH, "on")
    monkeypatch.setattr(restore, "cache_folder", lambda: tmp_path / "traces")
    monkeypatch.setattr(start_picture, "picture_folder", lambda: tmp_path / "pictures")
    return tmp_path / "pictures"


class FirstPaint(QObject):
    """What the window showed in its first paint: the saved picture, and whether the views
    were built."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.seen: dict | None = None
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.seen is None:
            self.seen = {
                "picture": self.window.start_picture.showing,
                "views": self.window.views_built,
                "mark": self.window.time_text.full_text(),
            }
        return False


def started(qtbot, state=None, size=(1500, 940)) -> tuple[MainWindow, FirstPaint]:
    """A window shown before its views, as `attn-explorer` starts it, once first painted."""
    window = MainWindow(state or default_state(), views_later=True)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(*size)
    first = FirstPaint(window)
    window.show()
    qtbot.waitUntil(lambda: first.seen is not None)
    return window, first


def page_key(window: MainWindow) -> str:
    page = window.tabs.currentWidget()
    settings = start_picture.settings_key(window)
    return start_picture.picture_key(settings, page.size(), page.devicePixelRatioF())


def keep_a_picture(qtbot, state=None, size=(1500, 940)) -> QImage:
    """Start once and keep a plain picture under the key of that start's page."""
    window, _first = started(qtbot, state, size)
    page = window.tabs.currentWidget()
    image = QImage(page.size() * page.devicePixelRatioF(), QImage.Format.Format_RGB32)
    image.fill(QColor("#3366aa"))
    assert start_picture.save(page_key(window), image) is not None
    qtbot.waitUntil(lambda: window.views_built)
    window.close()
    return image


def on_screen(window: MainWindow) -> QImage:
    """The window as drawn, where its tabs' page is."""
    page = window.tabs.currentWidget()
    scale = window.devicePixelRatioF()
    corner = page.mapTo(window, QPoint(0, 0)) * scale
    return window.grab().toImage().copy(QRect(corner, page.size() * scale))


def same_pixels(a: QImage, b: QImage) -> bool:
    rgb = QImage.Format.Format_RGB32
    return a.convertToFormat(rgb) == b.convertToFormat(rgb)


@pytest.mark.parametrize("size", [(1500, 940), (1024, 768)])
def test_the_saved_picture_is_drawn_first_and_the_views_take_its_place_with_the_same_pixels(
    pictures, qtbot, size
):
    # The first start: no picture yet; once the engine's picture is drawn, it is saved.
    window, first = started(qtbot, size=size)
    assert first.seen == {"picture": False, "views": False, "mark": ""}
    qtbot.waitUntil(lambda: window.views_built)
    with qtbot.waitSignal(window.firstPicture, timeout=60_000):
        pass
    qtbot.waitUntil(lambda: any(pictures.glob("*" + start_picture.SUFFIX)))
    saved = start_picture.read(next(pictures.glob("*" + start_picture.SUFFIX)))
    window.close()

    # The next start draws it before its views are built, marked as restored; held there
    # (the views are built in the turn after the first paint), the window shows the saved
    # pixels where the page is, and once the views have taken the picture's place, the same.
    window = MainWindow(default_state(), views_later=True)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(*size)
    first = FirstPaint(window)
    window.build_views = lambda: None  # held before its views
    window.show()
    qtbot.waitUntil(lambda: first.seen is not None)
    assert first.seen == {"picture": True, "views": False, "mark": "restored"}
    before = on_screen(window)
    del window.build_views
    window.build_views()
    qtbot.waitUntil(lambda: window.start_picture.cover is None)
    assert window.trace.config == window.doc.config()  # kept, or computed since
    assert same_pixels(before, saved)
    assert same_pixels(on_screen(window), saved)


def test_only_a_picture_under_the_exact_key_is_shown(pictures, qtbot, vietnamese):
    keep_a_picture(qtbot)
    _window, first = started(qtbot)
    assert first.seen["picture"] and first.seen["mark"] == "đã khôi phục"


@pytest.mark.parametrize("change", ["seed", "size", "language", "text size"])
def test_a_picture_of_other_settings_is_not_shown(pictures, qtbot, change):
    keep_a_picture(qtbot)
    state, size = default_state(), (1500, 940)
    if change == "seed":
        state = state.with_controls(seed=124)
    elif change == "size":
        size = (1400, 940)
    elif change == "language":
        i18n.set_language("vi")
    else:
        text_size.larger()
        text_size.remember()  # as the window starts at the size chosen last time
    try:
        _window, first = started(qtbot, state, size)
    finally:
        i18n.set_language("en")
    assert first.seen["picture"] is False
    assert first.seen["mark"] != "restored"


def test_the_picture_goes_when_the_settings_change_before_the_views(pictures, qtbot):
    keep_a_picture(qtbot)
    window = MainWindow(default_state(), views_later=True)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1500, 940)
    first = FirstPaint(window)
    window.show()
    qtbot.waitUntil(lambda: first.seen is not None)
    assert window.start_picture.showing or window.views_built
    window.doc.set_control("seed", 999)
    assert not window.start_picture.showing


def test_input_before_the_views_builds_them_first(pictures, qtbot):
    window = MainWindow(default_state(), views_later=True)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    assert not window.views_built
    press = QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    QApplication.sendEvent(window.controls, press)
    assert window.views_built
    assert window.tabs.widget(0) is window.board
    assert [a.text() for a in window.menuBar().actions()].count("&Compare") == 1


def test_a_click_on_any_widget_after_the_first_paint_builds_the_views_first(pictures, qtbot):
    # Until its first paint only the window itself is watched (a key the controls leave goes
    # up to it, as above); from then on a press that a button takes for itself is seen too.
    window = MainWindow(default_state(), views_later=True)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    button = window.editor.findChild(QToolButton)
    QApplication.sendEvent(window, QPaintEvent(window.rect()))  # as the window's first paint
    assert not window.views_built
    inside = QPoint(2, 2)
    press = QMouseEvent(
        QEvent.Type.MouseButtonPress,
        inside,
        button.mapToGlobal(inside),
        Qt.MouseButton.LeftButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(button, press)
    assert window.views_built
    assert window.tabs.widget(0) is window.board


def test_a_cache_folder_that_cannot_be_written_keeps_nothing_and_breaks_nothing(
    tmp_path, monkeypatch, qtbot, normal_size
):
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")
    monkeypatch.setenv(trace_cache.SWITCH, "on")
    monkeypatch.setattr(restore, "cache_folder", lambda: blocked / "traces")
    monkeypatch.setattr(start_picture, "picture_folder", lambda: blocked / "pictures")
    image = QImage(20, 10, QImage.Format.Format_RGB32)
    assert start_picture.save("0" * 64, image) is None
    window, first = started(qtbot)
    assert first.seen["picture"] is False
    qtbot.waitUntil(lambda: window.views_built)
    with qtbot.waitSignal(window.firstPicture, timeout=60_000):
        pass
    window.start_picture.keep()  # what the first picture asks for: nothing can be written
    assert blocked.read_text() == "not a folder"
    assert not Path(blocked.parent / "pictures").exists()


def test_no_picture_is_saved_of_settings_edited_since_the_start(pictures, qtbot):
    """The next start opens on the settings it is started with: a picture of the edited ones
    would be under their key, never asked for, and one under the start's key would be wrong."""
    window, _first = started(qtbot)
    qtbot.waitUntil(lambda: window.views_built)
    window.doc.set_control("seed", 5)
    with qtbot.waitSignal(window.start_picture.considered, timeout=60_000):
        pass
    assert window.trace.config.seed == 5
    assert not list(pictures.glob("*" + start_picture.SUFFIX))


def test_a_kept_picture_reads_back_pixel_for_pixel_and_only_whole_and_under_its_key(pictures, qapp):
    image = QImage(37, 23, QImage.Format.Format_RGB32)
    for y in range(23):
        for x in range(37):
            image.setPixelColor(x, y, QColor(7 * x % 256, 11 * y % 256, (x * y) % 256))
    key = "1" * 64
    path = start_picture.save(key, image)
    assert path is not None and path.suffix == start_picture.SUFFIX
    assert start_picture.read(path, key) == image
    scale = 1.0
    pixmap = start_picture.load(key, image.size(), scale)
    assert pixmap is not None and pixmap.toImage().convertToFormat(image.format()) == image
    assert start_picture.read(path, "2" * 64) is None  # a renamed file is not trusted
    assert start_picture.load(key, image.size() * 2, scale) is None  # another size
    whole = path.read_bytes()
    path.write_bytes(whole[:-1])  # cut short
    assert start_picture.read(path, key) is None
    path.write_bytes(b"\x89PNG" + whole[4:])  # not a kept picture
    assert start_picture.read(path, key) is None
    magic, head, pixels = whole.split(b"\n", 2)
    header = json.loads(head)
    for damaged in (
        {"line": 10**12},  # would ask for terabytes
        {"line": 1e300},
        {"w": float("inf")},
        {"order": "big" if sys.byteorder == "little" else "little"},  # another machine's
    ):
        path.write_bytes(b"\n".join([magic, json.dumps(header | damaged).encode(), pixels]))
        assert start_picture.read(path, key) is None, damaged
    path.write_bytes(whole)
    assert start_picture.read(path, key) == image
