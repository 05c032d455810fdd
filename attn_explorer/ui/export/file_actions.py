"""The File menu: sessions (new, open, recent, save), and export of figures, data and code.

Every action has a dialog-free method taking a path (`open_path`, `save_to`, `export_figure_to`,
...), which the menu calls after asking and the tests call directly. Errors are shown in a
dialog and leave the document as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TR_NOOP, QObject, QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox
from shiboken6 import isValid

from attn_explorer.engine import STEP_KEYS, Trace
from attn_explorer.io import atomic, code_export, data_export
from attn_explorer.io.errors import cannot_write, missing_folder, shown_path
from attn_explorer.io.session import SessionError, load_session, save_session
from attn_explorer.model.state import default_state
from attn_explorer.ui.export.dialogs import ExportFigureDialog
from attn_explorer.ui.export.figures import (
    FigureSpec,
    FigureTooSmallError,
    export_all_stages,
    export_figure,
)
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.keys import commit_typed_edits

if TYPE_CHECKING:
    from attn_explorer.ui.main_window import MainWindow

MAX_RECENT = 8
SESSION_FILTER = QT_TR_NOOP("attn_explorer sessions (*.json)")
DATA_FILTERS = {
    "npz": QT_TR_NOOP("NumPy archive, all arrays (*.npz)"),
    "json": QT_TR_NOOP("JSON, all arrays (*.json)"),
    "csv": QT_TR_NOOP("CSV, one file per matrix in a folder (*.csv)"),
    "npy": QT_TR_NOOP("NumPy, one file per array in a folder (*.npy)"),
}


class FileActions(QObject):
    """Owns the File menu and the window's file, its title and unsaved-changes guard."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.path: Path | None = None
        self.menu = window.menuBar().addMenu(_tr("&File"))
        self.recent_menu = QMenu(_tr("Open &Recent"), window)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._add(_tr("&New"), QKeySequence.StandardKey.New, self.new)
        self._add(_tr("&Open…"), QKeySequence.StandardKey.Open, self.open)
        self.menu.addMenu(self.recent_menu)
        self._add(_tr("&Save"), QKeySequence.StandardKey.Save, self.save)
        self._add(_tr("Save &As…"), QKeySequence("Ctrl+Shift+S"), self.save_as)
        self.menu.addSeparator()
        self._add(_tr("Export &Figure…"), QKeySequence("Ctrl+E"), self.export_figure)
        self._add(_tr("Export All S&tages…"), QKeySequence("Ctrl+Shift+E"), self.export_stages)
        self._add(_tr("Export &Data…"), None, self.export_data)
        self._add(_tr("Export &PyTorch Script…"), None, self.export_script)
        self.menu.addSeparator()
        window.doc.undo_stack.cleanChanged.connect(self.update_title)
        self.update_title()

    def _add(self, text: str, shortcut: object, slot: object) -> QAction:
        action = QAction(text, self.window)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(slot)
        self.menu.addAction(action)
        return action

    # ------------------------------------------------------------------ title and guard
    def update_title(self) -> None:
        if not isValid(self.window):
            return  # the undo stack clears itself while the window is being destroyed
        name = shown_path(self.path.name) if self.path else _tr("Untitled")
        self.window.setWindowTitle(f"{name}[*] — attn_explorer")
        self.window.setWindowModified(not self.window.doc.undo_stack.isClean())

    def confirm_discard(self) -> bool:
        """True when there is nothing unsaved, or the user saved or chose to discard it."""
        commit_typed_edits(self.window)
        if self.window.doc.undo_stack.isClean():
            return True
        answer = QMessageBox.question(
            self.window,
            _tr("Unsaved changes"),
            _tr("Save the changes to {0} first?").format(
                shown_path(self.path.name) if self.path else _tr("this session")
            ),
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        return answer == QMessageBox.StandardButton.Discard

    def _error(self, title: str, message: str) -> None:
        self.window._status(message, error=True)
        QMessageBox.critical(self.window, title, message)

    # ------------------------------------------------------------------ sessions
    def new(self) -> None:
        if self.confirm_discard():
            self.window.doc.reset(default_state())
            self.window.apply_view(self.window.doc.view)
            self.path = None
            self.update_title()

    def open(self) -> None:
        if not self.confirm_discard():
            return
        chosen, _ = QFileDialog.getOpenFileName(
            self.window, _tr("Open session"), str(self._directory()), _tr(SESSION_FILTER)
        )
        if chosen:
            self.open_path(Path(chosen))

    def open_path(self, path: Path) -> bool:
        """Open a session; on any problem say what and keep the current session untouched."""
        try:
            with self._busy():  # a session of 4,096 × 1,024 takes seconds to read
                state = load_session(path)
        except SessionError as error:
            self._error(_tr("Cannot open session"), str(error))
            return False
        self.window.doc.reset(state)
        self.window.apply_view(state.view)
        self.path = Path(path)
        self._remember(self.path)
        self.update_title()
        self.window.notify(_tr("Opened {0}").format(shown_path(self.path)))
        return True

    def adopt(self, path: Path, *, changed: bool, remember: bool = True) -> None:
        """The window's document came from the session at `path` (opened from the command
        line): Save writes back to it, the title names it, and `changed` (a --set applied
        on top) counts as unsaved."""
        self.path = Path(path)
        if remember:
            self._remember(self.path)
        if changed:
            self.window.doc.undo_stack.resetClean()
        self.update_title()

    def save(self) -> bool:
        if self.path is None:
            return self.save_as()
        return self.save_to(self.path)

    def save_as(self) -> bool:
        start = self.path or self._directory() / "attention-session.json"
        chosen, _ = QFileDialog.getSaveFileName(
            self.window, _tr("Save session"), str(start), _tr(SESSION_FILTER)
        )
        if not chosen:
            return False
        path = Path(chosen)
        if path.suffix.lower() != ".json":
            # "Lesson 3.1" was saved as it was typed, and the Open dialog, which shows *.json,
            # never showed it again.
            path = path.with_name(path.name + ".json")
            # The dialog asked about replacing the name typed, not this one.
            if path.exists() and not self._confirm_replace(path, _tr("Replace session?")):
                return False
        return self.save_to(path)

    def _confirm_replace(self, path: Path, title: str) -> bool:
        answer = QMessageBox.question(
            self.window,
            title,
            _tr("{0} already exists. Replace it?").format(shown_path(path.name)),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def save_to(self, path: Path) -> bool:
        commit_typed_edits(self.window)
        try:
            save_session(path, self.window.current_state())
        except SessionError as error:  # its message already says "Cannot save …"
            self._error(_tr("Cannot save session"), str(error))
            return False
        self.path = Path(path)
        self.window.doc.undo_stack.setClean()
        self._remember(self.path)
        self.update_title()
        self.window.notify(_tr("Saved {0}").format(shown_path(self.path)))
        return True

    # ------------------------------------------------------------------ recent files
    def recent_files(self) -> list[Path]:
        value = QSettings().value("recentFiles", [])
        if isinstance(value, str):
            value = [value]
        return [Path(p) for p in (value or [])]

    def _remember(self, path: Path) -> None:
        """Put `path` first in Open Recent. A name whose bytes are not UTF-8 is left out:
        the settings keep text, which drops such bytes, and "s\\xff.json" came back as
        s.json, another file, which Open Recent then opened."""
        resolved = str(path.resolve())
        try:
            resolved.encode("utf-8")
        except UnicodeEncodeError:
            return
        recent = [resolved] + [str(p) for p in self.recent_files() if str(p) != resolved]
        QSettings().setValue("recentFiles", recent[:MAX_RECENT])

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for index, path in enumerate(files, start=1):
            label = f"&{index} {shown_path(path.name)}  —  {shown_path(path.parent)}"
            action = self.recent_menu.addAction(label)
            action.setEnabled(path.exists())
            action.triggered.connect(lambda _=False, p=path: self._open_recent(p))
        if not files:
            self.recent_menu.addAction(_tr("No recent sessions")).setEnabled(False)
        else:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction(_tr("Clear list"), lambda: QSettings().remove("recentFiles"))

    def _open_recent(self, path: Path) -> None:
        if self.confirm_discard():
            self.open_path(path)

    def _directory(self) -> Path:
        if self.path is not None:
            return self.path.parent
        recent = self.recent_files()
        return recent[0].parent if recent else Path.home()

    def _stem(self) -> str:
        return self.path.stem if self.path else "attention"

    # ------------------------------------------------------------------ export
    def export_figure(self) -> None:
        spec, what = self.window.current_figure()
        self._export_dialog(spec, what, all_stages=False)

    def export_stages(self) -> None:
        spec, _ = self.window.current_figure()
        stage_spec = FigureSpec("stage", "embeddings", spec.head or 0, spec.query)
        self._export_dialog(stage_spec, _tr("All ten stages of the step-through"), True)

    def _export_dialog(self, spec: FigureSpec, what: str, all_stages: bool) -> None:
        trace = self.window.trace
        if trace is None:
            self._error(_tr("Nothing to export"), _tr("No picture has been computed yet."))
            return
        stem = self._stem() + ("-stages" if all_stages else f"-{spec.name or spec.kind}")

        def write(path: Path, fmt: str, scale: int, size: tuple[int, int]) -> str | None:
            if all_stages:
                return self._write_stages(path, fmt, scale, size)
            return self._write_figure(path, spec, fmt, scale, size)

        dialog = ExportFigureDialog(
            what,
            spec.default_size(trace),
            self._directory(),
            stem,
            all_stages,
            self.window.devicePixelRatioF(),
            self.window,
            write=write,  # a refused size or folder is said in the dialog, which stays open
        )
        dialog.exec()

    def export_figure_to(
        self,
        path: Path,
        spec: FigureSpec,
        fmt: str | None = None,
        scale: int = 1,
        size: tuple[int, int] | None = None,
    ) -> bool:
        problem = self._write_figure(path, spec, fmt, scale, size)
        if problem is not None:
            self._error(_tr("Cannot export figure"), problem)
        return problem is None

    def _write_figure(
        self,
        path: Path,
        spec: FigureSpec,
        fmt: str | None,
        scale: int,
        size: tuple[int, int] | None,
    ) -> str | None:
        problem = self._missing_folder(path)
        if problem is not None:
            return problem
        try:
            with self._busy():
                written = export_figure(self.window.trace, spec, path, fmt, scale, size)
        except (OSError, ValueError) as error:  # FigureError is one; so is a NUL in a name
            return _sentence(error, path)
        self.window.notify(_tr("Exported {0}").format(shown_path(written)))
        return None

    def export_stages_to(
        self, path: Path, fmt: str = "pdf", scale: int = 1, size: tuple[int, int] | None = None
    ) -> bool:
        problem = self._write_stages(path, fmt, scale, size)
        if problem is not None:
            self._error(_tr("Cannot export the stages"), problem)
        return problem is None

    def _write_stages(
        self, path: Path, fmt: str, scale: int, size: tuple[int, int] | None
    ) -> str | None:
        spec, _ = self.window.current_figure()
        problem = self._missing_folder(path)  # for PNG or SVG, the folder of the stages
        if problem is not None:
            return problem
        try:
            with self._busy(block=True):  # ten figures: seconds at 4× PNG
                written = export_all_stages(
                    self.window.trace, path, fmt, spec.head or 0, spec.query, scale, size
                )
        except (OSError, ValueError) as error:  # FigureError is one; so is a NUL in a name
            return _sentence(error, path)
        where = written[0] if fmt == "pdf" else Path(path)
        self.window.notify(
            _tr("Exported {0} stages to {1}").format(len(STEP_KEYS), shown_path(where))
        )
        return None

    @contextmanager
    def _busy(self, block: bool = False) -> Iterator[None]:
        """A wait cursor while an export paints on this thread; with `block`, the window takes
        no input meanwhile (laying figures out runs the event loop, and an edit then would
        change the settings under the export)."""
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        if block:
            self.window.setEnabled(False)
        try:
            yield
        finally:
            if block:
                self.window.setEnabled(True)
            QApplication.restoreOverrideCursor()

    def _stale(self, title: str) -> bool:
        """Data and a script claim to be the computation of the settings: unless the picture
        is of the current settings, say why instead of writing older ones."""
        window = self.window
        if window.trace is not None and window.trace.config == window.doc.config():
            return False
        reason = window.problems[0].message if window.problems else window.stale_reason
        if reason is None:
            text = _tr("The current settings are still being computed: export in a moment.")
        else:
            text = _tr(
                "The current settings cannot be computed: {0}\n\nThe matrices on screen are "
                "for the last settings that could be. Change the setting marked in red, or "
                "undo (Ctrl+Z), then export."
            ).format(reason)
        QMessageBox.critical(window, title, text)  # the status bar already names the problem
        return True

    def export_data(self) -> None:
        if self.window.trace is None or self._stale(_tr("Cannot export data")):
            return
        filters = ";;".join(_tr(f) for f in DATA_FILTERS.values())
        chosen = self._ask_where(
            _tr("Export data"),
            self._directory() / f"{self._stem()}-data.npz",
            filters,
            _tr("Cannot export data"),
        )
        if chosen is None:
            return
        path, chosen_filter = chosen
        # The typed name's extension decides, as for figures: "lesson.json" under the NPZ
        # filter was written as a zip archive named .json.
        fmt = path.suffix.lower().lstrip(".")
        if fmt not in DATA_FILTERS:
            fmt = next(k for k, f in DATA_FILTERS.items() if _tr(f) == chosen_filter)
        if fmt in ("csv", "npy"):
            path = data_export.folder_for(path, fmt)
        elif self._may_add_extension(fmt, path):
            path = data_export.file_for(path, fmt)
        else:
            return
        self.export_data_to(path, fmt)

    def _may_add_extension(self, fmt: str, path: Path) -> bool:
        """Whether to write `path` under its format's extension: "lesson" typed under the NPZ
        filter was written as an archive named lesson, which nothing opens on a double click
        (the command line writes lesson.npz). The file dialog asked about replacing the name
        typed, not this one: it is asked here."""
        named = data_export.file_for(path, fmt)
        return (
            named == path
            or not named.exists()
            or self._confirm_replace(named, _tr("Replace file?"))
        )

    def _ask_where(
        self, title: str, start: Path, filters: str, failure: str
    ) -> tuple[Path, str] | None:
        """The path and the filter chosen in a save dialog, asked again (with the same name
        and filter) while the chosen folder does not exist; None if the dialog is cancelled.

        The data writers made every missing folder on the way ("lessons/week 3/x.csv" typed
        in the dialog scattered new folders), where the command line refuses a missing
        folder. The refusal names it, and the dialog comes back with the name and type that
        were chosen, in the nearest folder that exists.
        """
        selected = ""
        while True:
            chosen, selected = QFileDialog.getSaveFileName(
                self.window, title, str(start), filters, selected
            )
            if not chosen:
                return None
            path = Path(chosen)
            problem = self._missing_folder(path)  # a CSV folder's parent is the file's
            if problem is None:
                return path, selected
            self._error(failure, problem)
            start = _nearest_folder(path.parent) / path.name

    @staticmethod
    def _missing_folder(path: Path) -> str | None:
        """Why `path` cannot be written because of its folder, in the window's language."""
        return missing_folder(
            path,
            missing=_tr("Cannot write {0}: the folder {1} does not exist."),
            not_a_folder=_tr("Cannot write {0}: {1} is a file, not a folder."),
        )

    def export_data_to(self, path: Path, fmt: str) -> bool:
        if self._stale(_tr("Cannot export data")):
            return False
        problem = self._missing_folder(path)  # for CSV and NPY, the folder filled
        if problem is not None:
            self._error(_tr("Cannot export data"), problem)
            return False
        trace = self.window.trace
        writers = {
            "npz": data_export.write_npz,
            "json": data_export.write_json,
            "csv": data_export.write_csv,
            "npy": data_export.write_npy,
        }
        try:
            with self._busy():
                writers[fmt](self._complete(trace), Path(path))
        except OSError as error:
            self._error(_tr("Cannot export data"), _cannot_write(error, path))
            return False
        except ValueError as error:
            self._error(_tr("Cannot export data"), str(error))
            return False
        self.window.notify(_tr("Exported every array to {0}").format(shown_path(path)))
        return True

    @staticmethod
    def _complete(trace: Trace) -> Trace:
        """The trace with both masking methods, as the command line's export writes it.

        Above a million weights the live window skips the comparison it does not show; an
        export of "every array" must not depend on the size.
        """
        if trace.config.has_mask and "weights_neg_inf" not in trace.arrays:
            from attn_explorer.engine import (
                compute,  # torch: never on the window's path to the screen
            )

            return compute(trace.config)
        return trace

    def export_script(self) -> None:
        if self.window.trace is None or self._stale(_tr("Cannot export script")):
            return
        chosen = self._ask_where(
            _tr("Export PyTorch script"),
            self._directory() / f"{self._stem()}.py",
            _tr("Python script (*.py)"),
            _tr("Cannot export script"),
        )
        if chosen is not None and self._may_add_extension("py", chosen[0]):
            self.export_script_to(data_export.file_for(chosen[0], "py"))

    def export_script_to(self, path: Path) -> bool:
        if self._stale(_tr("Cannot export script")):
            return False
        problem = self._missing_folder(path)
        if problem is not None:
            self._error(_tr("Cannot export script"), problem)
            return False
        try:
            atomic.write_text(path, code_export.pytorch_script(self.window.trace.config))
        except OSError as error:
            self._error(_tr("Cannot export script"), _cannot_write(error, path))
            return False
        self.window.notify(
            _tr("Wrote {0}: run it with python to print the same numbers").format(shown_path(path))
        )
        return True


def _sentence(error: Exception, path: Path) -> str:
    """A figure export's refusal as a sentence in the window's language."""
    if isinstance(error, OSError):
        return _cannot_write(error, path)
    if isinstance(error, FigureTooSmallError):
        text = (
            _tr("The stages need at least {0}×{1} px to fit, not {2}×{3}: choose a larger size.")
            if error.stages
            else _tr(
                "This figure needs at least {0}×{1} px to fit, not {2}×{3}: choose a larger size."
            )
        )
        return text.format(*error.needed, *error.size)
    text = str(error)  # the figure code's other refusals (English, as the engine's texts)
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def _nearest_folder(path: Path) -> Path:
    """`path` or its nearest ancestor that is a folder: where a save dialog can open."""
    for folder in (path, *path.parents):
        if folder.is_dir():
            return folder
    return Path.home()


def _cannot_write(error: OSError, path: Path) -> str:
    return cannot_write(
        error,
        path,
        sentence=_tr("Cannot write {0}: {1}."),
        in_the_way=_tr("a file of that name is in the way"),
        lower=False,
    )
