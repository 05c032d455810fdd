"""The token embedding table: a QAbstractTableModel whose every edit is an undoable command.

Column 0 holds the token names, columns 1..d the embedding values. Edits from the view go
through `setData`, which refuses bad text (leaving the old value and emitting `inputRejected`
with the reason) and otherwise pushes a command onto the shared QUndoStack. Structural edits
(insert, remove, move, paste, randomize) push a snapshot command: simple, and exact on undo.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QUndoCommand, QUndoStack

from ..engine import num
from ..state import MAX_TOKENS, TokenSequence
from ..textinput import InputError, clean_token, parse_number, split_block

MAX_ROWS = MAX_TOKENS

AnyIndex = QModelIndex | QPersistentModelIndex


def _tr(text: str) -> str:
    return QCoreApplication.translate("EmbeddingTableModel", text)


class EmbeddingTableModel(QAbstractTableModel):
    """Token names and embedding values of one sequence (queries, or keys/values)."""

    inputRejected = Signal(QModelIndex, str)  # where the bad text was typed, and why
    sequenceChanged = Signal()  # after any change of content

    def __init__(self, undo_stack: QUndoStack, title: str, parent: object = None) -> None:
        super().__init__(parent)
        self.undo_stack = undo_stack
        self.title = title
        self._tokens: list[str] = []
        self._values = np.zeros((0, 0))
        self._sequence: TokenSequence | None = TokenSequence((), ())

    # ------------------------------------------------------------------ reading
    @property
    def d_in(self) -> int:
        return self._values.shape[1]

    @property
    def tokens(self) -> tuple[str, ...]:
        return tuple(self._tokens)

    @property
    def values(self) -> np.ndarray:
        view = self._values.view()
        view.flags.writeable = False
        return view

    def sequence(self) -> TokenSequence:
        """The table as immutable data; the same object until the next edit (cheap to reuse)."""
        if self._sequence is None:
            self._sequence = TokenSequence(
                tuple(self._tokens), tuple(map(tuple, self._values.tolist()))
            )
        return self._sequence

    # ------------------------------------------------------------------ Qt model API
    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._tokens)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else 1 + self._values.shape[1]

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if col == 0:
                return self._tokens[row]
            value = float(self._values[row, col - 1])
            return repr(value) if role == Qt.ItemDataRole.EditRole else f"{value:.6g}"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col == 0:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 0:
                return _tr("Token {0}: {1!r}").format(row + 1, self._tokens[row])
            value = float(self._values[row, col - 1])
            return f"x{row + 1}[{col}] = {num(value)}"
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return _tr("token") if section == 0 else str(section)
        return str(section + 1)

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEditable

    def setData(self, index: AnyIndex, value: object, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        row, col = index.row(), index.column()
        text = value if isinstance(value, str) else str(value)
        try:
            if col == 0:
                new: str | float = clean_token(text)
                old: str | float = self._tokens[row]
            else:
                new = parse_number(text)
                old = float(self._values[row, col - 1])
        except InputError as error:
            kept = self.data(index, Qt.ItemDataRole.DisplayRole)
            message = _tr("{0} The previous value {1!r} is kept.").format(str(error), kept)
            self.inputRejected.emit(QModelIndex(index), message)
            return False
        if new == old and type(new) is type(old):
            return True
        self.undo_stack.push(_SetCellCommand(self, row, col, old, new))
        return True

    # ------------------------------------------------------------------ used by commands
    def _write_cell(self, row: int, col: int, value: str | float) -> None:
        if col == 0:
            self._tokens[row] = str(value)
        else:
            self._values[row, col - 1] = float(value)
        self._sequence = None
        index = self.index(row, col)
        self.dataChanged.emit(index, index)
        self.sequenceChanged.emit()

    def restore(self, sequence: TokenSequence) -> None:
        """Replace the whole table (no undo record: commands and loaders call this)."""
        self.beginResetModel()
        self._tokens = list(sequence.tokens)
        width = len(sequence.embeddings[0]) if sequence.embeddings else self._values.shape[1]
        self._values = np.array(sequence.embeddings, dtype=np.float64).reshape(
            len(sequence.tokens), width
        )
        self._sequence = sequence
        self.endResetModel()
        self.sequenceChanged.emit()

    # ------------------------------------------------------------------ undoable edits
    def replace(self, sequence: TokenSequence, text: str) -> None:
        """Replace the table in one undoable step."""
        before = self.sequence()
        if sequence != before:
            self.undo_stack.push(_SnapshotCommand(self, before, sequence, text))

    def _edited(self, tokens: list[str], values: np.ndarray, text: str) -> None:
        self.replace(TokenSequence(tuple(tokens), tuple(map(tuple, values.tolist()))), text)

    def insert_tokens(
        self, row: int, count: int = 1, rng: np.random.Generator | None = None
    ) -> None:
        """Insert `count` new tokens before `row`, with random values like the tutorials' (0..1)."""
        rng = rng or np.random.default_rng()
        row = max(0, min(row, len(self._tokens)))
        count = min(count, MAX_ROWS - len(self._tokens))
        if count <= 0:
            return
        names = self._new_names(count)
        fresh = rng.uniform(0, 1, size=(count, self.d_in)).round(2)
        tokens = self._tokens[:row] + names + self._tokens[row:]
        values = np.concatenate([self._values[:row], fresh, self._values[row:]])
        self._edited(tokens, values, _tr("Add token"))

    def _new_names(self, count: int) -> list[str]:
        taken, names, k = set(self._tokens), [], len(self._tokens) + 1
        while len(names) < count:
            name = f"tok{k}"
            if name not in taken:
                names.append(name)
            k += 1
        return names

    def remove_tokens(self, rows: Iterable[int]) -> None:
        drop = sorted({r for r in rows if 0 <= r < len(self._tokens)})
        if not drop:
            return
        keep = [r for r in range(len(self._tokens)) if r not in set(drop)]
        text = _tr("Remove token") if len(drop) == 1 else _tr("Remove tokens")
        self._edited([self._tokens[r] for r in keep], self._values[keep], text)

    def move_token(self, row: int, delta: int) -> int:
        """Move one token up (delta -1) or down (+1); returns its new row."""
        target = row + delta
        if not (0 <= row < len(self._tokens) and 0 <= target < len(self._tokens)):
            return row
        order = list(range(len(self._tokens)))
        order[row], order[target] = order[target], order[row]
        self._edited([self._tokens[r] for r in order], self._values[order], _tr("Move token"))
        return target

    def randomize(self, rng: np.random.Generator | None = None) -> None:
        rng = rng or np.random.default_rng()
        values = rng.uniform(0, 1, size=self._values.shape).round(2)
        self._edited(list(self._tokens), values, _tr("Randomize embeddings"))

    def with_dimension_added(self, rng: np.random.Generator) -> TokenSequence:
        column = rng.uniform(0, 1, size=(len(self._tokens), 1)).round(2)
        values = np.concatenate([self._values, column], axis=1)
        return TokenSequence(tuple(self._tokens), tuple(map(tuple, values.tolist())))

    def with_dimension_removed(self, col: int) -> TokenSequence:
        values = np.delete(self._values, col, axis=1)
        rows = tuple(map(tuple, values.tolist())) if values.shape[1] else ((),) * len(self._tokens)
        return TokenSequence(tuple(self._tokens), rows)

    def paste(self, top: int, left: int, text: str) -> str | None:
        """Paste a block at (top, left); rows are added as needed. Returns an error or None.

        A block starting in the token column takes its first column as token names. Nothing
        changes when any cell is bad: the message names the first one.
        """
        cells = split_block(text)
        if not cells:
            return _tr("The clipboard holds no table to paste.")
        n_rows, n_cols = len(cells), len(cells[0])
        for r, row_cells in enumerate(cells):
            if len(row_cells) != n_cols:
                return _tr("Row {0} of the block has {1} cells but row 1 has {2}.").format(
                    r + 1, len(row_cells), n_cols
                ) + _tr(" Nothing was pasted.")
        if top + n_rows > MAX_ROWS:
            return _tr(
                "The block has {0:,} rows, but pasted from row {1} only {2:,} fit: a table "
                "holds at most {3:,} tokens."
            ).format(n_rows, top + 1, MAX_ROWS - top, MAX_ROWS) + _tr(" Nothing was pasted.")
        value_cols = n_cols - (1 if left == 0 else 0)
        first_value_col = max(left - 1, 0)
        if first_value_col + value_cols > self.d_in:
            return _tr(
                "The block is {0} values wide but only {1} dimensions fit from there: add "
                "dimensions first."
            ).format(value_cols, self.d_in - first_value_col) + _tr(" Nothing was pasted.")
        tokens = list(self._tokens)
        values = self._values.copy()
        grow = top + n_rows - len(tokens)
        if grow > 0:
            tokens += self._new_names(grow)
            values = np.concatenate([values, np.zeros((grow, self.d_in))])
        for r, row_cells in enumerate(cells):
            for c, cell in enumerate(row_cells):
                col = left + c
                try:
                    if col == 0:
                        tokens[top + r] = clean_token(cell)
                    else:
                        values[top + r, col - 1] = parse_number(cell)
                except InputError as error:
                    return _tr("Row {0}, column {1} of the block: {2}").format(
                        r + 1, c + 1, error
                    ) + _tr(" Nothing was pasted.")
        self._edited(tokens, values, _tr("Paste"))
        return None


class _SetCellCommand(QUndoCommand):
    def __init__(self, model: EmbeddingTableModel, row: int, col: int, old: object, new: object):
        label = "token" if col == 0 else f"x{row + 1}[{col}]"
        super().__init__(_tr("Edit {0}").format(label))
        self.model, self.row, self.col, self.old, self.new = model, row, col, old, new

    def redo(self) -> None:
        self.model._write_cell(self.row, self.col, self.new)

    def undo(self) -> None:
        self.model._write_cell(self.row, self.col, self.old)


class _SnapshotCommand(QUndoCommand):
    def __init__(
        self, model: EmbeddingTableModel, before: TokenSequence, after: TokenSequence, text: str
    ) -> None:
        super().__init__(text)
        self.model, self.before, self.after = model, before, after

    def redo(self) -> None:
        self.model.restore(self.after)

    def undo(self) -> None:
        self.model.restore(self.before)
