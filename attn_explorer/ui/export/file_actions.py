"""The File menu: sessions (new, open, recent, save), and export of figures, data and code
(`ExportActions`, mixed in).

Every action has a dialog-free method taking a path (`open_path`, `save_to`, `export_figure_to`,
...), which the menu calls after asking and the tests call directly. Errors are shown in a
dialog and leave the document as it was. The window is known by what the menu uses of it
(`FileHost`), not by its class, which imports this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QFileDialog, QMenu, QMessageBox
from shiboken6 import isValid

from attn_explorer.io.errors import shown_path
from attn_explorer.io.session import SessionError, load_session, save_session
from attn_explorer.model.state import default_state
from attn_explorer.text.i18n import N_
from attn_explorer.ui.export.export_actions import ExportActions
from attn_explorer.ui.export.export_actions import _sentence as _sentence  # read here by tests
from attn_explorer.ui.export.host import FileHost
from attn_explorer.ui.export.worksheet_actions import WorksheetActions
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.keys import commit_typed_edits

MAX_RECENT = 8
SESSION_FILTER = N_("attn_explorer sessions (*.json)")


class FileActions(ExportActions, WorksheetActions, QObject):
    """Owns the File menu and the window's file, its title and unsaved-changes guard."""

    def __init__(self, window: FileHost) -> None:
        super().__init__(window)
        self.window = window
        self.path: Path | None = None
        self.menu = window.menuBar().addMenu(_tr("&File"))
        self.recent_menu = QMenu(_tr("Open &Recent"), window)
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self._add(N_("&New"), QKeySequence.StandardKey.New, self.new)
        self._add(N_("&Open…"), QKeySequence.StandardKey.Open, self.open)
        self.menu.addMenu(self.recent_menu)
        self._add(N_("&Save"), QKeySequence.StandardKey.Save, self.save)
        self._add(N_("Save &As…"), QKeySequence("Ctrl+Shift+S"), self.save_as)
        self.menu.addSeparator()
        self._add(N_("Export &Figure…"), QKeySequence("Ctrl+E"), self.export_figure)
        self._add(N_("Export All S&tages…"), QKeySequence("Ctrl+Shift+E"), self.export_stages)
        self._add(N_("Export &Data…"), None, self.export_data)
        self._add(N_("Export &PyTorch Script…"), None, self.export_script)
        self._add(N_("Export &Worksheet…"), None, self.export_worksheet)
        self.menu.addSeparator()
        window.doc.undo_stack.cleanChanged.connect(self.update_title)
        self.update_title()

    def _add(self, text: str, shortcut: object, slot: object) -> QAction:
        action = QAction(_tr(text), self.window)
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
            # "Lesson 3.1" saved as typed would never show in the Open dialog, which shows
            # *.json.
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
        the settings keep text, which drops such bytes, and "s\\xff.json" would come back
        as s.json, another file, which Open Recent would then open."""
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

    # ------------------------------------------------------------------ shared with the exports
    def _directory(self) -> Path:
        if self.path is not None:
            return self.path.parent
        recent = self.recent_files()
        return recent[0].parent if recent else Path.home()

    def _stem(self) -> str:
        return self.path.stem if self.path else "attention"

    @contextmanager
    def _busy(self, block: bool = False) -> Iterator[None]:
        """A wait cursor while a session is read or an export paints on this thread; with
        `block`, the window takes no input meanwhile (laying figures out runs the event loop,
        and an edit then would change the settings under the export)."""
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        if block:
            self.window.setEnabled(False)
        try:
            yield
        finally:
            if block:
                self.window.setEnabled(True)
            QApplication.restoreOverrideCursor()
