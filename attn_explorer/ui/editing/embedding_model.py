"""The token embedding table: a QAbstractTableModel whose every edit is an undoable command.

Column 0 holds the token names, columns 1..d the embedding values. Edits from the view go
through `setData`, which refuses bad text (leaving the old value and emitting `inputRejected`
with the reason) and otherwise records an undo step on the shared QUndoStack. Every step keeps
only the rows it changed (`Splice`), the dimension it added or removed (`ColumnEdit`) or the
one cell (`CellEdit`): moving a token in a 4096-row table keeps two rows for undo, not the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np
from PySide6.QtCore import (
    QAbstractTableModel,
    QLocale,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QUndoStack

from attn_explorer.engine.given import ArrayRows
from attn_explorer.io.textinput import (
    InputError,
    UnclosedQuoteError,
    clean_token,
    parse_number,
    split_block,
)
from attn_explorer.model.state import MAX_TOKENS, TokenSequence
from attn_explorer.text.i18n import pgettext
from attn_explorer.text.numbers import num
from attn_explorer.text.tokens import label_token
from attn_explorer.ui.editing.table_edits import CellEdit, ColumnEdit, Rows, Splice
from attn_explorer.ui.editing.undo import Edit, record
from attn_explorer.ui.i18n import tr as _tr

MAX_ROWS = MAX_TOKENS
# From this many numbers a table's sequence is an ArrayRows over its array, not tuples of
# floats (a GPT-2 layer at 512 tokens has 393,216; the tutorials' tables a few dozen).
ARRAY_ROWS_FROM = 65_536

AnyIndex = QModelIndex | QPersistentModelIndex
RowMap = Callable[[int], int]  # a row's number on one side of an edit, from the other side's


NUMBER_ALIGNMENT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


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
        # Given where each row goes in an edit that inserts, removes or moves rows (and where
        # each comes from, for its undo), the edit that keeps the row its owner follows on
        # its token: the document's followed query.
        self.follow_rows: Callable[[RowMap, RowMap], Edit | None] | None = None

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
        """The table as immutable data; the same object until the next edit (cheap to reuse).

        A big table (a real layer's rows, edited) is handed over as its own array, frozen
        (`_write_cell` copies it before the next write): its 393,216 Python floats took
        some 100 ms of the window's thread on every cell edited, made and compared again."""
        if self._sequence is None:
            values = self._values
            if values.size >= ARRAY_ROWS_FROM and values.dtype == np.float64:
                values.flags.writeable = False
                rows: tuple | ArrayRows = ArrayRows(values)
            else:
                rows = tuple(map(tuple, values.tolist()))
            self._sequence = TokenSequence(tuple(self._tokens), rows)
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
            if col == 0:  # edited as typed; shown with its line breaks and tabs visible
                token = self._tokens[row]
                return token if role == Qt.ItemDataRole.EditRole else label_token(token)
            if role == Qt.ItemDataRole.EditRole:
                return repr(float(self._values[row, col - 1]))
            return self.number_text(row, col)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col == 0:
                return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
            return int(NUMBER_ALIGNMENT)
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == 0:
                return _tr("Token {0}: {1!r}").format(row + 1, self._tokens[row])
            value = float(self._values[row, col - 1])
            return f"x{row + 1}[{col}] = {num(value)}"
        return None

    def number_text(self, row: int, col: int) -> str:
        """The text a number cell shows (column `col` ≥ 1 of the table, the token's at 0)."""
        return f"{float(self._values[row, col - 1]):.6g}"

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
                new = parse_number(text, _thousands_comma())
                old = float(self._values[row, col - 1])
        except InputError as error:
            kept = self.data(index, Qt.ItemDataRole.DisplayRole)
            message = _tr("{0} The previous value {1!r} is kept.").format(str(error), kept)
            self.inputRejected.emit(QModelIndex(index), message)
            return False
        if repr(new) == repr(old):  # the same type and value; -0.0 is not 0.0
            return True
        label = _tr("token") if col == 0 else f"x{row + 1}[{col}]"
        text = pgettext("undo", "Edit {0}").format(label)
        record(self.undo_stack, text, [CellEdit(self, row, col, old, new)])
        return True

    # ------------------------------------------------------------------ used by edits
    def _write_cell(self, row: int, col: int, value: str | float) -> None:
        if col == 0:
            self._tokens[row] = str(value)
        else:
            if not self._values.flags.writeable:  # shared with a sequence or an undo step
                self._values = self._values.copy()
            self._values[row, col - 1] = float(value)
        self._sequence = None
        index = self.index(row, col)
        self.dataChanged.emit(index, index)
        self.sequenceChanged.emit()

    def _rows(self, start: int, stop: int) -> Rows:
        """Rows start..stop-1 as an undo step keeps them: a read-only table's own rows (it is
        copied before it is ever written), a copy of a table the cells are written into."""
        values = self._values[start:stop]
        return Rows(
            tuple(self._tokens[start:stop]), values.copy() if values.flags.writeable else values
        )

    def _splice(self, start: int, count: int, rows: Rows) -> None:
        """Replace rows start..start+count-1 by `rows` (the whole table may change width)."""
        tokens = self._tokens[:start] + list(rows.tokens) + self._tokens[start + count :]
        if start == 0 and count == len(self._tokens):
            values = rows.values  # read-only: `_write_cell` copies it before writing
        else:
            values = np.concatenate(
                [self._values[:start], rows.values, self._values[start + count :]]
            )
        self._set_table(tokens, values)

    def _set_table(
        self, tokens: list[str], values: np.ndarray, sequence: TokenSequence | None = None
    ) -> None:
        """`sequence`, where the caller has the new table as one already, is kept as the
        table's: the config then holds the very rows object it was given (a real layer's
        rows are checked and compared by identity, not converted again)."""
        self.beginResetModel()
        self._tokens, self._values = tokens, values
        self._sequence = sequence
        self.endResetModel()
        self.sequenceChanged.emit()

    def restore(self, sequence: TokenSequence) -> None:
        """Replace the whole table (no undo record: loaders call this)."""
        self.beginResetModel()
        self._tokens = list(sequence.tokens)
        self._values = _array(sequence, self._values.shape[1])
        self._sequence = sequence
        self.endResetModel()
        self.sequenceChanged.emit()

    # ------------------------------------------------------------------ undoable edits
    def replacement(self, sequence: TokenSequence) -> Edit | None:
        """The edit that turns this table into `sequence`, or None when they are equal."""
        before = self.sequence()
        if sequence == before:
            return None
        after = Rows(tuple(sequence.tokens), _array(sequence, self.d_in))
        return _Replacement(self, self._rows(0, len(self._tokens)), after, before, sequence)

    def replace(self, sequence: TokenSequence, text: str) -> None:
        """Replace the table in one undoable step."""
        record(self.undo_stack, text, [self.replacement(sequence)])

    def insert_tokens(
        self, row: int, count: int = 1, rng: np.random.Generator | None = None
    ) -> None:
        """Insert `count` new tokens before `row`, with random values like the tutorials' (0..1)."""
        rng = rng or np.random.default_rng()
        row = max(0, min(row, len(self._tokens)))
        count = min(count, MAX_ROWS - len(self._tokens))
        if count <= 0:
            return
        fresh = Rows(tuple(self._new_names(count)), _random_values(rng, (count, self.d_in)))
        splice = Splice(self, row, self._rows(row, row), fresh)
        self._record_rows(
            pgettext("undo", "Add token"),
            [splice],
            lambda r: r + count if r >= row else r,
            lambda r: r if r < row else max(r - count, row),  # a new one: the one after it
        )

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
        runs: list[tuple[int, int]] = []  # (start, stop) of consecutive rows
        for r in drop:
            if runs and runs[-1][1] == r:
                runs[-1] = (runs[-1][0], r + 1)
            else:
                runs.append((r, r + 1))
        empty = Rows((), np.zeros((0, self.d_in)))
        # Last run first, so that the earlier runs' row numbers still hold when applied.
        edits = [Splice(self, a, self._rows(a, b), empty) for a, b in reversed(runs)]
        if len(drop) == 1:
            text = pgettext("undo", "Remove token")
        else:
            text = pgettext("undo", "Remove tokens")
        # A row keeps its token; a removed row goes to the token that took its place.
        dropped = set(drop)
        kept = [r for r in range(len(self._tokens)) if r not in dropped]
        self._record_rows(
            text,
            edits,
            lambda r: r - sum(1 for d in drop if d < r),
            lambda r: kept[min(r, len(kept) - 1)],
        )

    def move_token(self, row: int, delta: int) -> int:
        """Move one token up (delta -1) or down (+1); returns its new row."""
        target = row + delta
        if not (0 <= row < len(self._tokens) and 0 <= target < len(self._tokens)):
            return row
        top = min(row, target)
        pair = self._rows(top, top + 2)
        swapped = Rows(pair.tokens[::-1], pair.values[::-1].copy())
        moved = {row: target, target: row}
        splice = Splice(self, top, pair, swapped)
        swap = lambda r: moved.get(r, r)  # noqa: E731 (its own inverse)
        self._record_rows(pgettext("undo", "Move token"), [splice], swap, swap)
        return target

    def _record_rows(self, text: str, edits: list[Edit], moved: RowMap, back: RowMap) -> None:
        """Record an edit that moves rows (`moved`: a row's number after it; `back`: before
        it, for the undo), in one step with what follows a row (applied first, reverted last:
        the table's change, on either side, already sees where the followed row is)."""
        follow = self.follow_rows(moved, back) if self.follow_rows is not None else None
        record(self.undo_stack, text, [follow, *edits])

    def randomize(self, rng: np.random.Generator | None = None) -> None:
        rng = rng or np.random.default_rng()
        n = len(self._tokens)
        after = Rows(tuple(self._tokens), _random_values(rng, self._values.shape))
        edit = Splice(self, 0, self._rows(0, n), after)
        record(self.undo_stack, pgettext("undo", "Randomize embeddings"), [edit])

    def clear(self, ranges: Iterable[tuple[int, int, int, int]]) -> str | None:
        """Set the values in `ranges` (top, left, bottom, right, inclusive; column 0 is the
        token) to 0 in one undo step, as Delete clears spreadsheet cells. A token keeps its
        name: a token needs one. Returns a message when only token names were chosen.

        The step keeps only the rows the ranges touch: one block per run of touched rows.
        """
        boxes = []
        for top, left, bottom, right in ranges:
            top, bottom = max(top, 0), min(bottom, len(self._tokens) - 1)
            left, right = max(left, 1), min(right, self.d_in)
            if top <= bottom and left <= right:
                boxes.append((top, bottom, left, right))
        if not boxes:
            return _tr("A token needs a name: Delete clears values, not token names.")
        runs: list[list[int]] = []  # [first, last] row of each run of touched rows
        for top, bottom, _, _ in sorted(boxes):
            if runs and top <= runs[-1][1] + 1:
                runs[-1][1] = max(runs[-1][1], bottom)
            else:
                runs.append([top, bottom])
        edits = []
        for first, last in runs:
            before = self._rows(first, last + 1)
            values = before.values.copy()
            for top, bottom, left, right in boxes:
                if first <= top <= last:  # every box lies in one run
                    values[top - first : bottom - first + 1, left - 1 : right] = 0.0
            after = Rows(before.tokens, values)
            if after != before:
                edits.append(Splice(self, first, before, after))
        if edits:
            record(self.undo_stack, pgettext("undo", "Clear values"), edits)
        return None

    def dimension_added(self, rng: np.random.Generator) -> Edit:
        """The edit that appends one random dimension (the caller records it)."""
        column = _random_values(rng, (len(self._tokens), 1))
        return ColumnEdit(self, self.d_in, column, insert=True)

    def dimension_removed(self, col: int) -> Edit:
        """The edit that removes dimension `col` (0-based; the caller records it)."""
        return ColumnEdit(self, col, self._values[:, col : col + 1].copy(), insert=False)

    def paste(self, top: int, left: int, text: str) -> str | None:
        """Paste a block at (top, left); rows are added as needed. Returns an error or None.

        A block starting in the token column takes its first column as token names. Nothing
        changes when any cell is bad: the message names the first one. A quote that never
        closes is such a cell: read as written it would make the rest of the block one name.
        """
        # "0,55" is one number where the language writes decimal commas, two cells elsewhere.
        try:
            cells = split_block(text, decimal_comma=QLocale().decimalPoint() == ",")
        except UnclosedQuoteError as error:
            return _tr(
                'Row {0}, column {1} of the block starts with a quote (") that is never '
                "closed, so the rest of the block would be one cell: remove the quote or close "
                "it."
            ).format(error.row, error.column) + _tr(" Nothing was pasted.")
        if not cells:
            return _tr("The clipboard holds no table to paste.")
        n_rows, n_cols = len(cells), len(cells[0])
        for r, row_cells in enumerate(cells):
            if len(row_cells) != n_cols:
                if row_cells == [""]:  # a blank line inside the block
                    text = _tr("Row {0} of the block is empty, but row 1 has {2} cells.")
                elif len(row_cells) == 1:
                    text = _tr("Row {0} of the block has 1 cell but row 1 has {2}.")
                else:
                    text = _tr("Row {0} of the block has {1} cells but row 1 has {2}.")
                return text.format(r + 1, len(row_cells), n_cols) + _tr(" Nothing was pasted.")
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
        thousands = _thousands_comma()
        old_rows = min(len(self._tokens), top + n_rows) - top
        block = self._rows(top, top + old_rows)
        tokens = list(block.tokens) + self._new_names(n_rows - old_rows)
        values = np.concatenate([block.values, np.zeros((n_rows - old_rows, self.d_in))])
        for r, row_cells in enumerate(cells):
            for c, cell in enumerate(row_cells):
                col = left + c
                try:
                    if col == 0:
                        tokens[r] = clean_token(cell)
                    else:
                        values[r, col - 1] = parse_number(cell, thousands)
                except InputError as error:
                    where = _tr("Row {0}, column {1} of the block: {2}").format(r + 1, c + 1, error)
                    if r == 0 and n_rows > 1 and _all_read(cells[1:], left):
                        # A block copied with its column headings (an exported x.csv).
                        return _tr(
                            "Row 1 of the block looks like column headings, and the rows "
                            "below it read well: copy the block without its first row. ({0})"
                        ).format(where) + _tr(" Nothing was pasted.")
                    return where + _tr(" Nothing was pasted.")
        after = Rows(tuple(tokens), values)
        if after != block:
            record(self.undo_stack, pgettext("undo", "Paste"), [Splice(self, top, block, after)])
        return None


def _thousands_comma() -> bool:
    """The language writes a thousand as 1,000: "1,000" typed is not read as 1.0."""
    return QLocale().groupSeparator() == ","


def _all_read(rows: list[list[str]], left: int) -> bool:
    """Every cell of `rows`, pasted from column `left`, reads as a token name or a number."""
    try:
        for row in rows:
            for c, cell in enumerate(row):
                clean_token(cell) if left + c == 0 else parse_number(cell, _thousands_comma())
    except InputError:
        return False
    return True


class _Replacement(Splice):
    """The whole table replaced: done and undone with the sequence objects on each side, so
        neither is rebuilt from the array (half a second for a 512 × 768 layer of a real model), and
    with the read-only arrays on each side as the live table: a 512 × 768 table is copied only
    when a cell is written, not three times per table on every head of another layer opened.

        The sequences are the ones the document had and was given; holding them keeps objects
        alive that their owners (the lens's layer rows, a loaded session) mostly hold anyway."""

    def __init__(
        self,
        model: EmbeddingTableModel,
        before: Rows,
        after: Rows,
        old: TokenSequence,
        new: TokenSequence,
    ) -> None:
        super().__init__(model, 0, before, after)
        self.old, self.new = old, new

    def apply(self) -> None:
        self.model._set_table(list(self.after.tokens), self.after.values, self.new)

    def revert(self) -> None:
        self.model._set_table(list(self.before.tokens), self.before.values, self.old)


def _array(sequence: TokenSequence, width: int) -> np.ndarray:
    """The embeddings as an (n, d_in) array; `width` keeps d_in for a table of no tokens."""
    if isinstance(sequence.embeddings, ArrayRows):  # a real layer's rows: its read-only array
        return sequence.embeddings.array
    width = sequence.d_in if sequence.embeddings else width
    return np.array(sequence.embeddings, dtype=np.float64).reshape(len(sequence.tokens), width)


def _random_values(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.uniform(0, 1, size=shape).round(2)
