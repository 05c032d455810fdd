"""Step through the computation: one stage at a time, on the live configuration.

The learner's path through the tutorials: each stage shows its formula, its input and output
matrices, and the followed query token's numbers written out (like the tutorials' worked example
for x^(2) "journey"). The softmax stage adds tutorial 004's lesson (softmax sharpening as its
inputs grow); the mask stage puts the two masking methods side by side.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import (
    QAction,
    QKeySequence,
)
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStackedWidget,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.engine import ARRAY_INFO, STEP_KEYS, Trace, step_keys
from attn_explorer.text.explain import explain
from attn_explorer.text.i18n import N_
from attn_explorer.ui.heatmap import CellHover, MatrixPlot
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.keys import keep_own_keys, send_undo_to_document
from attn_explorer.ui.matrices.context_menu import install_matrix_menu
from attn_explorer.ui.matrices.trace_plots import HeadChoice
from attn_explorer.ui.steps.figure_view import FigureView
from attn_explorer.ui.steps.lesson_label import LessonLabel
from attn_explorer.ui.steps.mask_panel import MaskMethodsPanel
from attn_explorer.ui.steps.room import (
    FIGURE_MIN_HEIGHT,
    StageRoom,
    WorkedLinesBox,
)
from attn_explorer.ui.steps.softmax_panel import SoftmaxPanel
from attn_explorer.ui.steps.stage_figure import StageFigure
from attn_explorer.ui.steps.stage_tabs import STAGE_LABEL, STAGE_LABELS, StageTabs
from attn_explorer.ui.steps.worked_lines import followed_text, moved_cell
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import (
    HeadBox,
    ShrinkButton,
    formula_font,
)

PLAY_MS = 2500


class StepThrough(HeadChoice, StageRoom, QWidget):
    """The step-through tab: stage list, navigation, stage figure, followed token, panels."""

    querySelected = Signal(int)
    stageChanged = Signal(str)
    headChanged = Signal(int)
    whyScaling = Signal()
    drawn = Signal()  # the stage's matrices drawn anew (what marks them draws again)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.trace: Trace | None = None
        self.first_difference: str | None = None  # the stage marked by a comparison with A
        self.stage = STEP_KEYS[0]
        # The stages in the order the trace computed them (tutorial 000's masks first).
        self.keys = STEP_KEYS
        self.query: int | None = 1
        # The column of the cell chosen on a stage (what its matrix's columns count, and
        # which): the worked lines write that cell's arithmetic (see `followed_text`).
        self.column: tuple[str, int] | None = None
        self.summary = ""
        text_size.changed.connect(self._text_size_changed)

        # The stages as a row of tabs: it costs a line of height, not a column of width.
        self.stages = StageTabs([_tr(label) for label in STAGE_LABELS])

        # At a large text size on a small screen the buttons keep their arrows only. Their
        # words, and the other controls', are written by `_retranslate`.
        self.prev_button = ShrinkButton("", "◀")
        self.play_button = ShrinkButton("", "▶")
        self.play_button.setCheckable(True)
        self.next_button = ShrinkButton("", "▶")
        self.head_label = QLabel()
        self.head_box = HeadBox("")

        self.figure = StageFigure()
        self.figure_view = FigureView(self.figure)
        # Matrices and numbers read left to right in every language ("-0.15", not "0.15-").
        self.figure_view.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.figure_view.setMinimumHeight(FIGURE_MIN_HEIGHT)
        install_matrix_menu(self.figure_view)  # right-click: check, copy, follow, export
        self.followed = WorkedLinesBox()
        # The two panels (five plots) are built when first shown: most sessions start on the
        # matrices tab, and every plot costs startup time.
        self._softmax_panel: SoftmaxPanel | None = None
        self._mask_panel: MaskMethodsPanel | None = None
        self.extras = QStackedWidget()
        self.extras.addWidget(QWidget())
        # Says what a window too short for the panel leaves out, and how to get it back.
        self.extras_left_out = LessonLabel()
        self.extras_left_out.setObjectName("extrasLeftOut")
        self.extras_left_out.setWordWrap(True)
        self.extras_left_out.setIndent(6)  # the followed query's text starts there too
        self.extras_left_out.hide()
        # The loaded example's lesson, as the matrices tab writes it under its matrices: it
        # says which tutorial's numbers the stages walk through.
        self.lesson = LessonLabel()
        self.lesson.setObjectName("lesson")
        self.lesson.setWordWrap(True)
        self.lesson.setTextFormat(Qt.TextFormat.PlainText)
        self.lesson.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.lesson.setStyleSheet(
            "QLabel#lesson { background: #fafafa; padding: 4px; border-top: 1px solid #ddd; }"
        )
        self.lesson.setFont(formula_font(text_size.points(10.5)))
        self.lesson.hide()
        self._lesson_text = ""

        # The stages get a row of their own, so that all ten names fit a laptop's window.
        nav = QHBoxLayout()
        for widget in (self.prev_button, self.play_button, self.next_button):
            nav.addWidget(widget)
        nav.addStretch(1)
        nav.addWidget(self.head_label)
        nav.addWidget(self.head_box)
        right = QVBoxLayout()
        right.addWidget(self.stages)
        right.addLayout(nav)
        right.addWidget(self.figure_view, 3)
        right.addWidget(self.followed)
        right.addWidget(self.extras, 1)  # its height is bounded in resizeEvent
        right.addWidget(self.extras_left_out)
        right.addWidget(self.lesson)
        self._right = right
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(right, 1)

        self.timer = QTimer(self)
        self.timer.setInterval(PLAY_MS)
        self.timer.timeout.connect(self._play_step)
        self.stages.currentChanged.connect(self._stage_row_chosen)
        self.prev_button.clicked.connect(lambda: self.step_by(-1))
        self.next_button.clicked.connect(lambda: self.step_by(1))
        self.play_button.toggled.connect(self._play)
        self.head_box.headChosen.connect(self._head_chosen)
        self.figure.cellClicked.connect(self._clicked)
        self.figure.cellHovered.connect(self._hovered)
        # Keys of this tab only (named: Help > Keyboard Shortcuts lists them).
        self.key_actions: list[QAction] = []
        shift = Qt.KeyboardModifier.ShiftModifier
        for key, slot in (
            (Qt.Key.Key_Left, lambda: self.step_by(-1)),
            (Qt.Key.Key_Right, lambda: self.step_by(1)),
            (Qt.Key.Key_Space, self.play_button.toggle),
            (Qt.Key.Key_Up, lambda: self.move_cell(-1, 0)),
            (Qt.Key.Key_Down, lambda: self.move_cell(1, 0)),
            (shift | Qt.Key.Key_Left, lambda: self.move_cell(0, -1)),
            (shift | Qt.Key.Key_Right, lambda: self.move_cell(0, 1)),
        ):
            action = QAction(self)
            action.setShortcut(QKeySequence(key))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
            self.key_actions.append(action)
        self._retranslate()
        self._stage_row_chosen(0)
        self._fit_stages()

    KEY_TEXTS = (
        *(N_("Previous stage"), N_("Next stage"), N_("Play or pause the walk through the stages")),
        *(N_("Follow the query above"), N_("Follow the query below")),
        *(N_("Work out the cell on the left"), N_("Work out the cell on the right")),
    )

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:  # the user chose another language
            self._retranslate()
            # The colour bars' words ("1 hidden") are written when their levels change.
            plots = list(self.figure.plots)
            if self._mask_panel is not None:
                plots += [self._mask_panel.method1, self._mask_panel.method2]
            for plot in plots:
                if plot.colorbar is not None:
                    plot.colorbar.fit_labels()
            if self.isVisible():
                self.redraw()

    def _retranslate(self) -> None:
        """Write the stages' names and the controls' words in the language of now: at
        construction, and when the language changes while the window is open."""
        self.stages.set_names([_tr(STAGE_LABEL[key]) for key in self.keys])
        if self.trace is not None:
            self._label_stages(self.trace)
        self.prev_button.set_texts(_tr("◀ Previous"), "◀")
        self.next_button.set_texts(_tr("Next ▶"), "▶")
        self._name_play(self.play_button.isChecked())
        self.prev_button.setToolTip(_tr("Previous stage (←)"))
        self.next_button.setToolTip(_tr("Next stage (→)"))
        self.play_button.setToolTip(
            _tr("Walk through the stages that apply to this configuration (Space)")
        )
        self.head_label.setText(_tr("Head"))
        self.head_box.setToolTip(_tr("Which head the per-head matrices show"))
        for action, text in zip(self.key_actions, self.KEY_TEXTS, strict=True):
            action.setText(_tr(text))

    def resizeEvent(self, event: object) -> None:
        super().resizeEvent(event)
        self._fit_stages()
        self._fit_extras()
        QTimer.singleShot(0, self, self._weigh_bars)

    def _weigh_bars(self) -> None:
        """The stage's colour bars weighed on its rows as laid out (see `weigh_bars`)."""
        room = self.figure_view.height() + self.extras.isVisible() * self.extras.height()
        if self.isVisible() and self.figure.weigh_bars(self.figure_view.width(), room):
            self.redraw()  # (the mask leaves, the W's leave or come back: see weigh_bars)

    def _fit_stages(self) -> None:
        least = self.stages.minimumWidth()
        self.stages.fit()
        if self.stages.minimumWidth() != least:
            self._right.invalidate()  # (a sub-layout keeps its old least width otherwise)

    @property
    def softmax_panel(self) -> SoftmaxPanel:
        if self._softmax_panel is None:
            self._softmax_panel = SoftmaxPanel()
            self._softmax_panel.why.clicked.connect(self.whyScaling)
            self.extras.addWidget(self._softmax_panel)
            keep_own_keys(self._softmax_panel)  # built on first use, after the window
            send_undo_to_document(self._softmax_panel)
        return self._softmax_panel

    @property
    def mask_panel(self) -> MaskMethodsPanel:
        if self._mask_panel is None:
            self._mask_panel = MaskMethodsPanel()
            self.extras.addWidget(self._mask_panel)
            keep_own_keys(self._mask_panel)
        return self._mask_panel

    def show_lesson(self, text: str) -> None:
        """The loaded example's lesson under the stage (none: `text` empty)."""
        if text != self._lesson_text:
            self._lesson_text = text
            self._fit_extras()

    # ------------------------------------------------------------------ state from outside
    def set_trace(self, trace: Trace, summary: str = "") -> None:
        self.trace = trace
        self.summary = summary
        # A followed query beyond the new trace (fewer tokens, or a session opened with
        # them) is brought within it, so that what is drawn and what an export draws agree.
        # The chosen head is kept (see `shown_head`).
        if self.query is not None:
            self.query = min(self.query, trace.config.n_q - 1)
        self.head_box.show_heads(trace.heads)
        self._order_stages(step_keys(trace.config))
        self._label_stages(trace)
        if self.isVisible():
            self.redraw()

    def showEvent(self, event: object) -> None:
        super().showEvent(event)
        self._fit_stages()
        self.redraw()  # traces that arrived while hidden were only stored

    def set_query(self, row: int | None, column: tuple[str, int] | None = None) -> None:
        """Follow query `row`, the worked lines for the cell of `column` (see `column`),
        else for its first. The window follows a click here with this row again (to the
        board's matrices and back): the same row keeps its chosen cell."""
        if column is not None or row != self.query:
            self.column = column
        self.query = row
        if self.isVisible():
            self.redraw()

    def move_cell(self, rows: int, columns: int) -> None:  # (see `moved_cell`)
        if self.trace is not None:
            row, column = moved_cell(self.trace, self.query, self.column, rows, columns)
            self.set_query(row, column)
            self.querySelected.emit(row)

    def set_stage(self, key: str) -> None:
        self.stages.setCurrentIndex(self.keys.index(key))

    def step_by(self, delta: int) -> None:
        row = min(max(self.stages.currentIndex() + delta, 0), len(self.keys) - 1)
        self.stages.setCurrentIndex(row)

    def _order_stages(self, keys: tuple[str, ...]) -> None:
        """The tabs in the order of `keys`, the stage shown staying the one shown (the mask
        and the scale swap places when the raw scores are masked first)."""
        if keys == self.keys:
            return
        self.keys = keys
        self.stages.blockSignals(True)
        self.stages.set_names([_tr(STAGE_LABEL[key]) for key in keys])
        self.stages.setCurrentIndex(keys.index(self.stage))
        self.stages.blockSignals(False)
        row = self.stages.currentIndex()
        self.prev_button.setEnabled(row > 0)
        self.next_button.setEnabled(row < len(keys) - 1)

    # ------------------------------------------------------------------ drawing
    def mark_first_difference(self, key: str | None) -> None:
        """Mark the first stage whose arrays differ from A's (None: no mark)."""
        if key != self.first_difference:
            self.first_difference = key
            if self.trace is not None:
                self._label_stages(self.trace)

    def _label_stages(self, trace: Trace) -> None:
        self.stages.label(trace, self.first_difference)

    def _text_size_changed(self) -> None:
        self.lesson.setFont(formula_font(text_size.points(10.5)))
        if self.isVisible():
            self.redraw()  # the stage figure re-lays out for the new text size
            # The panels' and matrices' new fonts reach them after this (events, and their
            # own handlers of the change): weigh the room and the stage again once they have.
            QTimer.singleShot(0, self, self._redraw_if_shown)
        QTimer.singleShot(0, self, self._fit_stages)  # not after the tab is gone

    def _redraw_if_shown(self) -> None:
        if self.isVisible():
            self.redraw()

    def redraw(self) -> None:
        if self.trace is None:
            return
        trace = self.trace
        head = self.shown_head
        # The query may be set (a session's view) before the trace of its tokens arrives.
        query = None if self.query is None else min(self.query, trace.config.n_q - 1)
        room = self.figure_view.height() + self.extras.isVisible() * self.extras.height()
        width = self.figure_view.width() if self.isVisible() else None  # (room: see figure_need)
        self.figure.show_stage(trace, self.stage, head, query, self.summary, width, room)
        self.followed.setText(followed_text(trace, self.stage, head, query or 0, self.column))
        if self.stage == "softmax":
            self._show_extra(self.softmax_panel)
            self.softmax_panel.show_row(trace, head, query or 0)
        elif self.stage == "mask" and "weights_neg_inf" in trace.arrays:
            self._show_extra(self.mask_panel)
            self.mask_panel.show_methods(trace, head, query)
        else:
            self._show_extra(self.extras.widget(0))
        self._fit_extras()
        QTimer.singleShot(0, self, self._weigh_bars)
        self.drawn.emit()

    def _show_extra(self, page: QWidget) -> None:
        """Show `page` under the stage's matrices. The pages not shown take no width: a
        stacked widget is as wide as its widest page, and a page laid out at a larger text
        size, or in a longer language, would keep the window wider than a small screen."""
        self.extras.setCurrentWidget(page)
        for index in range(self.extras.count()):
            other = self.extras.widget(index)
            policy = other.sizePolicy()
            wanted = QSizePolicy.Policy.Preferred if other is page else QSizePolicy.Policy.Ignored
            if policy.horizontalPolicy() != wanted:
                policy.setHorizontalPolicy(wanted)
                other.setSizePolicy(policy)

    def _stage_row_chosen(self, row: int) -> None:
        if 0 <= row < len(self.keys):
            self.stage = self.keys[row]
            self.prev_button.setEnabled(row > 0)
            self.next_button.setEnabled(row < len(self.keys) - 1)
            self.redraw()
            self.stageChanged.emit(self.stage)

    def _head_chosen(self, index: int) -> None:
        self.redraw()
        self.headChanged.emit(index)

    def _name_play(self, on: bool) -> None:
        if on:
            self.play_button.set_texts(_tr("❚❚ Pause"), "❚❚")
        else:
            self.play_button.set_texts(_tr("▶ Play"), "▶")

    def _play(self, on: bool) -> None:
        self._name_play(on)
        if on:
            if self._next_applying() is None:
                self.stages.setCurrentIndex(0)  # from the end: start again
            self.timer.start()
        else:
            self.timer.stop()

    def _play_step(self) -> None:
        """Move on to the next stage that applies; a stage that does not (no mask, no
        dropout) shows only why, which Next still lands on but Play need not wait for."""
        row = self._next_applying()
        if row is None:
            self.play_button.setChecked(False)
        else:
            self.stages.setCurrentIndex(row)

    def _next_applying(self) -> int | None:
        later = range(self.stages.currentIndex() + 1, len(self.keys))
        if self.trace is None:
            return later[0] if later else None
        return next((row for row in later if self.trace.steps[row].applies), None)

    def _clicked(self, plot: MatrixPlot, row: int, col: int) -> None:
        if plot.shown is not None and ARRAY_INFO[plot.shown.name].rows == "q_tokens":
            self.set_query(row, (ARRAY_INFO[plot.shown.name].cols, col))
            self.querySelected.emit(row)

    def _hovered(self, plot: MatrixPlot, hover: CellHover | None) -> None:
        if hover is None or self.trace is None or plot.shown is None:
            QToolTip.hideText()
            return
        text = explain(self.trace, plot.shown.name, plot.shown.head, hover.row, hover.col)
        if hover.screen_pos is not None:
            QToolTip.showText(hover.screen_pos.toPoint(), text)
