"""Save the window as a PNG once its first picture is drawn (for the README and for tests)."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from attn_explorer.io import atomic
from attn_explorer.io.errors import cannot_write, shown_path
from attn_explorer.text.problems import problem_text
from attn_explorer.ui.engine_thread import Failure
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.main_window import MainWindow

SETTLE_MS = 400  # let layouts and the first paint finish after the trace is drawn
TIMEOUT_MS = 120_000


def report_startup(app: QApplication, window: MainWindow) -> int:
    """Print when the window was first painted, when the matrices' area was first painted
    with a picture (the saved picture of a window shown before its views, a restored trace,
    or the engine's) and when the first computed picture was drawn (epoch seconds, for
    `python -m benchmarks.bench --startup`), and the process's CPU seconds at the first two
    (less sensitive than wall time to what else the machine runs), then quit."""
    import time

    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QWidget

    def picture() -> str:
        """What the matrices' area shows now: "image", "restored", "computed" or ""."""
        if window.start_picture.showing:
            return "image"
        if not window.views_built or window.trace is None:
            return ""
        return "restored" if window.trace is window.restored.trace else "computed"

    class Paints(QObject):
        """Watches every widget's paint events in the window until the first picture's."""

        shown = False

        def eventFilter(self, obj: object, event: object) -> bool:
            if event.type() != QEvent.Type.Paint or not isinstance(obj, QWidget):
                return False
            if obj.window() is not window:
                return False
            if not self.shown:
                self.shown = True
                print(f"startup.window_shown={time.time()}", flush=True)
                print(f"startup.window_shown_cpu={time.process_time()}", flush=True)
            kind = picture()
            if kind:
                print(f"startup.first_picture={time.time()}", flush=True)
                print(f"startup.first_picture_cpu={time.process_time()}", flush=True)
                print(f"startup.picture={kind}", flush=True)
                print(f"startup.restored={int(kind != 'computed')}", flush=True)
                app.removeEventFilter(self)
            return False

    watcher = Paints()
    app.installEventFilter(watcher)

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


def save_when_drawn(app: QApplication, window: MainWindow, path: str) -> int:
    """Run the event loop until the first picture, save `path`, return the exit status."""
    from attn_explorer.ui.export.figures import encoded  # not before `report_startup`'s paint

    outcome = {"status": 1}

    def save() -> None:
        # Encoded in memory and written beside the file, then renamed: Qt's writer gives no
        # reason when the disk fills, and leaves half a picture in place of the earlier one.
        data = encoded(window.grab().toImage(), Path(path).suffix.lstrip(".").lower())
        if data is None:
            words = _tr("could not encode the screenshot {0}").format(shown_path(path))
            print(f"attn-explorer: {words}", file=sys.stderr)
        else:
            try:
                atomic.write_bytes(path, data)
                outcome["status"] = 0
            except OSError as error:
                print(f"attn-explorer: {cannot_write(error, path)}", file=sys.stderr)
        window.close()
        app.exit(outcome["status"])

    def give_up(failure: Failure | None = None) -> None:
        if failure is not None:
            reason = failure.message  # the engine refused the config (e.g. float32 overflow)
        elif window.problems:
            reason = problem_text(window.problems[0])
        else:
            reason = _tr("no picture was computed")
        words = _tr("no screenshot: {0}").format(reason)
        print(f"attn-explorer: {words}", file=sys.stderr)
        window.close()
        app.exit(1)

    # The timers belong to the window, and go with it: one left behind would end, minutes
    # later, the event loop of whatever the process runs next (the tests run this in theirs).
    window.firstPicture.connect(lambda: QTimer.singleShot(SETTLE_MS, window, save))
    # The window starts its first computation once painted; an impossible one is known then.
    window.problemsShown.connect(give_up)
    window.bridge.failed.connect(give_up)
    QTimer.singleShot(TIMEOUT_MS, window, lambda: give_up())
    app.exec()
    return outcome["status"]
