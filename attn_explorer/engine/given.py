"""Projection weights given rather than drawn: a real model's head, taken into the lab.

With `AttentionConfig.given` set and the "linear" projection, the engine uses these W_q, W_k,
W_v (and, with `qkv_bias`, these biases) instead of drawing them from the seed; every other
control (temperature, mask, dropout, an embedding value) acts on them as on drawn ones. Another
projection ("rand", "none") leaves them aside, and switching back brings them back.

The arrays are kept as read-only float64 arrays (a model's float32 numbers widen exactly,
and numbers read from a session are the doubles written), so that a config compares by value
without a Python float per number: a real head's weights are 147,456 numbers, turned into
nested tuples and hashed in 10-20 ms on every head opened. Equality compares the arrays and
the hash is a digest of their bytes, computed the first time it is asked for (the engine's
parameter cache asks, on its own thread); a session writes the arrays' numbers as they are.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

ROLES = ("query", "key", "value")
NAMES = ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value")
FLOAT32_MAX = float(np.finfo(np.float32).max)
HASH_STRIDE = 61  # GivenWeights.__hash__ reads every 61st number (a prime: no row's pattern)
ROWS_AT_A_TIME = 64  # rows turned into tuples at a time when an ArrayRows is walked
EARLY = 64  # numbers of each array GivenWeights.__eq__ compares before all of them


def _frozen(value: Any, depth: int) -> np.ndarray:
    """`value` (an array, or nested lists or tuples of numbers) as a read-only float64 array of
    `depth` dimensions; ValueError for anything else (ragged, text, another number of axes)."""
    array = np.array(value, dtype=np.float64)  # a copy: the caller's array may change later
    if array.ndim != depth:
        raise ValueError(f"expected {depth} axes, got shape {array.shape}")
    array.flags.writeable = False
    return array


class ArrayRows(Sequence):
    """A table of rows of floats (what a config stores as a tuple of tuples), kept as the
    read-only float64 array it was made from. A row becomes a tuple of Python floats only when
    it is read (`rows[i]`, iteration: a session written, a script, a worksheet); the engine,
    the editing table and the config's check read `array` at C speed. Made on a background
    thread, the 393,216 Python floats of a GPT-2 layer held the interpreter's lock for 20-40 ms
    while the window drew and the engine computed, so a head opened no sooner.

    Equal to a tuple of the same rows, and hashed as that tuple is (the hash, asked for by no
    window code, walks the rows once and is kept); equal to another `ArrayRows` when every
    number is. `converted` counts the rows turned into tuples (the tests hold it at 0 while a
    head is opened and shown)."""

    __slots__ = ("_hash", "array", "bounded", "converted")

    def __init__(self, array: np.ndarray) -> None:
        """`array`: a read-only 2-D float64 array, kept as it is (`of` makes one)."""
        self.array = array
        # Every number finite and within float32 (the config's check), found where the rows
        # are made: on lens.lab.prepare's thread for a layer made ready before its click.
        # Two reductions, no temporary array (np.abs and a comparison made two of 393,216
        # numbers: 2.7 ms of a GPT-2 layer); a NaN makes both NaN, and NaN is not bounded.
        self.bounded = bool(
            not array.size or (array.min() >= -FLOAT32_MAX and array.max() <= FLOAT32_MAX)
        )
        self.converted = 0
        self._hash: int | None = None

    @classmethod
    def of(cls, values: Any) -> ArrayRows:
        """The rows of a 2-D float array (float32 widens to float64 exactly), copied."""
        array = np.array(values, dtype=np.float64)
        if array.ndim != 2:
            raise ValueError("rows come from a 2-D array")
        array.flags.writeable = False
        return cls(array)

    def __len__(self) -> int:
        return self.array.shape[0]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            rows = tuple(map(tuple, self.array[index].tolist()))
            self.converted += len(rows)
            return rows
        row = tuple(self.array[index].tolist())  # IndexError past the end, as a tuple's
        self.converted += 1
        return row

    def __iter__(self) -> Iterator[tuple[float, ...]]:
        for start in range(0, len(self), ROWS_AT_A_TIME):
            yield from self[start : start + ROWS_AT_A_TIME]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """`np.array(rows)` reads the kept array, not 393,216 Python floats."""
        if dtype is not None and np.dtype(dtype) != self.array.dtype:
            return self.array.astype(dtype)
        return self.array.copy() if copy else self.array

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, ArrayRows):  # another layer's rows differ in their first row
            mine, theirs = self.array, other.array
            return mine.shape == theirs.shape and (
                not len(mine) or bool((mine[0] == theirs[0]).all() and (mine == theirs).all())
            )
        if isinstance(other, tuple):
            if len(other) != len(self):
                return False
            if not other:
                return True
            # Their first row first: another table differs there, mostly. The numbers are read
            # into an array (no Python float is made of these rows), once their types are
            # known to be numbers: numpy reads "1.5" as 1.5, a tuple's == does not.
            for part, mine in ((other[:1], self.array[:1]), (other, self.array)):
                if not all(type(row) is tuple for row in part) or not set(
                    map(type, chain.from_iterable(part))
                ) <= {float, int, bool}:
                    return False
                try:
                    theirs = np.array(part, dtype=np.float64)
                except ValueError:  # ragged: not these rows
                    return False
                if theirs.shape != mine.shape or not bool((theirs == mine).all()):
                    return False
            return True
        return NotImplemented

    def __hash__(self) -> int:
        """The hash of the tuple of the same rows (a tuple's hash is made from its items')."""
        if self._hash is None:
            self._hash = hash(tuple(_Hashed(hash(row)) for row in self))
        return self._hash

    def __repr__(self) -> str:
        return f"ArrayRows({self.array.shape[0]} rows of {self.array.shape[1]})"


def row_width(rows: Sequence) -> int:
    """The number of values in a table's first row (0 for no rows), without turning an
    `ArrayRows` row into Python floats."""
    if isinstance(rows, ArrayRows):
        return rows.array.shape[1] if len(rows) else 0
    return len(rows[0]) if rows else 0


class _Hashed:
    """An item whose hash is a row's, so that a tuple of them hashes as the tuple of rows."""

    __slots__ = ("value",)

    def __init__(self, value: int) -> None:
        self.value = value

    def __hash__(self) -> int:
        return self.value


