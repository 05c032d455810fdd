"""The main window: controls and embedding editor on the left, live matrices on the right.

Data flow, one way: widgets edit the Document; every change builds an immutable config; a
valid config goes to the engine thread through the bridge; the newest trace comes back and
the board draws it. Invalid configs are explained where they arise and the last good picture
stays on screen.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QWidget,
)

from ..bridge import EngineBridge, Failure, Result
from ..engine import PRESETS, AttentionConfig, Problem, Trace
from ..state import ExplorerState, default_state, scaling_demo
from .controls import ControlsPanel
from .document import Document
from .embedding_editor import EmbeddingEditor
from .matrix_board import MatrixBoard
from .stepper import StepThrough


def _tr(text: str) -> str:
    return QCoreApplication.translate("MainWindow", text)


TABS = ("matrices", "steps")


def config_summary(config: AttentionConfig) -> str:
    """One line saying what is computed, e.g. 'linear · d_out 2 · 2 heads (split) · causal'."""
    parts = [config.projection]
    if config.projection != "none":
        parts.append(f"d_out {config.d_out}")
    heads = config.heads
    parts.append(
        f"{heads} head{'s' if heads > 1 else ''}"
        + (f" ({config.head_layout})" if heads > 1 else "")
    )
    if config.is_cross:
        parts.append("cross")
    if config.causal:
        parts.append("causal")
    if config.valid_len is not None:
        parts.append(f"valid {config.valid_len}")
    if not config.scale:
        parts.append("unscaled")
    if config.temperature != 1:
        parts.append(f"T {config.temperature:g}")
    if config.dropout_active:
        parts.append(f"dropout {config.dropout:g}")
    if config.out_proj:
        parts.append("out_proj")
    parts.append(f"seed {config.seed}")
    return " · ".join(parts)


def shapes_summary(trace: Trace) -> str:
    cfg = trace.config
    x = f"X {cfg.n_q}×{cfg.d_in}"
    qkv = (
        f"Q,K,V {cfg.heads}×{cfg.n_q}×{cfg.d_head}"
        if not cfg.is_cross
        else (f"Q {cfg.heads}×{cfg.n_q}×{cfg.d_head}, K,V {cfg.heads}×{cfg.n_k}×{cfg.d_head}")
    )
    return f"{x} → {qkv} → A {cfg.heads}×{cfg.n_q}×{cfg.n_k} → out {cfg.n_q}×{cfg.width}"


class MainWindow(QMainWindow):
    """The explorer window. `firstPicture` fires once, when the first trace is drawn."""

    firstPicture = Signal()
    traceShown = Signal(object)  # the Trace now on screen

    def __init__(self, state: ExplorerState | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("attn_explorer")
        self.doc = Document(state or default_state(), self)
        self.bridge = EngineBridge(self)
        self.trace: Trace | None = None
        self.problems: list[Problem] = []
        self._pictures = 0
        self._requested_at = 0.0

        self.controls = ControlsPanel(self.doc)
        self.editor = EmbeddingEditor(self.doc)
        self.board = MatrixBoard()
        self.stepper = StepThrough()
        left = QSplitter(Qt.Orientation.Vertical)
        scroll = QScrollArea()
        scroll.setWidget(self.controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(self.controls.minimumSizeHint().width() + 24)
        left.addWidget(scroll)
        left.addWidget(self.editor)
        left.setStretchFactor(0, 3)
        left.setStretchFactor(1, 2)
        self.tabs = QTabWidget()
        self.tabs.addTab(self.board, _tr("Matrices"))
        self.tabs.addTab(self.stepper, _tr("Step through"))
        main = QSplitter(Qt.Orientation.Horizontal)
        main.addWidget(left)
        main.addWidget(self.tabs)
        main.setStretchFactor(0, 0)
        main.setStretchFactor(1, 1)
        main.setSizes([380, 1200])
        self.setCentralWidget(main)

        self.status_text = QLabel()
        self.shape_text = QLabel()
        self.time_text = QLabel()
        self.statusBar().addWidget(self.status_text, 1)
        self.statusBar().addPermanentWidget(self.shape_text)
        self.statusBar().addPermanentWidget(self.time_text)

        self._build_menus()
        self.doc.changed.connect(self.recompute)
        self.doc.undo_stack.cleanChanged.connect(self._update_title)
        self.bridge.computed.connect(self._show_result)
        self.bridge.failed.connect(self._show_failure)
        self.board.querySelected.connect(self._query_chosen)
        self.stepper.querySelected.connect(self._query_chosen)
        self.board.head_box.currentIndexChanged.connect(self.stepper.set_head)
        self.stepper.headChanged.connect(self.board.set_head)
        self.stepper.stageChanged.connect(lambda key: self.doc.set_view(stage=key))
        self.stepper.whyScaling.connect(self._why_scaling)
        self.tabs.currentChanged.connect(self._tab_chosen)
        self.controls.preset.activated.connect(self._preset_chosen)
        self.board.set_query(self.doc.view.query)
        self.stepper.query = self.doc.view.query
        self.stepper.set_stage(self.doc.view.stage)
        self.tabs.setCurrentIndex(TABS.index(self.doc.view.tab) if self.doc.view.tab in TABS else 0)
        self._update_title()
        self.recompute()

    # ------------------------------------------------------------------ menus
    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu(_tr("&File"))
        quit_action = QAction(_tr("&Quit"), self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        self.file_menu = file_menu

        edit = self.menuBar().addMenu(_tr("&Edit"))
        undo = self.doc.undo_stack.createUndoAction(self, _tr("&Undo"))
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = self.doc.undo_stack.createRedoAction(self, _tr("&Redo"))
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        edit.addAction(undo)
        edit.addAction(redo)
        self.undo_action, self.redo_action = undo, redo
        edit.addSeparator()
        for action in self.editor.actions.values():
            edit.addAction(action)

        view = self.menuBar().addMenu(_tr("&View"))
        for index, label in enumerate((_tr("&Matrices"), _tr("&Step through"))):
            action = QAction(label, self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _=False, i=index: self.tabs.setCurrentIndex(i))
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
        prev_head.triggered.connect(lambda: self.board.set_head(self.board.head - 1))
        next_head = QAction(_tr("Next head"), self)
        next_head.setShortcut(QKeySequence("Ctrl+]"))
        next_head.triggered.connect(lambda: self.board.set_head(self.board.head + 1))
        view.addActions([prev_head, next_head])
        self.view_menu = view

        examples = self.menuBar().addMenu(_tr("E&xamples"))
        for name, preset in PRESETS.items():
            action = QAction(preset.title, self)
            action.setStatusTip(preset.source)
            action.triggered.connect(lambda _=False, n=name: self.load_preset(n))
            examples.addAction(action)

        help_menu = self.menuBar().addMenu(_tr("&Help"))
        about = QAction(_tr("&About attn_explorer"), self)
        about.triggered.connect(self._about)
        help_menu.addAction(about)

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
    def recompute(self) -> None:
        """Send the document's config to the engine, or explain why it cannot be computed."""
        config = self.doc.config()
        self.problems = config.problems()
        self.controls.show_problems(self.problems)
        self.editor.show_problems(self.problems)
        if self.problems:
            self.bridge.cancel_pending()
            self._status(self.problems[0].message, error=True)
            return
        self._requested_at = time.perf_counter()
        self.bridge.request(config)

    def _show_result(self, result: Result) -> None:
        start = time.perf_counter()
        self.trace = result.trace
        self.board.set_trace(result.trace)
        self.stepper.set_trace(result.trace, config_summary(result.trace.config))
        drawn = time.perf_counter()
        self.shape_text.setText(shapes_summary(result.trace))
        self.time_text.setText(
            _tr("engine {0:.1f} ms · drawn in {1:.1f} ms").format(
                result.seconds * 1e3, (drawn - start) * 1e3
            )
        )
        self._status(config_summary(result.trace.config))
        self.traceShown.emit(result.trace)
        self._pictures += 1
        if self._pictures == 1:
            self.firstPicture.emit()

    def _show_failure(self, failure: Failure) -> None:
        self._status(failure.message, error=True)
        problem = Problem(failure.field or "other", failure.message)
        self.controls.show_problems([problem])
        self.editor.show_problems([problem])

    def _status(self, text: str, error: bool = False) -> None:
        self.status_text.setText(text)
        self.status_text.setStyleSheet("color: #b00020;" if error else "")
        self.status_text.setToolTip(text)

    # ------------------------------------------------------------------ actions
    def load_preset(self, name: str) -> None:
        preset = PRESETS[name]
        state = ExplorerState.from_config(preset.config, view=self.doc.view)
        self.doc.load_state(state, _tr("Load example “{0}”").format(preset.title))
        self._status(preset.source)

    def _preset_chosen(self, index: int) -> None:
        name = self.controls.preset.itemData(index)
        self.controls.preset.setCurrentIndex(0)
        if name:
            self.load_preset(name)

    def _query_chosen(self, row: int) -> None:
        self.doc.set_view(query=row)
        self.board.set_query(row)
        self.stepper.set_query(row)
        self.editor.query_table.select_row(row)

    def _tab_chosen(self, index: int) -> None:
        self.doc.set_view(tab=TABS[index])
        if TABS[index] == "steps":
            self.stepper.stages.setFocus()

    def _why_scaling(self) -> None:
        """The softmax panel's demonstration (one undo step): see `scaling_demo`."""
        self.doc.load_state(scaling_demo(self.doc.state()), _tr("Why √d_k: demonstration"))
        self._status(
            _tr(
                "Scores of 16-d unit-variance embeddings through d_out = 64, unscaled: softmax "
                "saturates. Tick “Divide by √d_k” to compare; Ctrl+Z restores your work."
            )
        )

    def _update_title(self) -> None:
        self.setWindowTitle("attn_explorer")

    def closeEvent(self, event: QCloseEvent) -> None:
        self.bridge.shutdown()
        super().closeEvent(event)
