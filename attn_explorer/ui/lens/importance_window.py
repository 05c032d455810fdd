"""Head importance beside the model view: every head of the real model switched off alone, and
how much its prediction changes (`attn_explorer.lens.importance`), as a layer × head grid and
sorted bars, saved as data (CSV, JSON) or as a figure.

The measurement is layers × heads forward passes (batched a layer at a time), seconds for a
GPT-2 small, so it runs in a thread of its own with a progress bar and a Cancel button; closing
the window or the model view cancels it and waits for it to end.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, QThread, Signal
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.lens.errors import LensError
from attn_explorer.lens.importance import (
    Importance,
    describe,
    headline,
    importance,
    to_csv,
    to_json,
)
from attn_explorer.ui.i18n import tr as _tr

# The model view (ui/lens/model_window.py), not imported: it imports this module.
ModelView = Any


class ImportanceJob(QThread):
    """`importance(loaded, text)` in a thread: `progressed(done, total)`, then `ended(result,
    message)` with the result, or None and the reason (cancelled, text too long)."""

    progressed = Signal(int, int)
    ended = Signal(object, object)

    def __init__(self, loaded: Any, text: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.loaded, self.text = loaded, text
        self.stop_asked = threading.Event()

    def run(self) -> None:
        try:
            result = importance(
                self.loaded, self.text, self.progressed.emit, self.stop_asked.is_set
            )
        except LensError as error:
            self.ended.emit(None, str(error))
        else:
            self.ended.emit(result, None)


class ImportanceWindow(QWidget):
    """The measurement's progress, then its grid, bars and words, and the buttons to save."""

    def __init__(self, view: ModelView) -> None:
        super().__init__(view, Qt.WindowType.Window)
        self.view = view
        self.result: Importance | None = None
        self.job: ImportanceJob | None = None
        self.setWindowTitle(_tr("Head importance: {model}").format(model=view.loaded.name))
        layout = QVBoxLayout(self)
        self.words = QLabel()
        self.words.setWordWrap(True)
        self.words.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.words)
        row = QHBoxLayout()
        self.progress = QProgressBar()
        self.cancel = QPushButton(_tr("Cancel"))
        self.cancel.clicked.connect(self.stop)
        self.again = QPushButton(_tr("&Measure Again"))
        self.again.setToolTip(_tr("Measure the heads on the model view's sentence as it is now"))
        self.again.clicked.connect(self.measure)
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel)
        row.addWidget(self.again)
        layout.addLayout(row)
        self.plot = pg.GraphicsLayoutWidget()
        self.plot.setBackground("w")
        self.grid_plot = self.plot.addPlot(0, 0)
        self.bars_plot = self.plot.addPlot(0, 1)
        layout.addWidget(self.plot, 1)
        self.best = QLabel()
        self.best.setWordWrap(True)
        layout.addWidget(self.best)
        buttons = QHBoxLayout()
        self.save_data = QPushButton(_tr("Save &Data…"))
        self.save_data.clicked.connect(self._ask_data)
        self.save_figure = QPushButton(_tr("Save &Figure…"))
        self.save_figure.clicked.connect(self._ask_figure)
        buttons.addWidget(self.save_data)
        buttons.addWidget(self.save_figure)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.resize(900, 560)
        # Quitting with a measurement under way: joined, not destroyed while it runs.
        QApplication.instance().aboutToQuit.connect(self.stop)

    # ------------------------------------------------------------------ measuring
    def measure(self) -> None:
        """Measure every head on the model view's sentence, in a thread."""
        self.stop()
        text = self.view.text.text()
        self.words.setText(
            _tr(
                "Switching each of {count} heads off in turn and running {model} again on “{text}”…"
            ).format(
                count=self.view.loaded.layers * self.view.loaded.heads,
                model=self.view.loaded.name,
                text=text,
            )
        )
        self.progress.setRange(0, self.view.loaded.layers * self.view.loaded.heads)
        self.progress.setValue(0)
        self._busy(True)
        self.job = ImportanceJob(self.view.loaded, text, self)
        self.job.progressed.connect(lambda done, _total: self.progress.setValue(done))
        self.job.ended.connect(self._ended)
        self.job.start()

    def _busy(self, busy: bool) -> None:
        self.cancel.setEnabled(busy)
        self.again.setEnabled(not busy)
        self.save_data.setEnabled(not busy and self.result is not None)
        self.save_figure.setEnabled(not busy and self.result is not None)

    def _ended(self, result: Importance | None, message: str | None) -> None:
        if self.job is not None:
            self.job.wait()
            self.job.deleteLater()
            self.job = None
        if result is None:
            self.words.setText(message or "")
        else:
            self.show_result(result)
        self._busy(False)

    def stop(self) -> None:
        """Cancel a measurement under way and wait for its thread (at most one pass)."""
        job, self.job = self.job, None
        if job is not None:
            job.ended.disconnect(self._ended)
            job.stop_asked.set()
            job.wait()
            job.deleteLater()
            if self.result is None:
                self.words.setText(_tr("Measuring the heads was cancelled."))
            self._busy(False)

    def closeEvent(self, event: object) -> None:
        self.stop()
        super().closeEvent(event)  # type: ignore[arg-type]

    def show_result(self, result: Importance) -> None:
        from attn_explorer.ui.lens.importance_figure import draw_bars, draw_grid

        self.result = result
        draw_grid(self.grid_plot, result)
        draw_bars(self.bars_plot, result)
        self.words.setText(describe(result))
        self.best.setText(headline(result))
        self.progress.setValue(self.progress.maximum())

    # ------------------------------------------------------------------ saving
    def write_data(self, path: str | Path) -> Path:
        """The importance as CSV (a name ending in .csv) or JSON."""
        from attn_explorer.io import atomic

        assert self.result is not None
        path = Path(path)
        as_csv = path.suffix.lower() == ".csv"
        return atomic.write_text(path, to_csv(self.result) if as_csv else to_json(self.result))

    def write_figure(self, path: str | Path) -> Path:
        from attn_explorer.ui.lens.importance_figure import export_importance_figure

        assert self.result is not None
        return export_importance_figure(self.result, path)

    def _ask_data(self) -> None:
        path, _chosen = QFileDialog.getSaveFileName(
            self, _tr("Save Data"), "importance.json", _tr("JSON (*.json);;CSV (*.csv)")
        )
        if path:
            self._save(self.write_data, path)

    def _ask_figure(self) -> None:
        path, _chosen = QFileDialog.getSaveFileName(
            self, _tr("Save Figure"), "importance.png", "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"
        )
        if path:
            self._save(self.write_figure, path)

    def _save(self, write: Any, path: str) -> None:
        from attn_explorer.ui.export.spec import FigureError

        try:
            written = write(path)
        except (OSError, FigureError) as error:
            QMessageBox.warning(self, _tr("Cannot save"), str(error))
            return
        self.view.lab.notify(_tr("Saved {path}").format(path=written))


def importance_button(view: ModelView) -> QPushButton:
    """The model view's button that opens (or raises) its importance window and measures."""
    button = QPushButton(_tr("Head &Importance…"))
    button.setToolTip(
        _tr("Switch each head off alone and measure how much the model's prediction changes")
    )
    button.clicked.connect(lambda: open_importance(view))
    return button


def open_importance(view: ModelView) -> ImportanceWindow:
    window = getattr(view, "importance_window", None)
    if window is None:
        window = view.importance_window = ImportanceWindow(view)
    window.show()
    window.raise_()
    window.measure()
    return window


def close_importance(view: ModelView) -> None:
    """With the model view: cancel a measurement and close the window."""
    window = getattr(view, "importance_window", None)
    if window is not None:
        window.close()
