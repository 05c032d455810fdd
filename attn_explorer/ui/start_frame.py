"""The whole window as a picture, on screen before the window's pieces are imported.

Up to a window's first paint, a start spent 1,480 M instructions: Qt's modules 460 M (the
floor of any PySide6 window), numpy and the engine 290 M, the window's own modules with Qt's
namespace of 94 enums 370 M, building the window 160 M. A plain start (`attn-explorer`, with
at most `--lang` and `--report-startup`) now shows the main window itself first, holding the
picture of the whole window saved at an earlier start, and only then imports and builds its
pieces (`MainWindow(first=...)`, ui/window_parts.py): the same window object, so nothing on
screen is replaced. Once they are built the picture goes, in the same event-loop turn, and
the window paints itself with the same pixels.

A picture is used only under its exact key: everything a start reads that changes the
window's pixels: the command line; the user's settings file whole (language, text size, the
window's place); the package's files (names, sizes, times: its code, catalogues, shipped
traces); the environment that picks the language, the platform, the style or the scale; the
screens; the style and the application's font. It is saved from the window in the turn
after a start's first paint, when that paint showed the matrices' saved picture
(ui/start_picture.py), the window was neither full screen nor minimized, and no widget under
the pointer may be drawn hovered; it is used only while that picture of the matrices is still
kept, so that the window's own first paint after it shows the same pixels
(tests/ui/test_start_frame.py). A maximized window (the default window does not fit a
1024 × 768 projector) is kept with its state and its normal size, and shown maximized again
by `showMaximized` (an enum of Qt's namespace would build all 94 of them, 126 M
instructions); once built, a window whose state or geometry is not the picture's removes it.
Input that arrives while the picture is shown waits until the window is built (the events
are not read before); it then goes the way input before the views goes (`StartPicture`: the
views are built first).

Like the matrices' pictures, these go to the user's cache folder, written atomically, the
oldest removed beyond `KEEP`, as their pixels behind a header (`read_pixels`, shared with
ui/start_picture.py). This module imports only Qt's core classes: nothing that costs before
the first paint.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QByteArray,
    QEvent,
    QEventLoop,
    QObject,
    QPoint,
    QSettings,
    QStandardPaths,
    QTimer,
)
from PySide6.QtGui import QImage, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

from attn_explorer import __version__

KEEP = 8
SUFFIX = ".window"
PAGE_SUFFIX = ".pixels"  # the matrices' pictures' (ui/start_picture.py), named by their key
WAIT_MS = 2000  # for the window's first paint, at the most (a window manager that is slow to map)
_MAGIC = b"attn_explorer window 2\n"  # 2: the window's state and normal size
GEOMETRY_SETTING = "window/geometry"  # ui/window_layout.py's (which imports Qt's namespace)
_PACKAGE = Path(__file__).resolve().parent.parent
# The switches of a plain start; with any other argument the window is built first.
_PLAIN = ("--report-startup",)
_ENVIRONMENT = (
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_MESSAGES",
    "DESKTOP_SESSION",
    "XDG_CURRENT_DESKTOP",
    "QT_QPA_PLATFORM",
    "QT_QPA_PLATFORMTHEME",
    "QT_STYLE_OVERRIDE",
    "QT_SCALE_FACTOR",
    "QT_SCREEN_SCALE_FACTORS",
    "QT_ENABLE_HIGHDPI_SCALING",
    "QT_SCALE_FACTOR_ROUNDING_POLICY",
    "QT_FONT_DPI",
    "ATTN_EXPLORER_TRACE_CACHE",
)


def plain(argv: list[str]) -> bool:
    """Whether `argv` is a plain start: nothing but `--lang CODE` and `--report-startup`."""
    rest = list(argv)
    while rest:
        word = rest.pop(0)
        if word == "--lang" and rest:
            rest.pop(0)
        elif not (word in _PLAIN or word.startswith("--lang=")):
            return False
    return True


def language(argv: list[str]) -> str | None:
    """The `--lang` of a plain start's `argv`, if it names a language the window speaks."""
    from attn_explorer.text.i18n import LANGUAGES

    code = None
    for index, word in enumerate(argv):
        if word == "--lang" and index + 1 < len(argv):
            code = argv[index + 1]
        elif word.startswith("--lang="):
            code = word.split("=", 1)[1]
    return code if code in LANGUAGES else None


