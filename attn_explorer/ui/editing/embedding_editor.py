"""The token embedding editor: two tables (queries; keys & values) and the edits around them."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import (
    QItemSelection,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QBrush, QGuiApplication, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QGridLayout,
    QHeaderView,
    QLineEdit,
    QSizePolicy,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTabWidget,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.engine import Problem
from attn_explorer.io.textinput import join_block
from attn_explorer.text.i18n import N_
from attn_explorer.text.problems import problem_text
from attn_explorer.ui.editing.document import Document
from attn_explorer.ui.editing.embedding_model import (
    MAX_ROWS,
    NUMBER_ALIGNMENT,
    EmbeddingTableModel,
)
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.keys import commit_typed_edits
from attn_explorer.ui.shortcut_rows import action_rows, keys_text, name_for_shortcuts
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import ErrorLabel

# Keys the table answers to in keyPressEvent, listed in Help > Keyboard Shortcuts. Made into
# QKeySequences when listed: a standard key needs the running application's platform.
TABLE_KEYS: tuple[tuple[str, tuple[QKeySequence.StandardKey | Qt.Key, ...]], ...] = (
    (N_("Copy the selected cells (tab-separated)"), (QKeySequence.StandardKey.Copy,)),
    (N_("Paste a block at the current cell"), (QKeySequence.StandardKey.Paste,)),
    (N_("Set the selected values to 0"), (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)),
)


class _CellDelegate(QStyledItemDelegate):
    """Qt's editor, holding a name of any length: a line edit keeps at most 32,767 characters
    by default, and opening a longer (pasted) name and pressing Enter cut it short.

    A number cell is described for painting in one call (`initStyleOption`): Qt's own asks
    the model for seven roles a cell, each a call from Qt into Python, 1,120 calls and some
    17-21 ms of the window's thread to paint 160 cells of a real layer's 512 × 768 rows. The
    cell reads as the model's `data()` gives it (its text and alignment; no font, colour,
    check box, icon or background of its own), which a test holds pixel for pixel."""

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        model = index.model()
        column = index.column()
        if column == 0 or not isinstance(model, EmbeddingTableModel):
            super().initStyleOption(option, index)
            return
        option.index = index
        option.displayAlignment = NUMBER_ALIGNMENT
        option.features |= QStyleOptionViewItem.ViewItemFeature.HasDisplay
        option.text = model.number_text(index.row(), column)
        option.backgroundBrush = QBrush()

    def createEditor(self, parent: QWidget, option: object, index: QModelIndex) -> QWidget:
        editor = super().createEditor(parent, option, index)
        if isinstance(editor, QLineEdit):
            editor.setMaxLength(2**31 - 1)
        return editor


class EmbeddingTable(QTableView):
    """A spreadsheet-like view: type to edit, Ctrl+C / Ctrl+V blocks, refusals shown in place."""

    message = Signal(str)

    def __init__(self, model: EmbeddingTableModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Token, then dimensions 1, 2, 3, as the matrices read, in every language.
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.setModel(model)
        self.table = model
        self.setItemDelegate(_CellDelegate(self))
        self.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.setAlternatingRowColors(True)
        model.inputRejected.connect(self._rejected)
        # Pastes, dimensions, randomizing and their undo reset the model, and a reset view
        # forgets its current cell: the next Ctrl+V went to the first token's name.
        self._place: tuple[int, int] | None = None
        self._selected: list[tuple[int, int, int, int]] = []
        model.modelAboutToBeReset.connect(self._remember_place)
        model.modelReset.connect(self._restore_place)
        self._factor = text_size.factor
        text_size.changed.connect(self._size_cells)
        self._size_cells()
        for column in range(1, self.table.columnCount()):
            self.setColumnWidth(column, round(64 * self._factor))
        self._fit_token_column()

    def _size_cells(self) -> None:
        """Rows and columns in proportion to the text size, so that larger text is not cut.
        A column the user widened keeps its width relative to the text."""
        factor, ratio = text_size.factor, text_size.factor / self._factor
        self._factor = factor
        # Read first: a new default section size also resizes the columns at the old default.
        widths = [self.columnWidth(column) for column in range(self.table.columnCount())]
        self.horizontalHeader().setMinimumSectionSize(round(40 * factor))
        self.horizontalHeader().setDefaultSectionSize(round(64 * factor))
        self.verticalHeader().setDefaultSectionSize(round(24 * factor))
        for column, width in enumerate(widths):
            self.setColumnWidth(column, round(width * ratio))

    def _remember_place(self) -> None:
        current = self.currentIndex()
        self._place = (current.row(), current.column()) if current.isValid() else None
        self._selected = [
            (r.top(), r.left(), r.bottom(), r.right()) for r in self.selectionModel().selection()
        ]

    def _restore_place(self) -> None:
        """The current cell and selection as they were, within the table's new size."""
        rows, cols = self.table.rowCount(), self.table.columnCount()
        if not rows or not cols:
            return
        selection = QItemSelection()
        for top, left, bottom, right in self._selected:
            if top < rows and left < cols:
                corner = self.table.index(min(bottom, rows - 1), min(right, cols - 1))
                selection.select(self.table.index(top, left), corner)
        model = self.selectionModel()
        if self._place is not None:
            row, col = min(self._place[0], rows - 1), min(self._place[1], cols - 1)
            model.setCurrentIndex(self.table.index(row, col), QItemSelectionModel.NoUpdate)
        model.select(selection, QItemSelectionModel.ClearAndSelect)

    def _fit_token_column(self) -> None:
        self.setColumnWidth(0, round(96 * text_size.factor))

    def _rejected(self, index: QModelIndex, text: str) -> None:
        rect = self.visualRect(index)
        QToolTip.showText(self.viewport().mapToGlobal(rect.bottomLeft()), text, self)
        self.message.emit(text)

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab walks the cells, and from the last cell (Shift+Tab: the first) on to the next
        widget. Qt's table wraps around, so Tab would never leave it: the toolbar, the tabs
        and the matrices could not be reached by keyboard."""
        index = self.currentIndex()
        rows, cols = self.table.rowCount(), self.table.columnCount()
        at_end = (
            not index.isValid()
            or (next and (index.row(), index.column()) == (rows - 1, cols - 1))
            or (not next and (index.row(), index.column()) == (0, 0))
        )
        if at_end and self.state() != QAbstractItemView.State.EditingState:
            return QWidget.focusNextPrevChild(self, next)
        return super().focusNextPrevChild(next)

    def current_row(self) -> int:
        index = self.currentIndex()
        return index.row() if index.isValid() else self.table.rowCount() - 1

    def selected_rows(self) -> list[int]:
        rows = {i.row() for i in self.selectionModel().selectedIndexes()}
        if not rows and self.currentIndex().isValid():
            rows = {self.currentIndex().row()}
        return sorted(rows)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        editing = self.state() == QAbstractItemView.State.EditingState
        if event.matches(QKeySequence.StandardKey.Copy):
            self.copy_selection()
        elif event.matches(QKeySequence.StandardKey.Paste):
            self.paste()
        elif event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and plain and not editing:
            self.clear_selection()
        else:
            super().keyPressEvent(event)

    def clear_selection(self) -> None:
        """Delete: the selected values (or the current one) become 0, as in a spreadsheet.
        Read as ranges: a whole 4096 × 1024 table is one range, not four million cells."""
        ranges = [
            (r.top(), r.left(), r.bottom(), r.right()) for r in self.selectionModel().selection()
        ]
        current = self.currentIndex()
        if not ranges and current.isValid():
            ranges = [(current.row(), current.column(), current.row(), current.column())]
        if ranges:
            self.message.emit(self.table.clear(ranges) or "")

    def copy_selection(self) -> None:
        indexes = self.selectionModel().selectedIndexes()
        if not indexes:
            return
        rows = sorted({i.row() for i in indexes})
        cols = sorted({i.column() for i in indexes})
        block = [
            [str(self.table.data(self.table.index(r, c), Qt.ItemDataRole.EditRole)) for c in cols]
            for r in rows
        ]
        QGuiApplication.clipboard().setText(join_block(block))

    def paste(self, text: str | None = None) -> None:
        text = QGuiApplication.clipboard().text() if text is None else text
        index = self.currentIndex()
        top, left = (index.row(), index.column()) if index.isValid() else (0, 0)
        error = self.table.paste(top, left, text)
        if error:
            QToolTip.showText(
                self.viewport().mapToGlobal(self.visualRect(index).bottomLeft()), error, self
            )
        self.message.emit(error or "")

    def select_row(self, row: int) -> None:
        if 0 <= row < self.table.rowCount():
            self.selectionModel().setCurrentIndex(
                self.table.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows,
            )


class EmbeddingEditor(QWidget):
    """Tabs for the query table and the key/value table, a toolbar, and a message line."""

    def __init__(self, document: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = document
        self._rng: np.random.Generator | None = None  # see `rng`
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 4)
        self.buttons = QGridLayout()
        self.buttons.setSpacing(2)
        layout.addLayout(self.buttons)
        self.tabs = QTabWidget()
        self.query_table = EmbeddingTable(document.queries)
        self.kv_table = EmbeddingTable(document.kv)
        self.tabs.addTab(self.query_table, _tr("Queries X"))
        self.tabs.addTab(self.kv_table, _tr("Keys && values Xₖᵥ"))
        layout.addWidget(self.tabs, 1)
        self.error = ErrorLabel()
        layout.addWidget(self.error)
        for table in (self.query_table, self.kv_table):
            table.message.connect(self.error.show_message)
        self.actions: dict[str, QAction] = {}
        self._add_actions()
        document.controlsChanged.connect(self._sync_cross)
        self._sync_cross()

    @property
    def rng(self) -> np.random.Generator:
        """The generator of new tokens' and dimensions' random values, made when first
        needed: importing numpy.random is about 2 % of the window's start (31 M of 1,611 M
        instructions to its first paint)."""
        if self._rng is None:
            self._rng = np.random.default_rng()
        return self._rng

    def _action(
        self,
        key: str,
        text: str,
        tip: str,
        shortcut: QKeySequence | str | None,
        slot,
        menu_text: str | None = None,
    ) -> None:
        """An editing action: a button labelled `text` here, an Edit menu entry `menu_text`."""
        action = QAction(menu_text or text, self)
        action.setIconText(text)
        action.setToolTip(tip)
        action.setStatusTip(tip)
        name_for_shortcuts(action, tip)  # listed by what it does, not by its button's "↑"
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            keys = QKeySequence(shortcut).toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(_tr("{0} ({1} in the table)").format(tip, keys))
        action.triggered.connect(lambda _checked=False, run=slot: self._run(run))
        button = QToolButton()
        button.setDefaultAction(action)
        button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        count = len(self.actions)
        self.buttons.addWidget(button, count // 4, count % 4)
        self.addAction(action)
        self.actions[key] = action

    def _run(self, slot) -> None:
        """Take in a value typed into a cell first, then act, and keep the keyboard in the
        table: the action rebuilds the table, which would close the cell's editor unsaved
        (Alt+↑ after typing 0.99 would move the token and drop the 0.99) and leave no widget
        focused."""
        table = self.table()
        focus = QApplication.focusWidget()
        in_table = focus is not None and (focus is table or table.isAncestorOf(focus))
        commit_typed_edits(self.window())
        slot()
        if in_table:
            table.setFocus()

    def _add_actions(self) -> None:
        self._action(
            "add_token",
            _tr("+ Token"),
            _tr("Insert a token after the current one"),
            "Ctrl+I",  # not Ctrl+Shift+=: on a US keyboard that is Ctrl++, larger text
            self.add_token,
            _tr("Insert token"),
        )
        self._action(
            "remove_token",
            _tr("− Token"),
            _tr("Remove the selected tokens"),
            "Ctrl+Del",
            self.remove_tokens,
            _tr("Remove tokens"),
        )
        self._action(
            "move_up",
            _tr("↑"),
            _tr("Move the token up"),
            "Alt+Up",
            lambda: self.move(-1),
            _tr("Move token up"),
        )
        self._action(
            "move_down",
            _tr("↓"),
            _tr("Move the token down"),
            "Alt+Down",
            lambda: self.move(1),
            _tr("Move token down"),
        )
        self._action(
            "add_dim",
            _tr("+ Dim"),
            _tr("Add an embedding dimension (to both tables)"),
            None,
            self.add_dimension,
            _tr("Add dimension"),
        )
        self._action(
            "remove_dim",
            _tr("− Dim"),
            _tr("Remove the current embedding dimension (from both tables)"),
            None,
            self.remove_dimension,
            _tr("Remove dimension"),
        )
        self._action(
            "randomize",
            _tr("Randomize"),
            _tr("Fill this table with random values in [0, 1)"),
            "Ctrl+Shift+R",
            self.randomize,
            _tr("Randomize values"),
        )
        self._action(
            "paste",
            _tr("Paste"),
            _tr(
                "Paste a block copied from a spreadsheet (tab- or comma-separated) at the "
                "current cell"
            ),
            None,
            lambda: self.table().paste(),
            _tr("Paste block"),
        )

    def key_rows(self) -> list[tuple[str, str]]:
        """(what, keys) of every key the tables answer to, for Help > Keyboard Shortcuts."""
        rows = action_rows(self.actions.values())
        # A standard key by its first binding: Ctrl+C, not also Ctrl+Ins and the Copy key.
        rows += [(_tr(text), keys_text(map(QKeySequence, keys))) for text, keys in TABLE_KEYS]
        return rows

    def table(self) -> EmbeddingTable:
        return self.kv_table if self.tabs.currentIndex() == 1 else self.query_table

    def _sync_cross(self) -> None:
        on = self.doc.controls.cross
        if self.tabs.isTabEnabled(1) == on and self.tabs.tabToolTip(1):
            return
        self.tabs.setTabEnabled(1, on)
        self.tabs.setTabToolTip(
            1,
            _tr("The key/value sequence of cross-attention.")
            if on
            else _tr("Tick “Cross-attention” to use a second sequence for keys and values."),
        )

    # ------------------------------------------------------------------ edits
    def add_token(self) -> None:
        table = self.table()
        if table.table.rowCount() >= MAX_ROWS:
            full = _tr("The table already holds the maximum of {0:,} tokens: remove one first.")
            self.error.show_message(full.format(MAX_ROWS))
            return
        row = table.current_row() + 1
        table.table.insert_tokens(row, 1, self.rng)
        table.select_row(row)

    def remove_tokens(self) -> None:
        table = self.table()
        rows = table.selected_rows()
        if len(rows) >= table.table.rowCount():
            self.error.show_message(_tr("At least one token must stay."))
            return
        table.table.remove_tokens(rows)
        table.select_row(min(rows[0], table.table.rowCount() - 1) if rows else 0)

    def move(self, delta: int) -> None:
        table = self.table()
        row = table.current_row()
        table.select_row(table.table.move_token(row, delta))

    def add_dimension(self) -> None:
        self.error.show_message(self.doc.add_dimension(self.rng) or "")

    def remove_dimension(self) -> None:
        column = self.table().currentIndex().column()
        dim = column - 1 if column >= 1 else self.doc.queries.d_in - 1  # token column: the last
        self.error.show_message(self.doc.remove_dimension(dim) or "")

    def randomize(self) -> None:
        self.table().table.randomize(self.rng)

    def show_problems(self, problems: list[Problem]) -> None:
        mine = [problem_text(p) for p in problems if p.field in ("tokens", "embeddings")]
        self.error.show_message("\n".join(mine))


def table_entry(action: QAction, parent: QObject) -> QAction:
    """The Edit menu's entry for a table action: its keys shown as keys of the table.

    The action's own shortcut works only while the table has the keyboard; shown as is in
    the menu, Ctrl+I would read as a key of the whole window and do nothing on the matrices.
    """
    keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
    entry = QAction(
        action.text() + (_tr("\t{0} in the table").format(keys) if keys else ""), parent
    )
    entry.setStatusTip(action.statusTip())
    entry.triggered.connect(action.trigger)
    entry.setEnabled(action.isEnabled())
    action.changed.connect(lambda: entry.setEnabled(action.isEnabled()))
    return entry
