"""`attn-explorer --report-startup`: when the window reached the screen and when its first
picture was drawn, printed for `python -m benchmarks.bench --startup`.

The window counts as on screen once its first paint has been flushed: the first paint event
of the window starts the pass that paints every widget in it and then copies the pixels to
the screen; the event loop's next turn comes after that copy. Only the window itself is
watched until then, as a plain start watches it (ui/start_picture.py): a filter on the whole
application would make PySide6 create about a hundred Qt classes before the first paint, and
the measure would count work a plain start does not do. This module imports nothing a plain
start does not import before it is painted. A window shown with the picture of the whole
window before it was built (ui/start_frame.py) noted when that first paint began and ended.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

TIMEOUT_MS = 120_000

MainWindow = Any  # ui/main_window.py's, passed in


def report_startup(app: QApplication, window: MainWindow) -> int:
    """Print (epoch seconds) when the window's first paint began and when it was done, when
    the matrices' area was first painted with a picture (the saved picture of a window shown
    before its views, a restored trace, or the engine's) and when the first computed picture
    was drawn, and the process's CPU seconds at the first two (less sensitive than wall time
    to what else the machine runs); then quit."""
    watcher = _Paints(app, window)
    frame = getattr(window, "start_frame_times", None)
    if frame is None:
        window.installEventFilter(watcher)
    else:  # shown with the picture of the whole window before it was built (start_frame.py)
        painting, shown, cpu = frame
        print(f"startup.window_painting={painting}", flush=True)
        print(f"startup.window_shown={shown}", flush=True)
        print(f"startup.window_shown_cpu={cpu}", flush=True)
        watcher.painted = True
        watcher.shown_at = (shown, cpu)
        watcher._first_picture("image")

    def computed() -> None:
        print(f"startup.first_computed={time.time()}", flush=True)

    def done() -> None:
        window.close()
        app.exit(0)

    window.firstPicture.connect(computed)
    # Closed once the first computed picture has been saved for the next start (or not).
    window.start_picture.considered.connect(lambda: QTimer.singleShot(0, window, done))
    QTimer.singleShot(TIMEOUT_MS, window, lambda: app.exit(1))
    return app.exec()


def _picture(window: MainWindow) -> str:
    """What the matrices' area shows now: "image", "restored", "computed" or ""."""
    if window.start_picture.showing:
        return "image"
    if not window.views_built or window.trace is None:
        return ""
    return "restored" if window.trace is window.restored.trace else "computed"


class _Paints(QObject):
    """Watches the window's first paint, then, if it had no picture, every widget's paints
    in the window until the first one with a picture."""

    def __init__(self, app: QApplication, window: MainWindow) -> None:
        super().__init__(window)
        self.app, self.window = app, window
        self.painted = False
        self.pictured = False
        self.shown_at: tuple[float, float] | None = None  # the whole window's picture's

    def eventFilter(self, obj: object, event: object) -> bool:
        if event.type() != QEvent.Type.Paint:
            return False
        if not self.painted:
            self.painted = True
            self.window.removeEventFilter(self)
            print(f"startup.window_painting={time.time()}", flush=True)
            # The saved picture is a widget of the window, painted in the same pass.
            kind = _picture(self.window)
            QTimer.singleShot(0, self, lambda: self._shown(kind))
            return False
        if not isinstance(obj, QWidget) or obj.window() is not self.window:
            return False
        kind = _picture(self.window)
        if kind:
            self._first_picture(kind)
            self.app.removeEventFilter(self)
        return False

    def _shown(self, kind: str) -> None:
        """The first paint's pass is done: the window is on screen."""
        print(f"startup.window_shown={time.time()}", flush=True)
        print(f"startup.window_shown_cpu={time.process_time()}", flush=True)
        if kind:
            self._first_picture(kind)
        else:
            self.app.installEventFilter(self)

    def _first_picture(self, kind: str) -> None:
        if self.pictured:
            return
        self.pictured = True
        at, cpu = self.shown_at or (time.time(), time.process_time())
        print(f"startup.first_picture={at}", flush=True)
        print(f"startup.first_picture_cpu={cpu}", flush=True)
        print(f"startup.picture={kind}", flush=True)
        print(f"startup.restored={int(kind != 'computed')}", flush=True)
