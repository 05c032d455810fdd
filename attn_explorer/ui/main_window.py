"""The main window: controls and embedding editor on the left, live matrices on the right.

Data flow, one way: widgets edit the Document; every change builds an immutable config; a
valid config goes to the engine thread through the bridge; the newest trace comes back and
the board draws it. Invalid configs are explained where they arise and the last good picture
stays on screen.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QFontMetrics, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QWidget,
)

from attn_explorer.engine import PRESETS, AttentionConfig, Preset, Problem, Trace, matching_preset
from attn_explorer.model.state import ExplorerState, ViewState, default_state, scaling_demo
from attn_explorer.model.views import TABS
from attn_explorer.text.steps import step_text
from attn_explorer.text.summaries import config_summary, shapes_summary
from attn_explorer.ui.editing.controls import ControlsPanel
from attn_explorer.ui.editing.document import Document
from attn_explorer.ui.editing.embedding_editor import EmbeddingEditor, table_entry
from attn_explorer.ui.engine_thread import EngineBridge, Failure, Result
from attn_explorer.ui.export.figures import FigureSpec
from attn_explorer.ui.export.file_actions import FileActions
from attn_explorer.ui.heatmap import MatrixView
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.keys import commit_typed_edits, keep_own_keys, send_undo_to_document
from attn_explorer.ui.matrices.board import MatrixBoard
from attn_explorer.ui.shortcuts_dialog import (
    ShortcutsDialog,
    action_rows,
    menu_sections,
    name_for_shortcuts,
)
from attn_explorer.ui.steps.stepper import StepThrough
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import ElidedLabel, NoticeLabel, elide_words

GEOMETRY_SETTING = "window/geometry"


class MainWindow(QMainWindow):
    """The explorer window. `firstPicture` fires once, when the first trace is drawn."""

    firstPicture = Signal()
    traceShown = Signal(object)  # the Trace now on screen
    problemsShown = Signal()  # the config cannot be computed; the problems are on screen

    def __init__(self, state: ExplorerState | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("attn_explorer")
        text_size.restore()  # before any widget measures its text
        self.doc = Document(state or default_state(), self)
        self.bridge = EngineBridge(self)
        self.trace: Trace | None = None
        self.problems: list[Problem] = []
        self._pictures = 0
        self._before_full_screen = Qt.WindowState.WindowNoState  # maximized, say
        self._side_width = 0  # the controls' column's width when F9 hid it
        self._shortcuts: ShortcutsDialog | None = None
        self._remember_geometry = False
        self._latest: Result | None = None
        self._draw_scheduled = False
        self._turn_edited = False  # an edit was sent to the engine in this event-loop turn
        self._recompute_pending = False  # and more edits came after it

        self.controls = ControlsPanel(self.doc)
        self.editor = EmbeddingEditor(self.doc)
        self.board = MatrixBoard()
        self.stepper = StepThrough()
        left = QSplitter(Qt.Orientation.Vertical)
        scroll = QScrollArea()
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._controls_scroll = scroll
        text_size.changed.connect(self._text_size_changed)
        left.addWidget(scroll)
        # The table in a scroll area that never scrolls while the column has its room: on a
        # 1024-pixel projector at 200 % the column may be narrower than the table's buttons
        # (see `_fit_controls`), and then scrolls rather than push the matrices off screen.
        editor_scroll = QScrollArea()
        editor_scroll.setWidget(self.editor)
        editor_scroll.setWidgetResizable(True)
        editor_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self._editor_scroll = editor_scroll
        left.addWidget(editor_scroll)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 2)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.board, _tr("Matrices"))
        self.tabs.addTab(self.stepper, _tr("Step through"))
        # Beside the tabs, over the matrices, while the settings cannot be computed: what is
        # drawn is the last picture that could be, and must not be read as the current one.
        # A corner widget, not a row of its own: a container around the tabs cost the first
        # moves after startup a 50-85 ms stall of the event loop.
        self.stale_banner = NoticeLabel(self._banner_room)
        self.stale_banner.setStyleSheet(
            "background: #fff4d6; color: #5c3d00; border: 1px solid #e0b64c; padding: 2px 6px;"
        )
        text_size.follow_under_style_sheet(self.stale_banner)
        self.stale_banner.hide()
        self.stale_reason: str | None = None  # why the picture is not of the current settings
        self.tabs.setCornerWidget(self.stale_banner, Qt.Corner.TopRightCorner)
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(left)
        main.addWidget(self.tabs)
        main.setStretchFactor(0, 0)
        main.setStretchFactor(1, 1)
        main.setSizes([380, 1200])
        main.splitterMoved.connect(self._splitter_moved)
        self.setCentralWidget(main)
        self._side, self._splitter = left, main
        self._fit_controls()

        # Status labels whose size never follows their text: a label that grows or shrinks
        # re-lays out the main window, and every slider move would repaint all of it.
        # The summary is cut between words, with "…" (whole in its tooltip): cut at its
        # edge, "seed 123" read "seed 12".
        self.status_text = QLabel()
        self.status_text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        text_size.follow_under_style_sheet(self.status_text)  # red when it says what is wrong
        self._summary = ""
        self.status_text.installEventFilter(self)
        # Widths set by `_size_status_labels`, from the bar's width: whole texts, or "…" and
        # the whole in a tooltip, never a number cut.
        self.shape_text = ElidedLabel(words=True)
        self.shape_text.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self.shape_text.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.time_text = ElidedLabel(mode=Qt.TextElideMode.ElideRight, words=True)
        self.time_text.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self._shapes_need = 0
        self.statusBar().installEventFilter(self)
        self._size_status_labels()
        self.time_text.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.statusBar().addWidget(self.status_text, 1)
        self.statusBar().addPermanentWidget(self.shape_text)
        self.statusBar().addPermanentWidget(self.time_text)
        self.statusBar().messageChanged.connect(self._notice_changed)

        self._build_menus()
        send_undo_to_document(self)  # the step-through's panels, built later, do the same
        keep_own_keys(self.stepper)
        self.doc.changed.connect(self._edited)
        self.bridge.computed.connect(self._result_arrived)
        self.bridge.failed.connect(self._show_failure)
        self.doc.queryFollowed.connect(self._query_followed)
        self.doc.weightsShownChanged.connect(self._weights_shown)
        self.board.querySelected.connect(self._query_chosen)
        self.stepper.querySelected.connect(self._query_chosen)
        self.board.head_box.headChosen.connect(self.stepper.set_head)
        self.stepper.headChanged.connect(self.board.set_head)
        self.stepper.stageChanged.connect(self._stage_chosen)
        self.stepper.whyScaling.connect(self._why_scaling)
        self.tabs.currentChanged.connect(self._tab_chosen)
        self.controls.preset.activated.connect(self._preset_chosen)
        # The example on screen, named in the examples' box and its lesson under the matrices
        # (in place of the hover help, below it) until an edit leaves it or a hover replaces it.
        self._hover_help = self.board.explanation.text()
        self._example: Preset | None = None
        self._lesson = ""  # the lesson text while the explanation strip shows it
        self._show_example(self.doc.config())
        self.apply_view(self.doc.view)
        # The first computation, and with it the engine thread's import of torch (1.6-3 s of
        # loading on the build machine, holding the interpreter lock), starts once the window
        # has been painted: the learner sees the window first. A window never painted starts
        # after a second.
        self._engine_started = False
        QTimer.singleShot(1000, self._start_engine)
        self._status(_tr("Starting the engine (loading PyTorch)…"))

    # ------------------------------------------------------------------ menus
    def _build_menus(self) -> None:
        self.files = FileActions(self)
        quit_action = QAction(_tr("&Quit"), self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        self.files.menu.addAction(quit_action)

        edit = self.menuBar().addMenu(_tr("&Edit"))
        # A menu does not take the focus: what is typed in a cell is taken in as the menu opens,
        # as a click elsewhere would. Undo then undoes the typing (it is named), where it undid
        # the step before and the typing, going in later, cleared the redo.
        edit.aboutToShow.connect(lambda: commit_typed_edits(self))
        undo = self.doc.undo_stack.createUndoAction(self, _tr("&Undo"))
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.doc.undo_stack.createRedoAction(self, _tr("&Redo"))
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        name_for_shortcuts(undo, _tr("Undo the last edit"))
        name_for_shortcuts(redo, _tr("Redo the edit last undone"))
        edit.addAction(undo)
        edit.addAction(redo)
        edit.addSeparator()
        for action in self.editor.actions.values():
            edit.addAction(table_entry(action, self))

        view = self.menuBar().addMenu(_tr("&View"))
        for index, label in enumerate((_tr("&Matrices"), _tr("&Step through"))):
            action = QAction(label, self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, i=index: self.show_tab(i))
            view.addAction(action)
        view.addSeparator()
        grid = QAction(_tr("All heads side by side"), self)
        grid.setCheckable(True)
        grid.setShortcut(QKeySequence("Ctrl+G"))
        grid.toggled.connect(self.board.show_all_heads)
        self.board.all_heads.toggled.connect(grid.setChecked)
        view.addAction(grid)
        prev_head = QAction(_tr("Previous head"), self)
        prev_head.setShortcut(QKeySequence("Ctrl+["))
        prev_head.triggered.connect(lambda: self.board.set_head(self.board.shown_head - 1))
        next_head = QAction(_tr("Next head"), self)
        next_head.setShortcut(QKeySequence("Ctrl+]"))
        next_head.triggered.connect(lambda: self.board.set_head(self.board.shown_head + 1))
        view.addActions([prev_head, next_head])
        view.addSeparator()
        for label, keys, change in (
            (_tr("&Larger text"), ("Ctrl++", "Ctrl+="), text_size.larger),
            (_tr("Smalle&r text"), ("Ctrl+-",), text_size.smaller),
            (_tr("&Normal text size"), ("Ctrl+0",), text_size.reset),
        ):
            action = QAction(label, self)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setStatusTip(_tr("Text size of the whole window, for a projector"))
            action.triggered.connect(lambda _=False, c=change: self._change_text_size(c))
            view.addAction(action)
        self.text_size_actions = view.actions()[-3:]
        view.addSeparator()
        # A projector at 1024 × 768 leaves the matrices too narrow for their values: the
        # presenter gives them the whole width while showing, and back to edit.
        self.controls_action = QAction(_tr("&Controls and Embeddings"), self)
        self.controls_action.setCheckable(True)
        self.controls_action.setChecked(True)
        self.controls_action.setShortcut(QKeySequence("F9"))
        self.controls_action.setStatusTip(_tr("Show or hide the left column, for room to present"))
        self.controls_action.toggled.connect(self.show_controls)
        self.full_screen_action = QAction(_tr("&Full Screen"), self)
        self.full_screen_action.setCheckable(True)
        self.full_screen_action.setShortcut(QKeySequence.StandardKey.FullScreen)
        self.full_screen_action.toggled.connect(self._full_screen)
        view.addActions([self.controls_action, self.full_screen_action])

        examples = self.menuBar().addMenu(_tr("E&xamples"))
        for name, preset in PRESETS.items():
            action = QAction(preset.title, self)
            action.setStatusTip(preset.source)
            action.triggered.connect(lambda _=False, n=name: self.load_preset(n))
            examples.addAction(action)
        examples.addSeparator()
        # Also where the softmax panel is left out for lack of height (its button with it).
        self.why_scaling_action = QAction(_tr("Why √d_k? A demonstration"), self)
        self.why_scaling_action.setStatusTip(
            _tr("Wide heads without √d_k: watch softmax saturate, then tick “Divide by √d_k”")
        )
        self.why_scaling_action.triggered.connect(self._why_scaling_from_menu)
        examples.addAction(self.why_scaling_action)

        help_menu = self.menuBar().addMenu(_tr("&Help"))
        keys = QAction(_tr("&Keyboard Shortcuts"), self)
        keys.setShortcut(QKeySequence.StandardKey.HelpContents)
        keys.triggered.connect(self.show_shortcuts)
        help_menu.addAction(keys)
        about = QAction(_tr("&About attn_explorer"), self)
        about.triggered.connect(self._about)
        help_menu.addAction(about)

    def _change_text_size(self, change: Callable[[], None]) -> None:
        change()
        text_size.remember()
        self.notify(_tr("Text size {0:.0%}").format(text_size.factor))

    def _text_size_changed(self) -> None:
        # Widgets take a new application font from posted events: measure after those.
        QTimer.singleShot(0, self, self._fit_to_text)

    def _fit_to_text(self) -> None:
        self._fit_controls()
        self._size_status_labels()

    SIDE_LEAST = 160  # the controls' column, at the least, on the smallest screen

    def _fit_controls(self) -> None:
        """The controls' column as wide as its widgets need at the current text size, where
        the screen has that room beside the tabs' least width. At 200 % the controls and the
        table's buttons need 530 px: on a 1024-pixel projector the window could not be made
        narrower than 1396 px, with the weights and the context off the screen. Where the
        screen is too narrow the column may be narrower than its widgets and scrolls."""
        need = self.controls.minimumSizeHint().width() + 24
        editor_need = self.editor.minimumSizeHint().width()
        screen = self.screen().availableGeometry().width()
        tabs = getattr(self, "tabs", None)
        beside = tabs.minimumSizeHint().width() if tabs is not None else 0
        room = max(screen - beside - 16, self.SIDE_LEAST)
        policy = Qt.ScrollBarPolicy
        self._controls_scroll.setMinimumWidth(min(need, room))
        self._controls_scroll.setHorizontalScrollBarPolicy(
            policy.ScrollBarAsNeeded if need > room else policy.ScrollBarAlwaysOff
        )
        editor = getattr(self, "_editor_scroll", None)
        if editor is not None:
            editor.setMinimumWidth(min(editor_need, room))
            editor.setMinimumHeight(self.editor.minimumSizeHint().height())

    def eventFilter(self, watched: object, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            if watched is self.status_text:
                self._elide_summary()
            elif watched is self.statusBar():
                self._size_status_labels()
        return super().eventFilter(watched, event)

    def _elide_summary(self) -> None:
        label = self.status_text
        room = label.contentsRect().width() - 2 * label.margin() - 2
        shown = self._summary
        if not label.testAttribute(Qt.WidgetAttribute.WA_PendingResizeEvent):  # laid out
            shown = elide_words(self._summary, label.fontMetrics(), room)
        if shown != label.text():
            label.setText(shown)

    def _size_status_labels(self) -> None:
        """Status labels whose widths follow the bar's width, not their texts (a label that
        followed its text would re-lay out the window on every move): the shapes ask for
        their text's width (grown, not shrunk, as it changes), the time for its usual text.
        Where the summary, the shapes and the time do not all fit, the time gets at most a
        fifth of the bar and the shapes at most what the summary leaves, at least 30 %: the
        summary keeps at least half. Each can be made as narrow as "…", so at a large text
        size the window still fits a 1024-pixel projector."""
        # The application's font, not the window's: at startup a remembered text size has
        # not reached the window yet (it comes in a posted event), and the labels were cut.
        metrics = QFontMetrics(QApplication.font())
        gap = 3 * metrics.averageCharWidth()
        bar = self.statusBar().width()
        shapes = max(
            metrics.horizontalAdvance("X 6×3 → Q,K,V 2×6×2 → α 2×6×6 → out 6×2"),
            metrics.horizontalAdvance(self.shape_text.full_text()),
        )
        self._shapes_need = shapes + gap
        usual_time = metrics.horizontalAdvance("engine 9.9 ms · drawn in 99.9 ms") + gap
        summary = metrics.horizontalAdvance(self._summary) + gap
        time = usual_time
        shapes = self._shapes_need
        if summary + shapes + time > bar:  # not all three whole: the summary comes first
            time = min(usual_time, bar // 5)
            shapes = min(shapes, max(bar * 3 // 10, bar - summary - time))
        self.shape_text.set_hint_width(shapes)
        self.time_text.set_hint_width(time)

    def _show_shapes(self, text: str) -> None:
        """The shapes, given more room when they need it (never less: see above)."""
        self.shape_text.setText(text)
        need = self.shape_text.fontMetrics().horizontalAdvance(text) + 12
        if need > self._shapes_need:
            self._size_status_labels()

    def show_shortcuts(self) -> ShortcutsDialog:
        """The keys of the menus, the step-through and the tables, in a window beside this one
        (not modal: the keys can be tried while it is open)."""
        if self._shortcuts is None:
            sections = menu_sections(self.menuBar().actions())
            sections.append(
                (
                    _tr("Step-through tab (while it has focus)"),
                    action_rows(self.stepper.key_actions),
                )
            )
            sections.append((_tr("Embedding table (while it has focus)"), self.editor.key_rows()))
            sections.append((_tr("A matrix (while it has focus)"), MatrixView.key_rows()))
            self._shortcuts = ShortcutsDialog(sections, self)
        self._shortcuts.show()
        self._shortcuts.raise_()
        self._shortcuts.activateWindow()
        return self._shortcuts

    def _about(self) -> None:
        QMessageBox.about(
            self,
            _tr("About attn_explorer"),
            _tr(
                "<h3>attn_explorer</h3><p>A lab for the attention mechanism of transformers: "
                "edit the embeddings, move the sliders, and watch every matrix recompute.</p>"
                "<p>Indices count from 1, like x<sup>(2)</sup> in the tutorials. Hover over a "
                "cell to see how it is computed; click it to follow its query.</p>"
            ),
        )

    # ------------------------------------------------------------------ the engine round trip
    def _edited(self) -> None:
        """Recompute at once for the first edit of an event-loop turn, and once more at the
        turn's end if more edits came in it.

        A single move reaches the engine without delay; a burst (a paste, a fast drag, a
        scripted sweep) is checked and sent once per turn instead of once per change, which
        would cost the UI thread more than the engine spends.
        """
        if self.statusBar().currentMessage():
            self.statusBar().clearMessage()  # the notice was about the state before this edit
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
            self._status(self.problems[0].message, error=True)
            self._mark_stale(self.problems[0].message)
            self.problemsShown.emit()
            return
        self.bridge.request(config, self._wants_comparison(config))

    def showEvent(self, event: object) -> None:
        super().showEvent(event)
        # Widgets shown for the first time are polished in the window's style and fonts,
        # which can widen them (the controls' group boxes at 150 %): measure again.
        QTimer.singleShot(0, self, self._fit_controls)

    def paintEvent(self, event: object) -> None:
        super().paintEvent(event)
        if not self._engine_started:
            QTimer.singleShot(0, self._start_engine)

    def _start_engine(self) -> None:
        if not self._engine_started:
            self._engine_started = True
            self.recompute()

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
        drawn = time.perf_counter()
        self._show_shapes(shapes_summary(result.trace))
        self.time_text.setText(
            _tr("engine {0:.1f} ms · drawn in {1:.1f} ms").format(
                result.seconds * 1e3, (drawn - start) * 1e3
            )
        )
        self._status(summary)
        self.stale_reason = None
        if not self.stale_banner.isHidden():  # (isVisible() is False while the window is)
            self.stale_banner.hide()
        self.traceShown.emit(result.trace)
        self._pictures += 1
        if self._pictures == 1:
            self._size_status_labels()  # for the first summary, not "Starting the engine…"
            self.firstPicture.emit()

    def _show_failure(self, failure: Failure) -> None:
        self._status(failure.message, error=True)
        self._mark_stale(failure.message)
        problem = Problem(failure.field or "other", failure.message)
        self.controls.show_problems([problem])
        self.editor.show_problems([problem])

    def _banner_room(self) -> int:
        """The width beside the tabs' names: the banner never pushes them aside."""
        return self.tabs.width() - self.tabs.tabBar().sizeHint().width() - 8

    def _mark_stale(self, reason: str) -> None:
        """Say over the matrices that they belong to earlier settings, and why."""
        self.stale_reason = reason
        if self.trace is None:
            return  # nothing drawn yet: nothing to mistake for the current picture
        text = _tr("These matrices are for the last settings that could be computed. {0}")
        self.stale_banner.setText(text.format(reason))
        # The full reason also as a tooltip: a long one may not fit beside the tabs.
        self.stale_banner.setToolTip(
            text.format(reason) + "\n" + _tr("Change the setting marked in red, or undo (Ctrl+Z).")
        )
        self.stale_banner.show()

    NOTICE_MS = 15_000

    def notify(self, text: str) -> None:
        """Say what an action just did (opened, saved, loaded an example) until the next edit,
        for at most `NOTICE_MS`, over the config summary that each new picture writes.

        The status bar clips a message at its first permanent label. A notice too long for the
        room before the shapes takes the shapes' room too while it shows (they come back when
        it goes); one longer still (a deep path) is cut in the middle,
        keeping its start and end, and is whole in the status bar's tooltip.
        """
        bar = self.statusBar()
        shown = text
        if self.time_text.isVisible():
            # QStatusBar writes a message between 6 px from its start and 2 px before its first
            # visible permanent label (12 px from its end and 2 px after the label, right to
            # left). The shapes sit one layout spacing (6 px) inside the time, which stays put.
            time = self.time_text.geometry()
            if bar.isRightToLeft():
                room = bar.width() - 12 - (time.right() + 1 + 2)
            else:
                room = time.x() - 8
            beside_shapes = room - self.shape_text.width() - 6
            width = bar.fontMetrics().horizontalAdvance(text)
            self.shape_text.setVisible(width <= beside_shapes)
            if width <= beside_shapes:
                room = beside_shapes
            shown = bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, max(room, 0))
        bar.showMessage(shown, self.NOTICE_MS)
        bar.setToolTip(text if shown != text else "")
        # The bar hides the summary under a message only until something re-lays it out (a
        # new text size drew the summary over the notice); hidden here, shown when it goes.
        self.status_text.hide()

    def _notice_changed(self, message: str) -> None:
        if not message:  # the notice is gone: the summary, the shapes and a bar with no
            self.statusBar().setToolTip("")  # tooltip come back
            self.status_text.show()
            self.shape_text.show()

    def _status(self, text: str, error: bool = False) -> None:
        # Called on every move: only what changed is set (a style sheet, even the same one,
        # re-polishes the label).
        style = "color: #b00020;" if error else ""
        if error and self.statusBar().currentMessage():
            self.statusBar().clearMessage()  # a notice must not hide what went wrong
        if self._summary != text:
            self._summary = text
            self._elide_summary()
            self.status_text.setToolTip(text)
        if self.status_text.styleSheet() != style:
            self.status_text.setStyleSheet(style)

    # ------------------------------------------------------------------ actions
    def load_preset(self, name: str) -> None:
        # A menu does not take the focus: what is typed in a cell or a box is taken in first,
        # or it was written into the example once the focus moved on.
        commit_typed_edits(self)
        preset = PRESETS[name]
        # The view as it is now (the boxes are read, not followed): the example keeps it,
        # and undoing one that changes the weights shown gives these back.
        self._sync_view()
        state = ExplorerState.from_preset(preset, view=self.doc.view)
        self.doc.load_state(state, _tr("Load example “{0}”").format(preset.title))
        self._show_example(self.doc.config(), again=True)  # chosen again: its lesson again
        # The lesson is under the matrices and in the examples' box: here only its name.
        self.notify(_tr("Loaded example “{0}”").format(preset.title))

    def _preset_chosen(self, index: int) -> None:
        name = self.controls.preset.itemData(index)
        if name:
            self.load_preset(name)
        else:  # "Load a tutorial example…" chosen: the box names the example still on screen
            self.controls.show_example(self._example)

    def _show_example(self, config: AttentionConfig, again: bool = False) -> None:
        """Say which example `config` is, if any: its name in the examples' box, and its
        lesson whole in the explanation strip under the matrices, which has room for
        several lines (the status bar cut the dropout example's in the middle), and under
        the step-through's stage. An edit that leaves the example takes its lesson away,
        unless a hover has replaced it under the matrices.
        `again`: the example was chosen again, its lesson is shown again."""
        example = matching_preset(config)
        if example is self._example and not again:
            return
        self._example = example
        self.controls.show_example(example)
        explanation = self.board.explanation
        if example is not None:
            # No quotes around the title: “I am happy”'s has its own.
            self._lesson = _tr("Example: {0} — {1}").format(example.title, example.source)
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

    def _why_scaling_from_menu(self) -> None:
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
        self.stepper.query = view.query
        self.stepper.set_stage(view.stage)
        board = self.board
        for box, name in (
            (board.heads_array, view.heads_array),
            (board.score_box, view.scores_array),
            (board.weight_box, view.weights_array),
        ):
            box.setCurrentIndex(max(0, box.findData(name)))
        board.show_all_heads(view.all_heads)
        self.board.head = view.head
        self.stepper.head = view.head
        self.board.set_head(view.head)
        self.board.set_query(view.query)
        self.tabs.setCurrentIndex(TABS.index(view.tab) if view.tab in TABS else 0)
        if self.trace is not None and self.trace.config == self.doc.config():
            # The picture is already of these settings, so no new one will come to bring the
            # head and query within it (a session opened again with only its view edited).
            self.board.set_trace(self.trace)
            self.stepper.set_trace(self.trace, self.stepper.summary)

    def current_state(self) -> ExplorerState:
        """The document plus what the learner is looking at, as a session stores it."""
        self._sync_view()
        return self.doc.state()

    def _sync_view(self) -> None:
        """Copy what the learner is looking at into the document's view."""
        self.doc.set_view(
            head=self.board.shown_head,
            heads_array=self.board.heads_array.currentData(),
            scores_array=self.board.score_box.currentData(),
            weights_array=self.board.weight_box.currentData(),
            all_heads=self.board.all_heads.isChecked(),
            tab=TABS[self.tabs.currentIndex()],
            stage=self.stepper.stage,
        )

    def current_figure(self) -> tuple[FigureSpec, str]:
        """What Export Figure saves: the stage on screen, all heads, or the seven matrices."""
        query = self.doc.view.query
        if self.trace is not None:
            query = min(query, self.trace.config.n_q - 1)  # its token may have been removed
        if self.tabs.currentWidget() is self.stepper:
            step = self.trace.step(self.stepper.stage) if self.trace else None
            what = step_text(step).title if step else self.stepper.stage
            return FigureSpec("stage", self.stepper.stage, self.stepper.shown_head, query), what
        if self.board.all_heads.isChecked():
            name = self.board.heads_array.currentData()
            what = _tr("{0}, all heads").format(self.board.heads_array.currentText())
            return FigureSpec("array", name, None, query), what
        head = self.board.shown_head
        what = _tr("The seven matrices, head {0}").format(head + 1)
        scores, weights = self.board.score_box.currentData(), self.board.weight_box.currentData()
        return FigureSpec("matrices", "", head, query, scores, weights), what

    def show_controls(self, on: bool) -> None:
        """Show or hide the controls and the embeddings' table (View menu, F9). Shown again,
        the column has the width it had (one the user gave it), or its usual width if it
        was dragged shut."""
        if not on and self._side.isVisible():
            self._side_width = self._splitter.sizes()[0]  # 0 when dragged shut
        if on and (not self._side.isVisible() or self._splitter.sizes()[0] == 0):
            total = sum(self._splitter.sizes())
            width = self._side_width or self._side.sizeHint().width()
            self._splitter.setSizes([width, max(total - width, 1)])
        self._side.setVisible(on)
        self.board.set_controls_shown(on)
        if self.controls_action.isChecked() != on:
            self.controls_action.setChecked(on)

    def _splitter_moved(self, _pos: int, _index: int) -> None:
        """The column dragged shut (or open again) is what the menu says."""
        shown = self._side.isVisible() and self._splitter.sizes()[0] > 0
        self.board.set_controls_shown(shown)
        if self.controls_action.isChecked() != shown:
            self.controls_action.setChecked(shown)

    def _full_screen(self, on: bool) -> None:
        full = Qt.WindowState.WindowFullScreen
        if on:
            self.setWindowState(self.windowState() | full)
        else:  # back to the state before (maximized stays maximized)
            self.setWindowState(self._before_full_screen & ~full)

    def changeEvent(self, event: QEvent) -> None:
        """Full screen however it came (F11, the window manager, a window closed in full
        screen and restored so): remember the state before it, and say so in the menu."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.WindowStateChange:
            full_screen = Qt.WindowState.WindowFullScreen
            full = bool(self.windowState() & full_screen)
            if full and not event.oldState() & full_screen:
                self._before_full_screen = event.oldState()
            if self.full_screen_action.isChecked() != full:
                self.full_screen_action.blockSignals(True)
                self.full_screen_action.setChecked(full)
                self.full_screen_action.blockSignals(False)

    def place_on_screen(self, size: tuple[int, int]) -> None:
        """Where the user left the window last time; the first time, `size` where it fits the
        screen, else the whole screen (a 1024 × 768 projector).

        Only windows placed this way remember their place: a screenshot's or a test's size
        must not become the user's.
        """
        self._remember_geometry = True
        saved = QSettings().value(GEOMETRY_SETTING)
        if isinstance(saved, QByteArray) and self.restoreGeometry(saved):
            return  # Qt moves a window saved on a screen now gone onto one that is there
        room = self.screen().availableGeometry()
        width, height = size
        # Room for the frame and title bar, which the window's own size leaves out.
        if width > room.width() - 16 or height > room.height() - 48:
            self.resize(room.size())
            self.setWindowState(Qt.WindowState.WindowMaximized)
            return
        self.resize(width, height)
        self.move(room.center() - self.rect().center())

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.files.confirm_discard():
            event.ignore()
            return
        if self._remember_geometry:
            QSettings().setValue(GEOMETRY_SETTING, self.saveGeometry())
        self.bridge.shutdown()
        super().closeEvent(event)