@dataclass(frozen=True, eq=False)
class GivenWeights:
    """W_q, W_k, W_v per head as (heads, d_in, d_head) in `x @ W` orientation, and the biases
    as (heads, d_head), or None where the projection has none: given as arrays or nested
    lists or tuples of numbers, kept as read-only float64 arrays. Two are equal when every
    number is (-0.0 equals 0.0, as in a tuple of floats)."""

    w_query: np.ndarray
    w_key: np.ndarray
    w_value: np.ndarray
    b_query: np.ndarray | None = None
    b_key: np.ndarray | None = None
    b_value: np.ndarray | None = None
    _hash: list = field(default_factory=list, init=False, repr=False)
    _arrays: dict = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for role in ROLES:
            object.__setattr__(self, f"w_{role}", _frozen(getattr(self, f"w_{role}"), 3))
        shapes = {getattr(self, f"w_{role}").shape for role in ROLES}
        if len(shapes) != 1:
            raise ValueError("W_q, W_k and W_v must be (heads, d_in, d_head) arrays alike")
        heads, _, d_head = next(iter(shapes))
        for role in ROLES:
            bias = getattr(self, f"b_{role}")
            if bias is None:
                continue
            try:
                bias = _frozen(bias, 2)
            except ValueError:
                bias = None
            if bias is None or bias.shape != (heads, d_head):
                raise ValueError(f"b_{role} must be (heads, d_head) = {(heads, d_head)}")
            object.__setattr__(self, f"b_{role}", bias)

    def _present(self) -> tuple[np.ndarray | None, ...]:
        return tuple(getattr(self, name) for name in NAMES)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, GivenWeights):
            return NotImplemented
        mine, theirs = self._present(), other._present()
        if any(
            (a is None) != (b is None) or (a is not None and a.shape != b.shape)
            for a, b in zip(mine, theirs, strict=True)
        ):
            return False
        # Another head's weights differ in their first numbers, mostly: those are compared
        # first, then every number (a GPT-2 head's 147,456 of them, 0.2-0.7 ms).
        return all(
            a is None or bool((a.reshape(-1)[:EARLY] == b.reshape(-1)[:EARLY]).all())
            for a, b in zip(mine, theirs, strict=True)
        ) and all(a is None or bool((a == b).all()) for a, b in zip(mine, theirs, strict=True))

    def __hash__(self) -> int:
        # Equal arrays must hash alike: -0.0 == 0.0, so -0.0 is hashed as 0.0 (adding 0.0
        # turns it into 0.0 and leaves every other number as it is). A sample of every
        # HASH_STRIDE-th number is hashed, not all 147,456 of a real head (2 ms of the
        # engine's thread per head): equal weights still hash alike, and weights that differ
        # only outside the sample are told apart by __eq__.
        if not self._hash:
            digest = hashlib.blake2b(digest_size=8)
            for array in self._present():
                digest.update(b"-" if array is None else repr(array.shape).encode())
                if array is not None:
                    digest.update((array.reshape(-1)[::HASH_STRIDE] + 0.0).tobytes())
            self._hash.append(int.from_bytes(digest.digest(), "little", signed=True))
        return self._hash[0]

    @property
    def heads(self) -> int:
        return self.w_query.shape[0]

    @property
    def d_in(self) -> int:
        return self.w_query.shape[1]

    @property
    def d_head(self) -> int:
        return self.w_query.shape[2]

    @property
    def has_bias(self) -> bool:
        return self.b_query is not None

    def arrays(self) -> dict[str, np.ndarray | None]:
        """The weights and biases as float32 arrays, by their trace names (made once)."""
        if not self._arrays:
            for name, array in zip(NAMES, self._present(), strict=True):
                self._arrays[name] = None if array is None else array.astype(np.float32)
        return dict(self._arrays)

    def lists(self, name: str) -> list | None:
        """One of the arrays as nested lists of plain floats (what JSON and a script write)."""
        array = getattr(self, name)
        return None if array is None else array.tolist()

    @classmethod
    def from_arrays(cls, **arrays: Any) -> GivenWeights:
        return cls(**{name: value for name, value in arrays.items()})
