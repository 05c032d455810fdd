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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ROLES = ("query", "key", "value")
NAMES = ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value")
FLOAT32_MAX = float(np.finfo(np.float32).max)
ROWS_AT_A_TIME = 64  # ArrayRows.of: 49,152 numbers of a 768-wide layer, about a millisecond


def _frozen(value: Any, depth: int) -> np.ndarray:
    """`value` (an array, or nested lists or tuples of numbers) as a read-only float64 array of
    `depth` dimensions; ValueError for anything else (ragged, text, another number of axes)."""
    array = np.array(value, dtype=np.float64)  # a copy: the caller's array may change later
    if array.ndim != depth:
        raise ValueError(f"expected {depth} axes, got shape {array.shape}")
    array.flags.writeable = False
    return array


class ArrayRows(tuple):
    """A table of rows, each a tuple of floats (what a config stores), made from a float array
    that it keeps as `array`: the finite check and the lab's table read the array at C speed
    instead of walking a real layer's 393,216 Python floats again. Equal to, hashed and
    written to a session as the plain tuple of the same rows."""

    array: np.ndarray
    bounded: bool

    @classmethod
    def of(cls, values: np.ndarray) -> ArrayRows:
        """The rows of a 2-D float array (float32 widens to float64 exactly)."""
        array = np.array(values, dtype=np.float64)
        if array.ndim != 2:
            raise ValueError("rows come from a 2-D array")
        array.flags.writeable = False
        # A chunk of rows at a time: made on a thread of its own (lens.lab.prepare), the
        # conversion leaves the window's thread a turn between chunks instead of holding
        # Python's lock for the whole table.
        made: list[tuple[float, ...]] = []
        for start in range(0, len(array), ROWS_AT_A_TIME):
            made.extend(map(tuple, array[start : start + ROWS_AT_A_TIME].tolist()))
        rows = cls(made)
        rows.array = array
        # Every number finite and within float32 (the config's check), found where the rows
        # are made: on lens.lab.prepare's thread for a layer made ready before its click.
        rows.bounded = bool(np.all(np.abs(array) <= FLOAT32_MAX))
        return rows


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
        return all(
            (a is None and b is None)
            or (a is not None and b is not None and a.shape == b.shape and bool((a == b).all()))
            for a, b in zip(mine, theirs, strict=True)
        )

    def __hash__(self) -> int:
        # Equal arrays must hash alike: -0.0 == 0.0, so -0.0 is hashed as 0.0 (adding 0.0
        # turns it into 0.0 and leaves every other number as it is).
        if not self._hash:
            digest = hashlib.blake2b(digest_size=8)
            for array in self._present():
                digest.update(b"-" if array is None else repr(array.shape).encode())
                if array is not None:
                    digest.update((array + 0.0).tobytes())
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
