"""The main window: controls and embedding editor on the left, live matrices on the right.

Data flow, one way: widgets edit the Document; every change builds an immutable config; a
valid config goes to the engine thread through the bridge; the newest trace comes back and
the board draws it. Invalid configs are explained where they arise and the last good picture
stays on screen.

The window composes its pieces (`menus`, `status_bar`, `window_layout`: the columns and the
window's place) and wires their signals; here are the engine round trip, the examples, the
view a session stores, and the worded pieces built again when the language changes.

What the first picture does not need waits until the window has been painted: the compare
tools, the menus' dialogs, the exports and the model view (tests/ui/test_startup.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent
from PySide6.QtWidgets import QMainWindow, QMenuBar, QStatusBar, QTabWidget, QWidget

from attn_explorer.ui import window_parts

if TYPE_CHECKING:
    from attn_explorer.engine import PRESETS, AttentionConfig, Preset, Problem, Trace
    from attn_explorer.engine.presets import matching_preset
    from attn_explorer.model.state import ExplorerState, ViewState, default_state, scaling_demo
    from attn_explorer.model.views import TABS
    from attn_explorer.text import i18n
    from attn_explorer.text.examples import example_text
    from attn_explorer.text.problems import problem_text
    from attn_explorer.text.summaries import config_summary, shapes_summary
    from attn_explorer.ui import view_state, window_views
    from attn_explorer.ui.compare.tools import CompareTools
    from attn_explorer.ui.editing.controls import ControlsPanel
    from attn_explorer.ui.editing.document import Document
    from attn_explorer.ui.editing.embedding_editor import EmbeddingEditor
    from attn_explorer.ui.engine_thread import EngineBridge, Failure, Result, thaw_startup_objects
    from attn_explorer.ui.export.figures import FigureSpec
    from attn_explorer.ui.export.file_actions import FileActions
    from attn_explorer.ui.i18n import remember_language, use_language
    from attn_explorer.ui.i18n import tr as _tr
    from attn_explorer.ui.keys import commit_typed_edits, send_undo_to_document
    from attn_explorer.ui.matrices.board import MatrixBoard
    from attn_explorer.ui.menus import WindowMenus, build_menus
    from attn_explorer.ui.restore import RestoredPicture
    from attn_explorer.ui.shortcuts_dialog import ShortcutsDialog
    from attn_explorer.ui.stale_banner import StaleBanner
    from attn_explorer.ui.start_picture import StartPicture
    from attn_explorer.ui.status_bar import StatusLine
    from attn_explorer.ui.steps.stepper import StepThrough
    from attn_explorer.ui.text_size import text_size
    from attn_explorer.ui.window_layout import WindowLayout


class MainWindow(QMainWindow):
    """The explorer window. `firstPicture` fires once, when the first trace is drawn."""

    firstPicture = Signal()
    traceShown = Signal(object)  # the Trace now on screen
    problemsShown = Signal()  # the config cannot be computed; the problems are on screen
    languageChanged = Signal(str)  # every word was written again in this language

    def __init__(
        self,
        state: ExplorerState | None = None,
        parent: QWidget | None = None,
        views_later: bool = False,
        first: Callable[[MainWindow], ExplorerState] | None = None,
    ) -> None:
        """`views_later`: show the window before its views, which need pyqtgraph; they are
        built in the turn after its first paint, or before the first input (`build_views`).
        `first(window)`, called before its pieces exist, returns the state (start_frame.py)."""
        super().__init__(parent)
        state = first(self) if first is not None else state
        window_parts.load(globals())
        self.setWindowTitle("attn_explorer")
        text_size.restore()  # before any widget measures its text
        self.doc = Document(state or default_state(), self)
        self.bridge = EngineBridge(self)
        self.trace: Trace | None = None
        self.problems: list[Problem] = []
        self._pictures = 0
        self._latest: Result | None = None
        self._draw_scheduled = False
        self._turn_edited = False  # an edit was sent to the engine in this event-loop turn
        self._recompute_pending = False  # and more edits came after it
        self._example: Preset | None = None
        self._lesson = ""  # the lesson text while the explanation strip shows it
        self.views_built = False
        self.board: MatrixBoard  # the views: built by `_build_views`, or `build_views` later
        self.stepper: StepThrough
        self._build_views(live=not views_later)
        text_size.changed.connect(self._text_size_changed)
        self.doc.changed.connect(self._edited)
        self.bridge.computed.connect(self._result_arrived)
        self.bridge.failed.connect(self._show_failure)
        self.doc.queryFollowed.connect(self._query_followed)
        self.doc.weightsShownChanged.connect(self._weights_shown)
        # The engine, and torch's import (seconds holding the lock), wait for the first paint.
        self._engine_started, self._painted, self._engine_waited_ms = False, False, 0
        QTimer.singleShot(1000, self._engine_later)
        self._status(_tr("Starting the engine (loading PyTorch)…"))
        self.restored = RestoredPicture(self)
        self.start_picture = StartPicture(self)  # the page's picture until the views are drawn
        if views_later:
            self.start_picture.show_saved()
        else:
            window_views.ready(self)

    def _build_views(self, live: bool = True) -> None:
        """Build every piece that shows words: the columns, the tabs, the menus and the status
        bar. Built again, around the same document, when the language changes. Not `live`:
        the tabs' pages are empty until `build_views` (ui/window_views.py)."""
        self.controls = ControlsPanel(self.doc)
        self.editor = EmbeddingEditor(self.doc)
        self.tabs = QTabWidget()
        window_views.pages(self, live)
        self.stale_banner = StaleBanner(self.tabs)  # while the settings cannot be computed
        self.stale_reason: str | None = None  # why the picture is not of the current settings
        self.window_layout = WindowLayout(self, self.controls, self.editor, self.tabs)

        self.status_line = StatusLine(self.statusBar())
        self.status_text = self.status_line.status_text  # the summary, or what is wrong
        self.shape_text = self.status_line.shape_text
        self.time_text = self.status_line.time_text

        self.files: FileActions
        self.menus: WindowMenus
        build_menus(self)  # File first; `files`, `menus` and the actions the window follows
        self._compare: CompareTools | None = None
        if live:
            window_views.wire(self)
        else:
            window_views.hold_compare_menu(self)

    def build_views(self) -> None:
        """Build the views of a window shown without them (ui/window_views.py)."""
        window_views.build(self)

    def set_language(self, code: str) -> None:
        """Speak `code` (View → Language): every word of the window is written again in it,
        at once; the document, its undo history, the file, the followed query, the stage and
        the picture on screen stay as they are. Remembered for the next run."""
        if code == i18n.language():
            return
        self.build_views()
        commit_typed_edits(self)
        self._sync_view()
        old_layout, old_files, old_menus = self.window_layout, self.files, self.menus
        old_actions = [a for a in self.findChildren(QAction) if a.parent() is self]
        thaw_startup_objects()  # or the old views stay alive (ui/engine_thread.py)
        use_language(code)
        remember_language(code)
        # A new menu bar and status bar: the old ones go with their widgets and words.
        self.setMenuBar(QMenuBar())
        self.setStatusBar(QStatusBar())
        self._build_views()  # a new central widget: the old one is deleted by Qt
        self.window_layout.adopt(old_layout)
        self.files.path = old_files.path
        self.files.update_title()
        for old in (*old_actions, old_layout, old_files, old_menus):
            old.deleteLater()
        send_undo_to_document(self)
        self._lesson = ""
        self._show_example(self.doc.config(), again=True)
        self.apply_view(self.doc.view)
        if self.trace is not None:
            self.board.set_trace(self.trace)
            self.stepper.set_trace(self.trace, config_summary(self.trace.config))
            self.status_line.show_shapes(shapes_summary(self.trace))
        self.window_layout.fit_controls()
        if self._engine_started:
            self.recompute()  # the summary, or the problems, in the new words
        else:
            self._status(_tr("Starting the engine (loading PyTorch)…"))
        self.languageChanged.emit(code)

    # ------------------------------------------------------------------ the pieces' commands
    def notify(self, text: str) -> None:
        """Say in the status bar what an action just did, until the next edit (`StatusLine`)."""
        self.status_line.notify(text)

    def _status(self, text: str, error: bool = False) -> None:
        """The settings' summary in the status bar, or (`error`) why they cannot be computed."""
        self.status_line.show_summary(text, error)

    def show_shortcuts(self) -> ShortcutsDialog:
        """Help > Keyboard Shortcuts: the list of keys, beside the window."""
        return self.menus.show_shortcuts()

    def show_controls(self, on: bool) -> None:
        """Show or hide the controls and the embeddings' table (View menu, F9)."""
        self.window_layout.show_controls(on)

    def set_full_screen(self, on: bool) -> None:
        """Full screen, or back to the state before it (View menu, F11)."""
        self.window_layout.set_full_screen(on)

    def place_on_screen(self, size: tuple[int, int]) -> None:
        """Where the user left the window last time, else `size` or the whole screen."""
        self.window_layout.place_on_screen(size)

    def _text_size_changed(self) -> None:
        # Widgets take a new application font from posted events: measure after those.
        QTimer.singleShot(0, self, self._fit_to_text)

    def _fit_to_text(self) -> None:
        self.window_layout.fit_controls()
        self.status_line.size_labels()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.WindowStateChange:
            self.window_layout.state_changed(event)

    def showEvent(self, event: object) -> None:
        super().showEvent(event)
        # Polished at their first show, widgets can widen (group boxes at 150 %): measure again.
        QTimer.singleShot(0, self, self.window_layout.fit_controls)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.confirm_discard():
            event.ignore()
            return
        self.window_layout.remember_place()
        self.bridge.shutdown()
        super().closeEvent(event)

    # ------------------------------------------------------------------ the engine round trip
    def _edited(self) -> None:
        """Recompute at once for the first edit of an event-loop turn, and once more at the
        turn's end if more edits came in it.

        A single move reaches the engine without delay; a burst (a paste, a fast drag, a
        scripted sweep) is checked and sent once per turn instead of once per change, which
        would cost the UI thread more than the engine spends.
        """
        self.status_line.clear_notice()  # the notice was about the state before this edit
        if self._turn_edited:
            self._recompute_pending = True
            return
        self._turn_edited = True
        QTimer.singleShot(0, self._turn_ended)
        if self._engine_started:
            self.recompute()

    def _turn_ended(self) -> None:
        self._turn_edited = False
        if self._recompute_pending:
            self._recompute_pending = False
            if self._engine_started:
                self.recompute()

    def recompute(self) -> None:
        """Send the document's config to the engine, or explain why it cannot be computed."""
        config = self.doc.config()
        self._show_example(config)
        if config.n_q:
            # The view keeps the token the learner chose to follow; while it is removed the
            # last token is shown followed, and undoing the removal follows it again.
            shown = min(self.doc.view.query, config.n_q - 1)
            if shown != self.board.query:
                self._show_query(shown)
        self.problems = config.problems()
        self.controls.show_problems(self.problems)
        self.editor.show_problems(self.problems)
        if self.problems:
            self.bridge.cancel_pending()
            self._status(problem_text(self.problems[0]), error=True)
            self._mark_stale(problem_text(self.problems[0]))
            self.problemsShown.emit()
            return
        self.bridge.request(config, self._wants_comparison(config))

    def paintEvent(self, event: object) -> None:
        super().paintEvent(event)
        if not self._painted:
            self._painted = True
            QTimer.singleShot(0, self._start_engine if self.views_built else self.build_views)

    def _engine_later(self) -> None:  # a method: a timer then holds no closure of the window
        window_views.engine_later(self)

    def _start_engine(self) -> None:
        if not self._engine_started and self.views_built:
            self._engine_started = True
            self.recompute()

    @property
    def compare(self) -> CompareTools:
        """The compare tools (built with the window's views, see `_build_views`)."""
        if self._compare is None:
            from attn_explorer.ui.compare.tools import CompareTools

            self._compare = CompareTools(self)
            if self.trace is not None and self.trace is not self.restored.trace:
                self._compare._trace_shown(self.trace)  # missed: it was shown before them
        return self._compare

    COMPARE_CELLS = 2**20  # compare the masking methods on every move up to this many weights

    def _wants_comparison(self, config: AttentionConfig) -> bool:
        """Both masking methods for small traces, or when the mask stage shows them."""
        if config.attention_cells <= self.COMPARE_CELLS:
            return True
        return self.tabs.currentWidget() is self.stepper and self.stepper.stage == "mask"

    def _stage_chosen(self, key: str) -> None:
        self.doc.set_view(stage=key)
        trace = self.trace
        if (
            key == "mask"
            and trace is not None
            and trace.config.has_mask
            and "weights_neg_inf" not in trace.arrays
        ):
            self.recompute()  # the comparison was skipped for speed: the mask stage shows it

    def _result_arrived(self, result: Result) -> None:
        """Keep the newest result and draw it on the next turn of the event loop.

        Drawing from a zero-delay timer, not from the signal, lets Qt run its timers, input
        and paint events between two pictures; results that arrive meanwhile replace the
        waiting one, and a result overtaken by a newer request is not drawn at all.
        """
        self._latest = result
        if not self._draw_scheduled:
            self._draw_scheduled = True
            QTimer.singleShot(0, self._draw_latest)

    def _draw_latest(self) -> None:
        self._draw_scheduled = False
        result, self._latest = self._latest, None
        if result is not None and result.generation == self.bridge.generation:
            self._show_result(result)

    def _show_result(self, result: Result) -> None:
        start = time.perf_counter()
        previous, self.trace = self.trace, result.trace
        self.board.set_trace(result.trace)
        summary = config_summary(result.trace.config)
        self.stepper.set_trace(result.trace, summary)
        self.bridge.release(previous)  # freed on the engine thread
        del previous
        shapes = shapes_summary(result.trace)
        after = self.board.after_picture
        self.status_line.show_picture(shapes, summary, result.seconds, start, after)
        self.stale_reason = None
        if not self.stale_banner.isHidden():  # (isVisible() is False while the window is)
            self.stale_banner.hide()
        self.traceShown.emit(result.trace)
        self._pictures += 1
        if self._pictures == 1:
            self.firstPicture.emit()

    def _show_failure(self, failure: Failure) -> None:
        self._status(failure.message, error=True)
        self._mark_stale(failure.message)
        problem = Problem(failure.field or "other", failure.message)
        self.controls.show_problems([problem])
        self.editor.show_problems([problem])

    def _mark_stale(self, reason: str) -> None:
        """Say over the matrices that they belong to earlier settings, and why."""
        self.stale_reason = reason
        if self.trace is not None:  # (nothing drawn yet: nothing to mistake for the current)
            self.stale_banner.say(reason)

    # ------------------------------------------------------------------ actions
    def load_preset(self, name: str) -> None:
        # A menu does not take the focus: what is typed in a cell or a box is taken in first,
        # or it would be written into the example once the focus moved on.
        commit_typed_edits(self)
        preset = PRESETS[name]
        # The view as it is now (the boxes are read, not followed): the example keeps it,
        # and undoing one that changes the weights shown gives these back.
        self._sync_view()
        state = ExplorerState.from_preset(preset, view=self.doc.view)
        self.doc.load_state(state, _tr("Load example “{0}”").format(example_text(name).title))
        self._show_example(self.doc.config(), again=True)  # chosen again: its lesson again
        # The lesson is under the matrices and in the examples' box: here only its name.
        self.notify(_tr("Loaded example “{0}”").format(example_text(name).title))

    def open_lesson(self, preset: str, stage: str | None) -> None:
        """Help → Lessons: a tutorial section's example, on the stage the section is about
        (`stage` a step-through stage key), or on the matrices (None)."""
        self.load_preset(preset)
        if stage is None:
            self.show_tab(TABS.index("matrices"))
        else:
            self.stepper.set_stage(stage)
            self.show_tab(TABS.index("steps"))

    def _preset_chosen(self, index: int) -> None:
        name = self.controls.preset.itemData(index)
        if name:
            self.load_preset(name)
        else:  # "Load a tutorial example…" chosen: the box names the example still on screen
            self.controls.show_example(self._example)

    def _show_example(self, config: AttentionConfig, again: bool = False) -> None:
        """Say which example `config` is, if any: its name in the examples' box, and its
        lesson whole in the explanation strip under the matrices, which has room for
        several lines (the status bar would cut a long one, the dropout example's, in the
        middle), and under the step-through's stage. An edit that leaves the example takes
        its lesson away, unless a hover has replaced it under the matrices.
        `again`: the example was chosen again, its lesson is shown again."""
        example = matching_preset(config)
        if example is self._example and not again:
            return
        self._example = example
        self.controls.show_example(example)
        explanation = self.board.explanation
        if example is not None:
            # No quotes around the title: “I am happy”'s has its own.
            words = example_text(example.name)
            self._lesson = _tr("Example: {0} — {1}").format(words.title, words.source)
            explanation.setText(self._lesson + "\n" + self._hover_help)
        elif self._lesson and explanation.text().startswith(self._lesson):
            self._lesson = ""
            explanation.setText(self._hover_help)
        # The step-through says it too, under its stage, for as long as the example is on
        # screen (no hover text takes its place there).
        self.stepper.show_lesson(self._lesson if example is not None else "")

    def _query_chosen(self, row: int) -> None:
        self.doc.set_view(query=row)
        self._show_query(row)

    def _weights_shown(self, name: str) -> None:
        box = self.board.weight_box
        box.setCurrentIndex(max(0, box.findData(name)))

    def _query_followed(self, row: int) -> None:
        rows = self.doc.queries.rowCount()
        if rows:
            self._show_query(min(row, rows - 1))

    def _show_query(self, row: int) -> None:
        self.board.set_query(row)
        self.stepper.set_query(row)
        self.editor.query_table.select_row(row)

    def show_tab(self, index: int) -> None:
        """Ctrl+1 / Ctrl+2: the tab, with the keyboard in it (the arrows then move over the
        weights, or through the stages), also when the tab was already showing."""
        self.tabs.setCurrentIndex(index)
        if TABS[index] == "steps":
            self.stepper.stages.setFocus()
        elif self.board.all_heads.isChecked():
            self.board.grid.setFocus()  # the single matrices are hidden behind the grid
        else:
            self.board.views["weights"].setFocus()

    def _tab_chosen(self, index: int) -> None:
        self.doc.set_view(tab=TABS[index])
        if TABS[index] == "steps":
            self.stepper.stages.setFocus()
            self._stage_chosen(self.stepper.stage)

    def why_scaling_from_menu(self) -> None:
        commit_typed_edits(self)
        self._why_scaling()
        self.stepper.set_stage("softmax")
        self.show_tab(TABS.index("steps"))

    def _why_scaling(self) -> None:
        """The softmax panel's demonstration (one undo step): see `scaling_demo`."""
        self.doc.load_state(scaling_demo(self.doc.state()), _tr("Why √d_k: demonstration"))
        self.notify(
            _tr(
                "Unscaled, d_out = 64: softmax saturates. Tick “Divide by √d_k” to compare; "
                "Ctrl+Z undoes the demo."
            )
        )

    # ------------------------------------------------------------------ view state
    def apply_view(self, view: ViewState) -> None:
        """Show what a session was looking at: tab, head, followed query, stage."""
        view_state.apply_view(self, view)

    def current_state(self) -> ExplorerState:
        """The document plus what the learner is looking at, as a session stores it."""
        self._sync_view()
        return self.doc.state()

    def _sync_view(self) -> None:
        view_state.sync_view(self)

    def current_figure(self) -> tuple[FigureSpec, str]:
        """What Export Figure saves: the stage on screen, all heads, or the seven matrices."""
        return view_state.current_figure(self)
