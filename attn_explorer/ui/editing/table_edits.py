"""The embedding table's undo steps: each keeps only what it changed (the rows of a splice,
one column, one cell), so moving a token in a 4096-row table keeps two rows for undo."""

from __future__ import annotations

import sys
from typing import Protocol

import numpy as np


class EmbeddingTableModel(Protocol):
    """What the steps change in the table (`embedding_model.EmbeddingTableModel`)."""

    _tokens: list[str]
    _values: np.ndarray

    def _write_cell(self, row: int, col: int, value: str | float) -> None: ...
    def _splice(self, start: int, count: int, rows: Rows) -> None: ...
    def _set_table(self, tokens: list[str], values: np.ndarray) -> None: ...


class Rows:
    """Some consecutive rows of a table, kept for undo (never shared with the live table)."""

    def __init__(self, tokens: tuple[str, ...], values: np.ndarray) -> None:
        self.tokens, self.values = tokens, values
        self.values.flags.writeable = False
        # Counted once: the history sums every step's size after each new step.
        self.nbytes = values.nbytes + sum(map(sys.getsizeof, tokens))

    def __len__(self) -> int:
        return len(self.tokens)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Rows)
            and self.tokens == other.tokens
            and self.values.shape == other.values.shape
            # Bit for bit: -0.0 == 0.0, yet a "-0" loaded from a file must be clearable.
            and self.values.tobytes() == other.values.tobytes()
        )

    __hash__ = None  # type: ignore[assignment]


class CellEdit:
    nbytes = 64

    def __init__(self, model: EmbeddingTableModel, row: int, col: int, old: object, new: object):
        self.model, self.row, self.col, self.old, self.new = model, row, col, old, new

    def apply(self) -> None:
        self.model._write_cell(self.row, self.col, self.new)

    def revert(self) -> None:
        self.model._write_cell(self.row, self.col, self.old)


class Splice:
    """Rows start..start+len(before)-1 replaced by `after` (insert, remove, move, paste, ...)."""

    def __init__(self, model: EmbeddingTableModel, start: int, before: Rows, after: Rows):
        self.model, self.start, self.before, self.after = model, start, before, after

    @property
    def nbytes(self) -> int:
        return self.before.nbytes + self.after.nbytes

    def apply(self) -> None:
        self.model._splice(self.start, len(self.before), self.after)

    def revert(self) -> None:
        self.model._splice(self.start, len(self.after), self.before)


class ColumnEdit:
    """One embedding dimension inserted at (or removed from) column `col`."""

    def __init__(self, model: EmbeddingTableModel, col: int, column: np.ndarray, insert: bool):
        self.model, self.col, self.column, self.insert = model, col, column, insert
        self.column.flags.writeable = False

    @property
    def nbytes(self) -> int:
        return self.column.nbytes

    def apply(self) -> None:
        self._put() if self.insert else self._take()

    def revert(self) -> None:
        self._take() if self.insert else self._put()

    def _put(self) -> None:
        model = self.model
        model._set_table(model._tokens, np.insert(model._values, [self.col], self.column, axis=1))

    def _take(self) -> None:
        model = self.model
        model._set_table(model._tokens, np.delete(model._values, self.col, axis=1))
