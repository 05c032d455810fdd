"""The menu bar's Edit, View, Examples and Help menus, and the windows Help opens.

The File menu is `FileActions`'. Each action calls a method of the window: the window decides
what an action does, this module only what the menus hold and which keys reach them.

A dialog's module (Check my numbers, Lessons, Keyboard Shortcuts' list, About's message box)
is imported when the dialog is first opened: the window's first paint needs none of them, and
PySide6 makes a Qt class with its enums where it is first imported
(tests/ui/test_startup.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu, QMenuBar

from attn_explorer.engine import PRESETS
from attn_explorer.text.examples import example_text
from attn_explorer.ui.editing.embedding_editor import table_entry
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.keys import commit_typed_edits
from attn_explorer.ui.language_menu import language_menu
from attn_explorer.ui.shortcut_rows import action_rows, menu_sections, name_for_shortcuts
from attn_explorer.ui.text_size import text_size

if TYPE_CHECKING:
    from attn_explorer.ui.check.dialog import CheckDialog
    from attn_explorer.ui.check.marks import CheckMarks
    from attn_explorer.ui.editing.document import Document
    from attn_explorer.ui.editing.embedding_editor import EmbeddingEditor
    from attn_explorer.ui.lessons_dialog import LessonsDialog
    from attn_explorer.ui.matrices.board import MatrixBoard
    from attn_explorer.ui.shortcuts_dialog import ShortcutsDialog
    from attn_explorer.ui.steps.stepper import StepThrough


class MenuHost(Protocol):
    """What the menus need of the window they are built in: a QMainWindow (the parent of
    their actions and dialogs) with these pieces and these commands."""

    doc: Document
    editor: EmbeddingEditor
    board: MatrixBoard
    stepper: StepThrough

    def menuBar(self) -> QMenuBar: ...
    def close(self) -> bool: ...
    def notify(self, text: str) -> None: ...
    def show_tab(self, index: int) -> None: ...
    def show_controls(self, on: bool) -> None: ...
    def set_full_screen(self, on: bool) -> None: ...
    def load_preset(self, name: str) -> None: ...
    def open_lesson(self, preset: str, stage: str | None) -> None: ...
    def why_scaling_from_menu(self) -> None: ...
    def set_language(self, code: str) -> None: ...

    trace: object
    tabs: object
    traceShown: object
    window_layout: Any
    languageChanged: object


class WindowMenus(QObject):
    """Builds the menus after the File menu (whose `file_menu` gets Quit) and keeps the
    actions whose state the window follows: the text sizes, the controls' column, full
    screen and the √d_k demonstration."""

    def __init__(self, window: MenuHost, file_menu: QMenu) -> None:
        super().__init__(window)
        self.window = window
        self.shortcuts_dialog: ShortcutsDialog | None = None  # built when first opened
        self.lessons_dialog: LessonsDialog | None = None  # built when first opened
        self.check_dialog: CheckDialog | None = None  # built when first opened
        self.check_marks: CheckMarks | None = None  # its verdicts on the matrices
        from attn_explorer.ui.lens.open_model import add_model_actions

        self.model_actions = add_model_actions(window, file_menu)  # type: ignore[arg-type]
        self._quit(file_menu)
        self._edit_menu()
        self._view_menu()
        self._examples_menu()
        self._help_menu()

    def _action(self, text: str, keys: QKeySequence.StandardKey | str | None = None) -> QAction:
        """An action of the window (its parent), with `keys` as its one shortcut."""
        action = QAction(text, self.window)
        if keys is not None:
            action.setShortcut(QKeySequence(keys))
        return action

    def _quit(self, file_menu: QMenu) -> None:
        quit_action = self._action(_tr("&Quit"), QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.window.close)
        file_menu.addAction(quit_action)

    def _edit_menu(self) -> None:
        window = self.window
        edit = window.menuBar().addMenu(_tr("&Edit"))
        # A menu does not take the focus: what is typed in a cell is taken in as the menu opens,
        # as a click elsewhere would. Undo then undoes the typing (it is named); otherwise it
        # would undo the step before, and the typing, going in later, would clear the redo.
        edit.aboutToShow.connect(lambda: commit_typed_edits(window))
        undo = window.doc.undo_stack.createUndoAction(window, _tr("&Undo"))
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = window.doc.undo_stack.createRedoAction(window, _tr("&Redo"))
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        name_for_shortcuts(undo, _tr("Undo the last edit"))
        name_for_shortcuts(redo, _tr("Redo the edit last undone"))
        edit.addAction(undo)
        edit.addAction(redo)
        edit.addSeparator()
        for action in window.editor.actions.values():
            edit.addAction(table_entry(action, window))
        edit.addSeparator()
        check = self._action(_tr("Chec&k my numbers…"), "Ctrl+K")
        check.setStatusTip(_tr("Type or paste numbers computed by hand and see which are right"))
        check.triggered.connect(self.show_check)
        edit.addAction(check)

    def _view_menu(self) -> None:
        # The board is looked up when an action runs: a window may be shown before its
        # views are built (`MainWindow.build_views`), which then calls `follow_board`.
        window = self.window
        view = window.menuBar().addMenu(_tr("&View"))
        self.view_menu = view
        for index, label in enumerate((_tr("&Matrices"), _tr("&Step through"))):
            action = self._action(label, f"Ctrl+{index + 1}")
            action.triggered.connect(lambda _=False, i=index: window.show_tab(i))
            view.addAction(action)
        view.addSeparator()
        grid = self._action(_tr("All heads side by side"), "Ctrl+G")
        grid.setCheckable(True)
        grid.toggled.connect(lambda on: window.board.show_all_heads(on))
        self.grid_action = grid
        view.addAction(grid)
        prev_head = self._action(_tr("Previous head"), "Ctrl+[")
        prev_head.triggered.connect(lambda: window.board.set_head(window.board.shown_head - 1))
        next_head = self._action(_tr("Next head"), "Ctrl+]")
        next_head.triggered.connect(lambda: window.board.set_head(window.board.shown_head + 1))
        view.addActions([prev_head, next_head])
        view.addSeparator()
        for label, keys, change in (
            (_tr("&Larger text"), ("Ctrl++", "Ctrl+="), text_size.larger),
            (_tr("Smalle&r text"), ("Ctrl+-",), text_size.smaller),
            (_tr("&Normal text size"), ("Ctrl+0",), text_size.reset),
        ):
            action = self._action(label)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setStatusTip(_tr("Text size of the whole window, for a projector"))
            action.triggered.connect(lambda _=False, c=change: self._change_text_size(c))
            view.addAction(action)
        self.text_size_actions = view.actions()[-3:]
        view.addSeparator()
        # A projector at 1024 × 768 leaves the matrices too narrow for their values: the
        # presenter gives them the whole width while showing, and back to edit.
        self.controls_action = self._action(_tr("&Controls and Embeddings"), "F9")
        self.controls_action.setCheckable(True)
        self.controls_action.setChecked(True)
        self.controls_action.setStatusTip(_tr("Show or hide the left column, for room to present"))
        self.controls_action.toggled.connect(window.show_controls)
        self.full_screen_action = self._action(
            _tr("&Full Screen"), QKeySequence.StandardKey.FullScreen
        )
        self.full_screen_action.setCheckable(True)
        self.full_screen_action.toggled.connect(window.set_full_screen)
        view.addActions([self.controls_action, self.full_screen_action])

    def _examples_menu(self) -> None:
        window = self.window
        examples = window.menuBar().addMenu(_tr("E&xamples"))
        for name in PRESETS:
            words = example_text(name)
            action = self._action(words.title)
            action.setStatusTip(words.source)
            action.triggered.connect(lambda _=False, n=name: window.load_preset(n))
            examples.addAction(action)
        examples.addSeparator()
        # Also where the softmax panel is left out for lack of height (its button with it).
        self.why_scaling_action = self._action(_tr("Why √d_k? A demonstration"))
        self.why_scaling_action.setStatusTip(
            _tr("Wide heads without √d_k: watch softmax saturate, then tick “Divide by √d_k”")
        )
        self.why_scaling_action.triggered.connect(window.why_scaling_from_menu)
        examples.addAction(self.why_scaling_action)

    def _help_menu(self) -> None:
        help_menu = self.window.menuBar().addMenu(_tr("&Help"))
        lessons = self._action(_tr("&Lessons…"), "Ctrl+L")
        lessons.setStatusTip(_tr("The tutorials' sections, their numbers, and their examples"))
        lessons.triggered.connect(self.show_lessons)
        help_menu.addAction(lessons)
        keys = self._action(_tr("&Keyboard Shortcuts"), QKeySequence.StandardKey.HelpContents)
        keys.triggered.connect(self.show_shortcuts)
        help_menu.addAction(keys)
        about = self._action(_tr("&About attn_explorer"))
        about.triggered.connect(self._about)
        help_menu.addAction(about)

    def follow_board(self) -> None:
        """The grid's check mark follows the board's button (called once the board is built)."""
        self.window.board.all_heads.toggled.connect(self.grid_action.setChecked)

    def follow_controls(self, shown: bool) -> None:
        """The controls' column was shown or hidden (F9, or a splitter dragged shut)."""
        if self.controls_action.isChecked() != shown:
            self.controls_action.setChecked(shown)

    def follow_full_screen(self, full: bool) -> None:
        """The window went full screen or back (F11, or the window manager)."""
        if self.full_screen_action.isChecked() != full:
            self.full_screen_action.blockSignals(True)
            self.full_screen_action.setChecked(full)
            self.full_screen_action.blockSignals(False)

    def _change_text_size(self, change: Callable[[], None]) -> None:
        change()
        text_size.remember()
        self.window.notify(_tr("Text size {0:.0%}").format(text_size.factor))

    def show_shortcuts(self) -> ShortcutsDialog:
        """The keys of the menus, the step-through and the tables, in a window beside this one
        (not modal: the keys can be tried while it is open)."""
        from attn_explorer.ui.heatmap import MatrixView  # pyqtgraph's: not before the views
        from attn_explorer.ui.shortcuts_dialog import ShortcutsDialog

        window = self.window
        if self.shortcuts_dialog is None:
            sections = menu_sections(window.menuBar().actions())
            sections.append(
                (
                    _tr("Step-through tab (while it has focus)"),
                    action_rows(window.stepper.key_actions),
                )
            )
            sections.append((_tr("Embedding table (while it has focus)"), window.editor.key_rows()))
            sections.append((_tr("A matrix (while it has focus)"), MatrixView.key_rows()))
            self.shortcuts_dialog = ShortcutsDialog(sections, window)
        self.shortcuts_dialog.show()
        self.shortcuts_dialog.raise_()
        self.shortcuts_dialog.activateWindow()
        return self.shortcuts_dialog

    def show_lessons(self) -> LessonsDialog:
        """The tutorials' sections, beside the window (not modal); one opens its example in
        the window, on the stage it is about."""
        if self.lessons_dialog is None:
            from attn_explorer.ui.lessons_dialog import LessonsDialog

            self.lessons_dialog = LessonsDialog(self.window)
            self.lessons_dialog.lessonChosen.connect(self.window.open_lesson)
        self.lessons_dialog.show()
        self.lessons_dialog.raise_()
        self.lessons_dialog.activateWindow()
        return self.lessons_dialog

    def show_check(self) -> CheckDialog:
        """Check my numbers, beside the window (not modal), on the trace it shows and the
        array the learner looks at; while open
        it follows the window's computation and language, its verdicts drawn on the
        matrices. The connections are the dialog's and the marks' own: they go with them."""
        from attn_explorer.engine.check import CHECKABLE
        from attn_explorer.ui.check.dialog import CheckDialog
        from attn_explorer.ui.check.marks import CheckMarks

        window = self.window
        if self.check_dialog is None:
            dialog = CheckDialog(window.trace, window.board.shown_head, window)
            marks = CheckMarks(window.board, window.stepper)
            dialog.checked.connect(marks.show)
            dialog.finished.connect(marks.take_away)
            window.traceShown.connect(dialog.follow)
            window.languageChanged.connect(dialog.follow_language)
            self.check_dialog, self.check_marks = dialog, marks
        else:
            self.check_dialog.set_trace(window.trace, window.board.shown_head)
        # On what the learner is looking at: the array of the matrix that has the keyboard,
        # else the array the step-through's stage computes.
        focused = QApplication.focusWidget()
        for view in window.board.views.values():
            if focused is view and view.plot.shown is not None:
                self.check_dialog.choose_array(view.plot.shown.name)
                break
        else:
            if window.trace is not None and window.tabs.currentWidget() is window.stepper:
                writes = window.trace.step(window.stepper.stage).writes
                for name in (n for n in writes if n in CHECKABLE):
                    self.check_dialog.choose_array(name)
                    break
        self.check_dialog.show()
        self.check_marks.show(self.check_dialog.result)
        self.check_dialog.raise_()
        self.check_dialog.activateWindow()
        return self.check_dialog

    def _about(self) -> None:
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.about(
            self.window,
            _tr("About attn_explorer"),
            _tr(
                "<h3>attn_explorer</h3><p>A lab for the attention mechanism of transformers: "
                "edit the embeddings, move the sliders, and watch every matrix recompute.</p>"
                "<p>Indices count from 1, like x<sup>(2)</sup> in the tutorials. Hover over a "
                "cell to see how it is computed; click it to follow its query.</p>"
            ),
        )


def build_menus(window: MenuHost) -> None:
    """The menu bar, File first, and as the window's attributes the pieces it follows: `files`
    (File), `menus` (the others), the text sizes', controls', full screen's, the √d_k
    demonstration's and the languages' actions. Built again, with the window's views, when
    the language changes."""
    from attn_explorer.ui.export.file_actions import FileActions

    window.files = FileActions(window)  # type: ignore[arg-type]
    window.menus = menus = WindowMenus(window, window.files.menu)
    window.text_size_actions = menus.text_size_actions
    window.controls_action = menus.controls_action
    window.full_screen_action = menus.full_screen_action
    window.why_scaling_action = menus.why_scaling_action
    window.language_actions = language_menu(window, menus.view_menu, window.set_language)
    window.window_layout.controlsShown.connect(menus.follow_controls)
    window.window_layout.fullScreenChanged.connect(menus.follow_full_screen)
