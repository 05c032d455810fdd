"""The engine's output: every intermediate of one computation, and the steps that made them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType

import numpy as np

from attn_explorer.engine.arrays import (
    ARRAY_INFO,
    BEFORE_DROPOUT_TITLE,
    MASK_FIRST_SCALED_TITLE,
    MASK_FIRST_TEMPERATURE_TITLE,
    METHOD_1_SCORES_TITLE,
    NO_DROPOUT_TITLE,
    NO_MASK_SCORES_TITLE,
    ONE_HEAD_CONCAT_TITLE,
    TEMPERATURE_SCORES_TITLE,
    UNSCALED_SCORES_TITLE,
    ArrayInfo,
    score_symbols,
)
from attn_explorer.engine.config import AttentionConfig


@dataclass(frozen=True)
class Step:
    """One stage of the computation, as the step-through shows it.

    `applies` is False when the config skips the stage (then `reason` says why and the arrays
    it writes equal the ones it reads). `shapes` maps every array the stage reads or writes to
    its shape in this trace.
    """

    key: str
    title: str
    formula: str
    formula_html: str
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    shapes: Mapping[str, tuple[int, ...]]
    applies: bool
    reason: str = ""


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
        """How to read array `name` of this trace. Where dropout does not apply (p = 0, or
        evaluation mode) the weights "after dropout" are the softmax weights α themselves,
        and are titled and written so: not α_d beside a greyed-out dropout stage. Where it
        does, the softmax weights say they come before it: the context beside them is
        computed from the dropped weights (0.55 and 0.45 over a context of 0 read as wrong).
        Under mask method 1 the scores fed to softmax are the scaled scores ω̃, unmasked: the
        mask applies to softmax's output; without a mask they are not "Masked scores ω̃ₘ".
        Score symbols follow `score_symbols`: ω where nothing divided them. Where the raw
        scores are masked first (`mask_first`), the masked scores are ωₘ and the scaled ones
        ω̃ₘ, what softmax reads."""
        info = ARRAY_INFO[name]
        cfg = self.config
        if cfg.mask_first and name in ("scaled_scores", "masked_scores"):
            # Tutorial 000's order: ωₘ is the raw scores masked, ω̃ₘ those divided.
            if name == "masked_scores":
                return replace(info, symbol="ωₘ")
            title = MASK_FIRST_SCALED_TITLE if cfg.scale else MASK_FIRST_TEMPERATURE_TITLE
            return replace(info, symbol="ω̃ₘ", title=title)
        if name == "scaled_scores" and not cfg.scale:
            # Not "Scaled scores ω̃": a temperature alone divides by T, and with T = 1 the
            # scores pass as they are, ω.
            if cfg.temperature != 1:
                return replace(info, title=TEMPERATURE_SCORES_TITLE)
            return replace(info, symbol="ω", title=UNSCALED_SCORES_TITLE)
        if name in ("weights_unmasked", "weights_zeroed"):  # softmax(ω) where not scaled
            scaled = score_symbols(cfg)[0]
            title = info.title.replace("ω̃", scaled)
            return replace(info, symbol=info.symbol.replace("ω̃", scaled), title=title)
        if name == "masked_scores":  # ωₘ or ω̃ₘ only where method 2 masks the scores
            scaled, fed = score_symbols(cfg)
            if cfg.method_1:
                return replace(info, symbol=scaled, title=METHOD_1_SCORES_TITLE)
            if not cfg.has_mask:
                return replace(info, symbol=scaled, title=NO_MASK_SCORES_TITLE)
            return replace(info, symbol=fed)
        if name == "head_contexts":  # the weights α·V reads, per head only where several
            alpha = "α_d" if cfg.dropout_active else "α"
            per_head = "Context per head" if cfg.heads > 1 else "Context"
            return replace(info, title=f"{per_head} Z = {alpha}·V")
        if name == "concat" and cfg.heads == 1:
            return replace(info, title=ONE_HEAD_CONCAT_TITLE)
        if name == "weights_dropped" and not self.config.dropout_active:
            return replace(info, symbol="α", title=NO_DROPOUT_TITLE)
        if name == "weights" and self.config.dropout_active:
            return replace(info, title=BEFORE_DROPOUT_TITLE)
        return info

    def step(self, key: str) -> Step:
        for step in self.steps:
            if step.key == key:
                return step
        raise KeyError(key)

    def axis_labels(self, axis: str | None) -> tuple[str, ...]:
        """Labels along one axis kind of `ArrayInfo` (tokens, or 1-based dimension numbers)."""
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
            return ("Σ visible",)
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
