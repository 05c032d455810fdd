"""Checking a learner's hand-computed numbers against a trace, cell by cell ("Check my numbers").

Numbers only: which cells are right, which follow from the learner's own earlier numbers,
which are wrong and what slip would give them. The sentences are `attn_explorer.text.check_words`'.

A learner writes rounded numbers and computes the next array from them, so a cell is judged
against two references:

- the exact value: `right` when it rounds to what they wrote at the decimals they wrote
  (0.30 for 0.2994), widened by how far the rounding of their own earlier numbers can move
  it (0.30 × 0.2 + 0.33 × 0.5 + 0.37 × 0.8 is 0.53 with the products rounded, where the
  exact value is 0.5207: that is rounding, not a slip);
- the value recomputed from their own earlier arrays (where they gave a cell, their value;
  elsewhere what follows from theirs): `follows` when it matches that within the same
  rounding, so the step was done right and the slip is upstream.

Anything else is `wrong`, with the likely slip where one of the known ones gives the value.
How far rounding can move a value is propagated to first order through each stage (a sum of
products, the division by √d_k, softmax): written numbers at d decimals are off by at most
half a unit of their last place.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from attn_explorer.engine.trace import Trace

# The arrays a learner computes by hand, which "Check my numbers" accepts (the names the
# export's --view takes).
CHECKABLE = (
    "queries",
    "keys",
    "values",
    "scores",
    "scaled_scores",
    "masked_scores",
    "weights",
    "weights_dropped",
    "head_contexts",
    "concat",
    "context",
)
VERDICTS = ("right", "follows", "wrong", "missing")
# The likely slips of a wrong cell, in the order they are tried.
SLIPS = ("not_scaled", "masked_keys_summed", "wrong_score", "transposed")

CELL, ROW = 0, 1  # what a slip's values give: the cell's own value, or any of its row's

# First-order propagation is not a bound for rounding errors of a few units: some room.
_SLACK = 1.25
_EPS = 1e-6


@dataclass(frozen=True)
class Given:
    """The numbers a learner wrote for one array (one head's matrix): `values` with NaN where
    they wrote nothing, `decimals` the digits they wrote after the point (-1 where nothing)."""

    values: np.ndarray
    decimals: np.ndarray

    @classmethod
    def from_rows(cls, rows: list[list[tuple[float, int] | None]]) -> Given:
        width = max((len(row) for row in rows), default=0)
        values = np.full((len(rows), width), np.nan)
        decimals = np.full((len(rows), width), -1, dtype=int)
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                if cell is not None:
                    values[r, c], decimals[r, c] = cell
        return cls(values, decimals)


@dataclass(frozen=True)
class Cell:
    """One checked cell (row and col from 0). `recomputed` is what the learner's own earlier
    numbers give (for `follows`, and for a `wrong` cell where it differs from `expected`);
    `rounding` marks a `right` cell that is right only within the rounding of their earlier
    numbers; `slip` names a likely slip of a `wrong` cell (one of SLIPS) and `slip_key` the
    other key of a `wrong_score` slip."""

    array: str
    row: int
    col: int
    given: float
    decimals: int
    expected: float
    verdict: str
    recomputed: float = math.nan
    rounding: bool = False
    slip: str = ""
    slip_key: int = -1


@dataclass(frozen=True)
class CheckResult:
    """The cells of every array checked, in the computation's order, row by row."""

    head: int
    arrays: tuple[str, ...]
    cells: tuple[Cell, ...]
    counts: Mapping[str, int] = field(default_factory=dict)

    def of(self, array: str) -> list[Cell]:
        return [cell for cell in self.cells if cell.array == array]

    @property
    def first_slip(self) -> Cell | None:
        """The first wrong cell in the computation's order: where to look first."""
        return next((cell for cell in self.cells if cell.verdict == "wrong"), None)

    def follow_rows(self, array: str) -> list[int]:
        """Rows (from 0) of `array` whose given cells are all right or follow, at least one
        following: rows that only follow from an earlier slip."""
        rows: dict[int, set[str]] = {}
        for cell in self.of(array):
            if cell.verdict != "missing":
                rows.setdefault(cell.row, set()).add(cell.verdict)
        return sorted(r for r, kinds in rows.items() if "follows" in kinds and "wrong" not in kinds)


class CheckError(ValueError):
    """A caller's mistake (an array that cannot be checked, a grid of the wrong shape)."""


def half_unit(decimals: np.ndarray) -> np.ndarray:
    """How far a number written with `decimals` digits can be from what it rounds."""
    return np.where(decimals >= 0, 0.5 * 10.0 ** (-np.maximum(decimals, 0)), 0.0)


def _softmax(scores: np.ndarray) -> np.ndarray:
    top = np.max(scores, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.exp(scores - top)
    total = e.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, e / total, 0.0)


def _softmax_tolerance(p: np.ndarray, h: np.ndarray) -> np.ndarray:
    """First-order bound of softmax's change when each score moves by up to h:
    Σ_j |∂p_i/∂s_j| h_j = p_i (h_i (1 − 2 p_i) + Σ_j p_j h_j), all terms kept non-negative."""
    h = np.where(np.isfinite(h), h, 0.0)
    spread = (p * h).sum(axis=-1, keepdims=True)
    return p * (h * np.abs(1 - 2 * p) + spread)


class _Learner:
    """The learner's arrays as far as they go: their value where they gave one, else what
    follows from theirs (`value`), with how far rounding can move each cell (`tolerance`)."""

    def __init__(self, trace: Trace, head: int, given: Mapping[str, Given]) -> None:
        self.trace, self.head, self.given = trace, head, given
        cfg = trace.config
        self.mask = trace.matrix("mask")
        self.divisor = float(cfg.scale_divisor)
        self.value: dict[str, np.ndarray] = {}
        self.tolerance: dict[str, np.ndarray] = {}
        self.recomputed: dict[str, np.ndarray] = {}
        self.recomputed_tol: dict[str, np.ndarray] = {}

    def exact(self, name: str) -> np.ndarray:
        info = self.trace.info(name)
        return self.trace.matrix(name, self.head if info.per_head else 0).astype(np.float64)

    def get(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """The learner's `name` and its tolerance, computed on first use (upstream first)."""
        if name not in self.value:
            value, tol = self._recompute(name)
            self.recomputed[name], self.recomputed_tol[name] = value, tol
            given = self.given.get(name)
            if given is not None:
                has = ~np.isnan(given.values)
                value = np.where(has, given.values, value)
                tol = np.where(has, half_unit(given.decimals), tol)
            self.value[name], self.tolerance[name] = value, tol
        return self.value[name], self.tolerance[name]

    def _recompute(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        cfg, exact = self.trace.config, self.exact(name)
        zero = np.zeros_like(exact)
        if name in ("queries", "keys", "values"):  # from the inputs, which are not checked
            return exact, zero
        if name == "scores":
            (q, tq), (k, tk) = self.get("queries"), self.get("keys")
            return q @ k.T, np.abs(q) @ tk.T + tq @ np.abs(k).T
        if name == "scaled_scores":
            source, tol = self.get("masked_scores" if cfg.mask_first else "scores")
            return source / self.divisor, tol / self.divisor
        if name == "masked_scores":
            source, tol = self.get("scores" if cfg.mask_first else "scaled_scores")
            if cfg.mask_first or cfg.mask_method == "neg_inf":
                return np.where(self.mask, -np.inf, source), np.where(self.mask, 0.0, tol)
            return source, tol
        if name == "weights":
            scores, tol = self.get(self.trace.softmax_input)
            p = _softmax(np.where(self.mask, -np.inf, scores))
            return p, _softmax_tolerance(p, np.where(self.mask, 0.0, tol))
        if name == "weights_dropped":
            weights, tol = self.get("weights")
            if not cfg.dropout_active:
                return weights, tol
            keep = self.trace.matrix("dropout_keep", self.head) / (1 - cfg.dropout)
            return weights * keep, tol * keep
        if name == "head_contexts":
            (w, tw), (v, tv) = self.get("weights_dropped"), self.get("values")
            return w @ v, tw @ np.abs(v) + np.abs(w) @ tv
        if name == "concat":  # the other heads' columns as computed: one head is checked
            contexts, tol = self.get("head_contexts")
            value, tolerance = exact.copy(), zero.copy()
            width = contexts.shape[1]
            columns = slice(self.head * width, (self.head + 1) * width)
            value[:, columns], tolerance[:, columns] = contexts, tol
            return value, tolerance
        if name == "context":
            concat, tol = self.get("concat")
            if "w_out" not in self.trace:
                return concat, tol
            w_out = self.trace["w_out"].astype(np.float64)
            return concat @ w_out + self.trace["b_out"], tol @ np.abs(w_out)
        raise CheckError(f"{name!r} cannot be checked")

    def alternatives(self, name: str) -> list[tuple[str, np.ndarray, int]]:
        """What each known slip would give for `name`: (slip, values, CELL), the value of
        each cell; or, for a score taken from the wrong key, (slip, weights, ROW): any other
        cell of the cell's row."""
        cfg, out = self.trace.config, []
        divides = self.divisor != 1
        if name in ("scaled_scores", "masked_scores") and divides:
            scores, _ = self.get("scores")
            if name == "masked_scores" and (cfg.mask_first or cfg.mask_method == "neg_inf"):
                scores = np.where(self.mask, -np.inf, scores)
            out.append(("not_scaled", scores, CELL))
        if name == "weights":
            scores, _ = self.get("scores")
            if divides:
                out.append(("not_scaled", _softmax(np.where(self.mask, -np.inf, scores)), CELL))
            if self.mask.any():
                out.append(("masked_keys_summed", _softmax(scores / self.divisor), CELL))
            self.get("weights")
            # From their scores, not the weights they wrote: each row's weights, any of
            # which a cell may hold by mistake.
            out.append(("wrong_score", self.recomputed["weights"], ROW))
        square = self.mask.shape[0] == self.mask.shape[1]
        if name == "scores" and square:
            (q, _), (k, _) = self.get("queries"), self.get("keys")
            out.append(("transposed", k @ q.T, CELL))
        if name == "head_contexts" and square:
            (w, _), (v, _) = self.get("weights_dropped"), self.get("values")
            out.append(("transposed", w.T @ v, CELL))
        return out


def _close(given: np.ndarray, reference: np.ndarray, room: np.ndarray) -> np.ndarray:
    """Where `given` is `reference` within `room` (±∞ only itself), cell by cell."""
    given, reference = np.asarray(given, dtype=float), np.asarray(reference, dtype=float)
    finite = np.isfinite(given) & np.isfinite(reference)
    with np.errstate(invalid="ignore"):
        near = np.abs(given - reference) <= room + _EPS * np.maximum(1.0, np.abs(reference))
    return np.where(finite, near, given == reference)


def check(trace: Trace, given: Mapping[str, Given], head: int = 0) -> CheckResult:
    """Judge every cell of the arrays in `given` (arrays of `CHECKABLE`, one head's matrix
    each, the shape of `trace.matrix(name, head)`), in the computation's order.

    Raises CheckError for an array that cannot be checked or a grid of another shape.
    """
    for name, values in given.items():
        if name not in CHECKABLE or name not in trace:
            raise CheckError(f"{name!r} cannot be checked")
        shape = trace.matrix(name, head if trace.info(name).per_head else 0).shape
        if values.values.shape != shape:
            raise CheckError(f"{name} is {shape}, not {values.values.shape}")
    if not 0 <= head < trace.heads:
        raise CheckError(f"head {head} is outside 0..{trace.heads - 1}")
    learner = _Learner(trace, head, given)
    order = tuple(name for name in trace.names if name in given)
    cells: list[Cell] = []
    for name in order:
        learner.get(name)
        cells.extend(_judge(learner, name, given[name]))
    counts = {verdict: sum(c.verdict == verdict for c in cells) for verdict in VERDICTS}
    return CheckResult(head, order, tuple(cells), counts)


def _judge(learner: _Learner, name: str, given: Given) -> list[Cell]:
    """The verdicts of one array, all cells at once; the likely slip of each wrong one."""
    values, decimals = given.values, given.decimals
    exact = learner.exact(name)
    mine, mine_tol = learner.recomputed[name], learner.recomputed_tol[name]
    room = half_unit(decimals) + _SLACK * mine_tol
    has = ~np.isnan(values)
    right = has & _close(values, exact, half_unit(decimals))
    rounding = has & ~right & _close(values, exact, room)
    follows = has & ~right & ~rounding & _close(values, mine, room)
    wrong = has & ~right & ~rounding & ~follows
    slips = _slips(learner, name, values, mine, room, wrong)
    cells = []
    for (r, c), value in np.ndenumerate(values):
        common = dict(
            array=name,
            row=r,
            col=c,
            given=float(value),
            decimals=int(decimals[r, c]),
            expected=float(exact[r, c]),
        )
        if not has[r, c]:
            cells.append(Cell(**common, verdict="missing"))
        elif right[r, c] or rounding[r, c]:
            cells.append(Cell(**common, verdict="right", rounding=bool(rounding[r, c])))
        else:
            slip, key = slips.get((r, c), ("", -1))
            cells.append(
                Cell(
                    **common,
                    verdict="follows" if follows[r, c] else "wrong",
                    recomputed=float(mine[r, c]),
                    slip=slip,
                    slip_key=key,
                )
            )
    return cells


def _slips(
    learner: _Learner,
    name: str,
    values: np.ndarray,
    mine: np.ndarray,
    room: np.ndarray,
    wrong: np.ndarray,
) -> dict[tuple[int, int], tuple[str, int]]:
    """(slip, other key) of each wrong cell a known slip gives, the first that fits. A slip
    is not named where it gives what the learner's own numbers give (it would be no slip)."""
    found: dict[tuple[int, int], tuple[str, int]] = {}
    if not wrong.any():
        return found
    for kind, slipped, reach in learner.alternatives(name):
        if reach == CELL:
            fits = wrong & _close(values, slipped, room) & ~_close(mine, slipped, room)
            for r, c in zip(*np.nonzero(fits), strict=True):
                found.setdefault((int(r), int(c)), (kind, -1))
            continue
        rows, cols = np.nonzero(wrong)  # each wrong cell against every key of its row
        room_of = room[rows, cols][:, None]
        fits = _close(values[rows, cols][:, None], slipped[rows], room_of)
        fits &= ~_close(mine[rows, cols][:, None], slipped[rows], room_of)
        fits[np.arange(len(rows)), cols] = False  # its own key is no slip
        for i in np.nonzero(fits.any(axis=1))[0]:
            found.setdefault((int(rows[i]), int(cols[i])), (kind, int(np.argmax(fits[i]))))
    return found
