"""Projection weights given rather than drawn: a real model's head, taken into the lab.

With `AttentionConfig.given` set and the "linear" projection, the engine uses these W_q, W_k,
W_v (and, with `qkv_bias`, these biases) instead of drawing them from the seed; every other
control (temperature, mask, dropout, an embedding value) acts on them as on drawn ones. Another
projection ("rand", "none") leaves them aside, and switching back brings them back.

The arrays are tuples, as the embeddings are, so a config stays hashable and is written to a
session as it is; the hash is computed once, as a real head's weights hold tens of thousands of
numbers and a config is compared on every slider move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

ROLES = ("query", "key", "value")
NAMES = ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value")


def _shape(value: Any) -> tuple[int, ...]:
    """The shape of an array as it is; of nested lists or tuples as numpy reads them."""
    return value.shape if isinstance(value, np.ndarray) else np.shape(value)


def _table(value: Any, depth: int) -> Any:
    """Nested tuples of floats, `depth` levels deep, from arrays, lists or tuples."""
    if isinstance(value, np.ndarray):
        # From an array the numbers are floats already: C-level conversions only (a GPT-2
        # head is 147,456 numbers; a Python call per number took a tenth of a second).
        # A float array's tolist gives exact Python floats already (no float64 copy first).
        if value.dtype not in (np.float32, np.float64):
            value = value.astype(np.float64)
        if depth == 1:
            return tuple(value.tolist())
        if depth == 2:
            return tuple(map(tuple, value.tolist()))
        return tuple(tuple(map(tuple, block)) for block in value.tolist())
    if depth == 1:
        return tuple(float(v) for v in value)
    return tuple(_table(v, depth - 1) for v in value)


class ArrayRows(tuple):
    """A table of rows, each a tuple of floats (what a config stores), made from a float array
    that it keeps as `array`: the finite check and the lab's table read the array at C speed
    instead of walking a real layer's 393,216 Python floats again. Equal to, hashed and
    written to a session as the plain tuple of the same rows."""

    array: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray) -> ArrayRows:
        """The rows of a 2-D float array (float32 widens to float64 exactly)."""
        array = np.array(values, dtype=np.float64)
        if array.ndim != 2:
            raise ValueError("rows come from a 2-D array")
        array.flags.writeable = False
        rows = cls(map(tuple, array.tolist()))
        rows.array = array
        return rows


@dataclass(frozen=True)
class GivenWeights:
    """W_q, W_k, W_v per head as (heads, d_in, d_head) in `x @ W` orientation, and the biases
    as (heads, d_head), or None where the projection has none."""

    w_query: tuple
    w_key: tuple
    w_value: tuple
    b_query: tuple | None = None
    b_key: tuple | None = None
    b_value: tuple | None = None
    _hash: int = field(default=0, init=False, repr=False, compare=False)
    _arrays: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in NAMES:  # given as float32 arrays (a model's head): kept for the engine
            value = getattr(self, name)
            if isinstance(value, np.ndarray) and value.dtype == np.float32:
                self._arrays[name] = value.copy()
        # Shapes from what was given, before the conversion: an array knows its shape, while
        # np.shape on nested tuples walks every number again.
        shapes = {_shape(getattr(self, f"w_{role}")) for role in ROLES}
        if len(shapes) != 1 or len(next(iter(shapes))) != 3:
            raise ValueError("W_q, W_k and W_v must be (heads, d_in, d_head) arrays alike")
        heads, _, d_head = next(iter(shapes))
        for role in ROLES:
            bias = getattr(self, f"b_{role}")
            if bias is not None and _shape(bias) != (heads, d_head):
                raise ValueError(f"b_{role} must be (heads, d_head) = {(heads, d_head)}")
        for role in ROLES:
            object.__setattr__(self, f"w_{role}", _table(getattr(self, f"w_{role}"), 3))
            bias = getattr(self, f"b_{role}")
            if bias is not None:
                object.__setattr__(self, f"b_{role}", _table(bias, 2))
        key = tuple(getattr(self, name) for name in ("w_query", "w_key", "w_value"))
        biases = (self.b_query, self.b_key, self.b_value)
        object.__setattr__(self, "_hash", hash((key, biases)))

    def __hash__(self) -> int:
        return self._hash

    @property
    def heads(self) -> int:
        return len(self.w_query)

    @property
    def d_in(self) -> int:
        return len(self.w_query[0])

    @property
    def d_head(self) -> int:
        return len(self.w_query[0][0])

    @property
    def has_bias(self) -> bool:
        return self.b_query is not None

    def arrays(self) -> dict[str, np.ndarray | None]:
        """The weights and biases as float32 arrays, by their trace names."""
        if len(self._arrays) == len(NAMES) - sum(getattr(self, n) is None for n in NAMES):
            return {name: self._arrays.get(name) for name in NAMES}
        out: dict[str, np.ndarray | None] = {}
        for role in ROLES:
            out[f"w_{role}"] = np.asarray(getattr(self, f"w_{role}"), dtype=np.float32)
            bias = getattr(self, f"b_{role}")
            out[f"b_{role}"] = None if bias is None else np.asarray(bias, dtype=np.float32)
        return out

    @classmethod
    def from_arrays(cls, **arrays: Any) -> GivenWeights:
        return cls(**{name: value for name, value in arrays.items()})
