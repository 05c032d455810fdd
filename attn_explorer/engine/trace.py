"""The engine's output: every intermediate of one computation, and the steps that made them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from attn_explorer.engine.arrays import ARRAY_INFO, ArrayInfo
from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.words import N_, ROW_SUM


@dataclass(frozen=True)
class Step:
    """One stage of the computation, as the step-through shows it.

    `applies` is False when the config skips the stage: then `skip` names why, one of
    "no_projection", "not_scaled", "no_mask", "evaluation_mode", "no_dropout", "one_head",
    "no_out_proj", and the arrays it writes equal the ones it reads. `shapes` maps every
    array the stage reads or writes to its shape in this trace. `config` is the config the
    stage was computed for: its title, formula and reason (`attn_explorer.text.steps`) are
    written from it.
    """

    key: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    shapes: Mapping[str, tuple[int, ...]]
    applies: bool
    config: AttentionConfig = field(repr=False)
    skip: str = ""


@dataclass(frozen=True, eq=False)
class Trace:
    """All arrays of one computation (read-only float32 / bool numpy arrays) and its steps.

    Arrays are reachable as attributes (`trace.weights`), by item (`trace["weights"]`) or
    through `arrays`. Per-head arrays lead with the head axis: (heads, n_q, n_k).
    """

    config: AttentionConfig
    arrays: Mapping[str, np.ndarray]
    steps: tuple[Step, ...]

    def __getattr__(self, name: str) -> np.ndarray:
        arrays = self.__dict__.get("arrays")
        if arrays is not None and name in arrays:
            return arrays[name]
        raise AttributeError(f"trace has no array {name!r}")

    def __getitem__(self, name: str) -> np.ndarray:
        return self.arrays[name]

    def __contains__(self, name: object) -> bool:
        return name in self.arrays

    @property
    def names(self) -> tuple[str, ...]:
        """Array names in computation order: the masked scores before the scaled ones where
        the raw scores were masked first (tutorial 000's order)."""
        names = tuple(n for n in ARRAY_INFO if n in self.arrays)
        if self.config.mask_first:  # scaled_scores moves to just after masked_scores
            names = tuple(n for n in names if n != "scaled_scores")
            after = names.index("masked_scores") + 1
            names = (*names[:after], "scaled_scores", *names[after:])
        return names

    @property
    def softmax_input(self) -> str:
        """The name of the scores softmax reads: the masked scores, except where the raw
        scores were masked first (tutorial 000's order), whose scaled scores softmax reads."""
        return "scaled_scores" if self.config.mask_first else "masked_scores"

    @property
    def q_tokens(self) -> tuple[str, ...]:
        return self.config.tokens

    @property
    def k_tokens(self) -> tuple[str, ...]:
        return self.config.key_tokens

    @property
    def heads(self) -> int:
        return self.config.heads

    def info(self, name: str) -> ArrayInfo:
        """How array `name` is laid out: its axes, whether per head, its kind of values.
        Its symbol and title under this config are `attn_explorer.text.titles`'."""
        return ARRAY_INFO[name]

    def step(self, key: str) -> Step:
        for step in self.steps:
            if step.key == key:
                return step
        raise KeyError(key)

    def axis_labels(self, axis: str | None, words: Callable[[str], str] = N_) -> tuple[str, ...]:
        """Labels along one axis kind of `ArrayInfo` (tokens, or 1-based dimension numbers).

        The one label in words, method 1's "Σ visible", is in English unless `words`
        translates it (the window passes its `tr`): the labels of a data file stay as they
        are in every language, and a token is never looked up as if it were a word."""
        cfg = self.config
        if axis is None:
            return ("",)
        if axis == "q_tokens":
            return cfg.tokens
        if axis == "k_tokens":
            return cfg.key_tokens
        if axis == "d_in":
            return tuple(str(i + 1) for i in range(cfg.d_in))
        if axis == "d_head":
            return tuple(str(i + 1) for i in range(cfg.d_head))
        if axis == "row_sum":
            return (words(ROW_SUM),)
        if axis in ("concat", "width"):
            if axis == "concat" or not cfg.out_proj:
                if cfg.heads == 1:
                    return tuple(str(i + 1) for i in range(cfg.width))
                return tuple(
                    f"h{h + 1}.{i + 1}" for h in range(cfg.heads) for i in range(cfg.d_head)
                )
            return tuple(str(i + 1) for i in range(cfg.width))
        raise KeyError(axis)

    def matrix(self, name: str, head: int = 0) -> np.ndarray:
        """The 2-D matrix a view shows: one head of a per-head array; a vector as one row."""
        array = self.arrays[name]
        if ARRAY_INFO[name].per_head:
            array = array[head]
        if array.ndim == 1:
            array = array[None, :]
        return array


def freeze(array: np.ndarray) -> np.ndarray:
    """A read-only view, so no consumer can change a trace (or the parameter cache behind it)."""
    view = array.view()
    view.flags.writeable = False
    return view


def frozen_mapping(arrays: dict[str, np.ndarray]) -> Mapping[str, np.ndarray]:
    return MappingProxyType({name: freeze(a) for name, a in arrays.items()})
