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


def save_when_drawn(app: QApplication, window: MainWindow, path: str) -> int:
    """Run the event loop until the first picture, save `path`, return the exit status."""
    from attn_explorer.ui.export.figures import encoded

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
