"""The window's first picture before torch has loaded: the last trace drawn for this config.

torch takes 1.2–2 s to import on two cores, and the engine can compute nothing before it. A
window opened on a configuration it has computed before (or on an example, whose first trace
ships in the package) draws the kept arrays at once, numpy only, with "restored" where the
engine's time goes in the status bar. When the engine has computed the configuration, its
trace is drawn in the same way as every other: the same numbers, so nothing on the matrices
moves, and the status bar shows the engine's time instead of the mark.

Every trace the window computes and shows is kept (`io/trace_cache.py`) once the edits pause
for `SAVE_DELAY_MS`, and when the window closes. A picture is kept and restored only under
its config's exact key, so a restored picture is always one the configuration gives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QObject, QStandardPaths, QTimer

from attn_explorer.engine import Trace
from attn_explorer.io import shipped_traces, trace_cache
from attn_explorer.text.summaries import config_summary, shapes_summary
from attn_explorer.ui.i18n import tr as _tr

SAVE_DELAY_MS = 1500  # a trace shown this long without a newer one is kept


def cache_folder() -> Path:
    """The user's cache folder for this application (XDG_CACHE_HOME on Linux), `traces/`."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.CacheLocation)
    return Path(base) / "traces"


class RestoredPicture(QObject):
    """Draws the kept trace of the window's config at once, and keeps what the window draws."""

    def __init__(self, window: Any) -> None:
        """`window`: the MainWindow (not imported here: it imports this module)."""
        super().__init__(window)
        self.window = window
        self.folder = cache_folder()
        self.trace: Trace | None = None  # the restored trace, while it is on screen
        self._to_keep: Trace | None = None
        self._kept_key: str | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.keep_now)
        window.traceShown.connect(self._computed)
        window.languageChanged.connect(self._mark)
        window.installEventFilter(self)

    def restore(self) -> bool:
        """Draw the kept trace of the document's config, if there is one; say if it was."""
        window = self.window
        if not trace_cache.enabled() or window.trace is not None:
            return False
        config = window.doc.config()
        if config.problems():
            return False
        trace = trace_cache.load(self.folder, config) or shipped_traces.load(config)
        if trace is None:
            return False
        self.trace = trace
        self._kept_key = trace_cache.key(config)  # no need to write it back
        window.trace = trace
        window.board.set_trace(trace)
        window.stepper.set_trace(trace, config_summary(config))
        window.status_line.show_shapes(shapes_summary(trace))
        self._mark()
        return True

    def _mark(self, _language: str = "") -> None:
        if self.trace is None or self.window.trace is not self.trace:
            return
        self.show_mark()

    def show_mark(self) -> None:
        """Say in the status bar that the picture is restored (also the saved picture of the
        matrices' area, `start_picture.py`, shown before the views are built)."""
        self.window.status_line.time_text.setText(_tr("restored"))
        self.window.status_line.show_summary(
            _tr(
                "Restored: the numbers kept when these settings were last computed. Starting "
                "the engine (loading PyTorch)…"
            )
        )

    def _computed(self, trace: Trace) -> None:
        """A computed trace is on screen: the mark goes, and the trace is kept soon."""
        if not trace_cache.enabled():
            return
        self.trace = None
        self._to_keep = trace
        self._timer.start()

    def keep_now(self) -> None:
        """Write the last computed trace shown, unless it is kept already."""
        trace, self._to_keep = self._to_keep, None
        self._timer.stop()
        if trace is None or not trace_cache.enabled():
            return
        name = trace_cache.key(trace.config)
        if name == self._kept_key:
            return
        try:
            trace_cache.save(self.folder, trace)
        except OSError:
            return  # a full disk or a read-only cache: the next start computes, as before
        self._kept_key = name

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.Close:
            self.keep_now()
        return False