def folder() -> Path:
    """Beside the kept traces and the matrices' pictures in the user's cache folder."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    return Path(base) / "windows"


def key(argv: list[str], app: QApplication) -> str:
    """Everything a start reads that changes the window's pixels (see the module's text)."""
    try:
        settings = Path(QSettings().fileName()).read_bytes()
    except OSError:
        settings = b""
    screens = [
        (s.name(), s.geometry().getRect(), s.availableGeometry().getRect(), s.devicePixelRatio())
        for s in app.screens()
    ]
    fields = [
        __version__,
        list(argv),
        hashlib.sha256(settings).hexdigest(),
        _package_files(),
        {name: os.environ.get(name) for name in _ENVIRONMENT},
        app.platformName(),
        [(name, list(rect), list(room), repr(ratio)) for name, rect, room, ratio in screens],
        app.style().name(),
        app.font().toString(),
    ]
    return hashlib.sha256(json.dumps(fields).encode()).hexdigest()


def _package_files() -> str:
    """The package's files by name, size and time: a changed file is another window."""
    digest = hashlib.sha256()
    for root, folders, files in os.walk(_PACKAGE):
        folders[:] = sorted(f for f in folders if f != "__pycache__")
        for name in sorted(files):
            try:
                stat = os.stat(os.path.join(root, name))
            except OSError:
                continue
            digest.update(f"{root}/{name} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def path_for(key: str) -> Path:
    return folder() / (key[:32] + SUFFIX)


class Frame:
    """A kept picture of the window: its pixels and where the window stood."""

    def __init__(self, image: QImage, head: dict[str, Any]) -> None:
        self.image = image
        self.title = str(head["title"])
        self.geometry = tuple(int(head[k]) for k in ("x", "y", "width", "height"))
        self.ratio = float(head["ratio"])
        self.maximized = bool(head["maximized"])
        self.normal = (int(head["normal_width"]), int(head["normal_height"]))
        self.path: Path | None = None


def load(key: str) -> Frame | None:
    """The picture kept under `key`, while the matrices' picture it shows is kept too."""
    found = read_pixels(path_for(key), _MAGIC, key)
    if found is None:
        return None
    image, head = found
    try:
        frame = Frame(image, head)
        page = folder().parent / "pictures" / str(head["page"])
    except (KeyError, TypeError, ValueError):
        return None
    if not page.is_file():
        return None
    if image.width() != round(frame.geometry[2] * frame.ratio):
        return None
    image.setDevicePixelRatio(frame.ratio)
    frame.path = path_for(key)
    return frame


class _Cover(QWidget):
    def __init__(self, parent: QWidget, image: QImage) -> None:
        super().__init__(parent)
        self.pixmap = QPixmap.fromImage(image)

    def paintEvent(self, event: object) -> None:
        QPainter(self).drawPixmap(QPoint(0, 0), self.pixmap)


class _Shown(QObject):
    """Until the window is built: notes its first paint, and keeps its own handlers (which
    need its pieces) from its show, paint and state-change events (a picture's window is
    maximized or not; its layout follows only full screen, which a picture never is)."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.painting: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Paint:
            if self.painting is None:
                self.painting = time.time()
            return True  # the cover paints the whole window
        return kind in (QEvent.Type.Show, QEvent.Type.WindowStateChange)


def show(window: Any, frame: Frame) -> None:
    """Show `window` (a MainWindow not built yet) with the picture, and return once its first
    paint is on screen. Input is left unread until then (and so until the window is built)."""
    x, y, width, height = frame.geometry
    window.setWindowTitle(frame.title)
    window.start_frame_shown = frame
    window.start_frame_cover = _Cover(window, frame.image)
    window.start_frame_cover.setGeometry(0, 0, width, height)
    shown = _Shown(window)
    window.installEventFilter(shown)
    if frame.maximized:
        # Placed before it is shown as `place_on_screen` would place it: where the user left
        # it (the settings are in the key), else its normal size, maximized. Once shown, a
        # maximized window is not placed again (Qt's offscreen platform, and a window manager
        # may, would resize it to its normal geometry: other pixels).
        saved = QSettings().value(GEOMETRY_SETTING)
        if not (isinstance(saved, QByteArray) and window.restoreGeometry(saved)):
            window.resize(*frame.normal)
        window.showMaximized()
    else:
        window.setGeometry(x, y, width, height)
        window.show()
    app = QApplication.instance()
    flags = (
        QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents
        | QEventLoop.ProcessEventsFlag.WaitForMoreEvents
    )
    QTimer.singleShot(WAIT_MS, window, lambda: None)  # wakes the wait below at the latest
    deadline = time.monotonic() + WAIT_MS / 1000
    while shown.painting is None and time.monotonic() < deadline:
        app.processEvents(flags)
    window.removeEventFilter(shown)
    # What --report-startup says (ui/startup_report.py): the first paint began, and its pass
    # was over (the pixels flushed) when `processEvents` returned.
    if shown.painting is not None:
        window.start_frame_times = (shown.painting, time.time(), time.process_time())


def uncover(window: Any) -> None:
    """The window is built: its widgets shown and laid out now (Qt shows children added to a
    shown window in a later turn), the picture taken away, and the window goes on as one
    shown with its pieces: input before the views builds them first, the controls are
    measured in their fonts, the first widget takes the keyboard."""
    QApplication.sendPostedEvents()
    frame = window.start_frame_shown
    del window.start_frame_shown
    if frame.path is not None and _place(window) != (frame.maximized, frame.geometry):
        # Placed otherwise than when it was kept (a window manager's choice): not again.
        frame.path.unlink(missing_ok=True)
    cover = window.start_frame_cover
    cover.hide()
    cover.deleteLater()
    del window.start_frame_cover
    app = QApplication.instance()
    if not window.views_built:
        app.installEventFilter(window.start_picture)
    QTimer.singleShot(0, window, window.window_layout.fit_controls)  # as `showEvent` does
    if window.isActiveWindow() and window.focusWidget() is None:
        window.focusNextChild()


def keep_when_painted(window: Any, key: str) -> None:
    """Save the window's picture under `key` once its first paint is done, if it showed the
    matrices' saved picture and nothing has reached the window."""
    if path_for(key).exists() or not window.start_picture.enabled:
        return
    _Keeper(window, key)


def _hover_free(window: Any) -> bool:
    """Whether no widget under the pointer may be drawn as hovered: a widget the style draws
    so (Qt's `WA_Hover`), or the menu bar. (Qt's offscreen platform has no pointer.)"""
    if QApplication.platformName() == "offscreen":
        return True
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QCursor
    from PySide6.QtWidgets import QMenuBar

    widget = QApplication.widgetAt(QCursor.pos())
    while widget is not None and widget is not window:
        if widget.testAttribute(Qt.WidgetAttribute.WA_Hover) or isinstance(widget, QMenuBar):
            return False
        widget = widget.parentWidget()
    return True


def _place(window: Any) -> tuple[bool, tuple[int, int, int, int]]:
    """Whether the window is maximized, and its geometry (no enum of Qt's namespace)."""
    return window.isMaximized(), tuple(window.geometry().getRect())


class _Keeper(QObject):
    def __init__(self, window: Any, key: str) -> None:
        super().__init__(window)
        self.window, self.key = window, key
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.window.removeEventFilter(self)
            page = self.window.start_picture.shown_key
            if self.window.start_picture.showing and page:
                # Before the views are built, in the turn after this paint (`paintEvent`).
                QTimer.singleShot(0, self.window, lambda: self._keep(page))
        return False

    def _keep(self, page: str) -> None:
        window = self.window
        if window.views_built or not window.start_picture.showing:
            return
        if not _hover_free(window):
            return
        if window.isFullScreen() or window.isMinimized():
            return
        maximized, (x, y, width, height) = _place(window)
        normal = window.normalGeometry()
        head = {
            "title": window.windowTitle(),
            "x": x,
            "y": y,
            "width": width,
            "height": height,
            "maximized": maximized,
            "normal_width": normal.width(),
            "normal_height": normal.height(),
            "ratio": window.devicePixelRatioF(),
            "page": page[:32] + PAGE_SUFFIX,
        }
        target = path_for(self.key)
        if write_pixels(target, _MAGIC, self.key, window.grab().toImage(), head):
            prune(target.parent, target, SUFFIX)


# ---------------------------------------------------------------------- the pictures' files
_FORMATS = {  # the pixel formats a window's grab comes in: 4 bytes a pixel
    int(QImage.Format.Format_RGB32.value),
    int(QImage.Format.Format_ARGB32.value),
    int(QImage.Format.Format_ARGB32_Premultiplied.value),
}


def read_pixels(
    path: Path, magic: bytes, key: str | None = None
) -> tuple[QImage, dict[str, Any]] | None:
    """The picture kept at `path` and its header, if its first line is `magic` (and its key
    `key`, if given); None where there is none, or it is another's, damaged or cut short.

    A picture is its first line, a line of JSON (its key, so that a renamed file is not
    trusted, and its pixels' layout), then its pixels, uncompressed: decoding a PNG cost 80 M
    instructions while the learner waits, copying the pixels 1 M."""
    try:
        with open(path, "rb") as file:
            if file.read(len(magic)) != magic:
                return None
            head = json.loads(file.readline(1000))
            width, height, line, kind = (int(head[k]) for k in ("w", "h", "line", "format"))
            if (key is not None and head.get("key") != key) or kind not in _FORMATS:
                return None
            # Pixels are kept in the machine's byte order; a row is 4 bytes a pixel, padded
            # to at most 64 more (a damaged header must not ask for gigabytes).
            if head.get("order") != sys.byteorder:
                return None
            if not (0 < width <= 32768 and 0 < height <= 32768):
                return None
            if not 4 * width <= line <= 4 * width + 64:
                return None
            pixels = file.read(line * height + 1)
    except (OSError, ValueError, KeyError, TypeError, OverflowError, AttributeError):
        return None
    if len(pixels) != line * height:
        return None
    # A copy owns its pixels; the QImage over `pixels` only borrows them.
    return QImage(pixels, width, height, line, QImage.Format(kind)).copy(), head


def write_pixels(
    target: Path, magic: bytes, key: str, image: QImage, extra: dict[str, Any] | None = None
) -> bool:
    """Keep `image` at `target` under `key` (and `extra` in its header); whether it was
    written (a read-only or full cache: it is not, and nothing else happens)."""
    from attn_explorer.io import atomic

    if int(image.format().value) not in _FORMATS:
        image = image.convertToFormat(QImage.Format.Format_RGB32)
    head = {
        **(extra or {}),
        "key": key,
        "w": image.width(),
        "h": image.height(),
        "line": image.bytesPerLine(),
        "format": int(image.format().value),
        "order": sys.byteorder,
    }
    data = magic + json.dumps(head).encode() + b"\n" + bytes(image.constBits())
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic.write_bytes(target, data)
    except OSError:
        return False
    return True


def prune(folder: Path, keep: Path, suffix: str) -> None:
    """Remove all but the `KEEP` newest pictures in `folder` (never `keep`), and PNGs (an
    earlier version's pictures)."""
    try:
        kept = sorted(folder.glob("*" + suffix), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEEP:] + list(folder.glob("*.png")):
            if old != keep:
                os.unlink(old)
    except OSError:
        return
