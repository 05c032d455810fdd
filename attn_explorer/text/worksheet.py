"""What a printed worksheet says: the inputs given, the formulas, the grids to fill, the key.

A teacher blanks some arrays of a computation (the weights, the context); the learner gets the
tokens, X and the weights drawn from the seed, the formulas of every stage from the
projections to the last blanked array, and an empty grid per blanked array (per head); the
answer key, on a page of its own, has every blanked value to 4 decimals and, for each row,
one cell's derivation as the window's hover writes it (`text.explain`).

The sheet is plain data (`Sheet`: blocks of lines and tables) so that the words can be tested
without Qt and drawn by any painter (`ui/export/worksheet_pdf.py` draws it on paper). The
formulas are the step-through's (`text.steps`), the titles the matrices' (`text.titles`): a
learner reads on paper what the window writes for the same computation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from attn_explorer.engine.arrays import ARRAY_INFO
from attn_explorer.engine.trace import Trace
from attn_explorer.text.explain import explain
from attn_explorer.text.i18n import _
from attn_explorer.text.numbers import num
from attn_explorer.text.steps import step_text
from attn_explorer.text.summaries import config_summary
from attn_explorer.text.titles import array_label
from attn_explorer.text.tokens import label_token

# What a learner can be asked to compute: every array a stage computes from the inputs.
BLANKABLE = (
    "queries",
    "keys",
    "values",
    "scores",
    "scaled_scores",
    "mask",
    "masked_scores",
    "weights_unmasked",
    "weights_zeroed",
    "row_sums",
    "weights",
    "weights_neg_inf",
    "weights_renormalize",
    "weights_dropped",
    "head_contexts",
    "concat",
    "context",
)
# What the sheet gives: the inputs, and the weights drawn from the seed.
INPUTS = ("x", "x_kv", "w_query", "w_key", "w_value", "b_query", "b_key", "b_value")
OUTPUT_INPUTS = ("w_out", "b_out")  # given where the output projection is asked


@dataclass(frozen=True)
class Line:
    """A line (or paragraph) of words. `style`: "title", "heading", "subheading", "body",
    "formula", "worked" (a derivation), "note", "command" (a command line to type) or "name"
    (a line to write one's name on)."""

    text: str
    style: str = "body"


@dataclass(frozen=True)
class Table:
    """One matrix: `cells` its values as printed, or None for an empty grid to fill.
    `name` and `head` say which array of the trace it is (0-based head, None for arrays
    without one)."""

    name: str
    head: int | None
    title: str
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    cells: tuple[tuple[str, ...], ...] | None = None

    @property
    def blank(self) -> bool:
        return self.cells is None


Block = Line | Table


@dataclass(frozen=True)
class Sheet:
    """One exercise: what the learner gets, and its key (printed from a new page). `footer`
    names the exercise on each of its pages, so that pages dropped apart find their key."""

    exercise: tuple[Block, ...]
    key: tuple[Block, ...]
    footer: str
    key_footer: str


def blank_problem(trace: Trace, name: str) -> str | None:
    """Why array `name` cannot be blanked on a worksheet of `trace` (a clause), or None."""
    if name in INPUTS or name in OUTPUT_INPUTS:
        return _(
            "{name} is given on the sheet (an input or weights drawn from the seed); blank an "
            "array computed from it, e.g. weights"
        ).format(name=name)
    if name == "dropout_keep":
        return _(
            "dropout_keep is drawn at random, not computed: the sheet gives it where dropout "
            "is asked"
        )
    if name not in trace.arrays or name not in BLANKABLE:  # "it has" lists those worth it
        known = ", ".join(blankable(trace))
        return _("this configuration has no array {name} to compute; it has: {known}").format(
            name=repr(name), known=known
        )
    return None


def blankable(trace: Trace) -> tuple[str, ...]:
    """The arrays of `trace` worth blanking, in the order they are computed: not one that is
    another under a second name here (the weights "after" a dropout that drops nothing, the
    concatenation of one head, scores no stage divides or masks), nor the comparison of the
    two masking methods. `blank_problem` still takes them, as `export --view` does."""
    cfg = trace.config
    same = {"weights_neg_inf", "weights_renormalize"}
    if not cfg.dropout_active:
        same.add("weights_dropped")
    if cfg.heads == 1:
        same.add("concat")
        if not cfg.out_proj:
            same.add("context")
    if not trace.step("scale").applies:
        same.add("scaled_scores")
    if not cfg.has_mask:
        same.add("mask")  # every key visible: a grid of False
    if not cfg.has_mask or cfg.method_1:
        same.add("masked_scores")
    return tuple(n for n in trace.names if n in BLANKABLE and n not in same)


def stage_of(trace: Trace, name: str) -> str:
    """The stage that computes array `name` (the mask belongs to the mask stage)."""
    if name == "mask":
        return "mask"
    return next(step.key for step in trace.steps if name in step.writes)


def _head_title(trace: Trace, name: str, head: int | None) -> str:
    symbol, title = array_label(trace.config, name)
    shown = title if symbol in title else f"{title} {symbol}"
    if head is not None and trace.heads > 1:
        return _("{array}, head {head}").format(array=shown, head=head + 1)
    return shown


def _heads(trace: Trace, name: str) -> tuple[int | None, ...]:
    return tuple(range(trace.heads)) if ARRAY_INFO[name].per_head else (None,)


def _labels(trace: Trace, axis: str | None, symbol: str) -> tuple[str, ...]:
    if axis is None:  # a vector: its one row is named by its symbol
        return (symbol,)
    if axis in ("q_tokens", "k_tokens"):
        return tuple(label_token(t) for t in trace.axis_labels(axis, _))
    return trace.axis_labels(axis, _)


def _cell(value: object, kind: str) -> str:
    if kind == "mask":
        return str(bool(value))  # as its title says: "Mask (True = hidden)"
    if kind == "keep":
        return str(int(value))  # 1 = kept, as the worked lines write the keep-mask
    return num(float(value))


def _given(value: float) -> str:
    """An embedding as it was typed: 0.43, not 0.4300."""
    return f"{value:g}"


def table(trace: Trace, name: str, head: int | None, blank: bool = False) -> Table:
    """Array `name` (of `head`) as a table of its values, or an empty grid of its shape."""
    info = ARRAY_INFO[name]
    symbol = array_label(trace.config, name)[0]
    matrix = trace.matrix(name, head or 0)
    rows = _labels(trace, info.rows, symbol)
    cols = _labels(trace, info.cols, symbol)
    title = _head_title(trace, name, head)
    if blank:
        return Table(name, head, title, rows, cols)
    if name in ("x", "x_kv"):  # as typed: the config's numbers, not float32's 0.4300000072
        source = trace.config.embeddings if name == "x" else trace.config.key_embeddings
        cells = tuple(tuple(_given(v) for v in row) for row in source)
    else:
        cells = tuple(tuple(_cell(v, info.kind) for v in row) for row in matrix.tolist())
    return Table(name, head, title, rows, cols, cells)


def _worked_column(trace: Trace, name: str, i: int, columns: int) -> int:
    """The cell of row i whose derivation the key writes: the diagonal's (so that the rows
    show different keys), or the row's first visible key where the mask hides it."""
    j = i if i < columns else 0
    if ARRAY_INFO[name].cols == "k_tokens" and "mask" in trace.arrays and name != "mask":
        hidden = trace.mask[i]
        if hidden[j]:
            visible = np.flatnonzero(~hidden)
            j = int(visible[0]) if visible.size else 0
    return j


def worked_line(trace: Trace, name: str, head: int | None, i: int) -> str:
    """Row i's worked line: one cell's derivation with the real numbers, as the hover writes
    its first line (an output that is the context itself: its derivation too)."""
    columns = trace.matrix(name, head or 0).shape[1]
    j = _worked_column(trace, name, i, columns)
    lines = explain(trace, name, head or 0, i, j).split("\n")
    if name == "context" and "w_out" not in trace.arrays:
        return "\n".join(lines[:2])  # "out3[2] = z3[2]: …", then z3[2]'s sum
    return lines[0]


def _range_of_stages(trace: Trace, blanks: tuple[str, ...]) -> tuple[str, ...]:
    """The stages from the projections to the last one that computes a blanked array."""
    keys = [step.key for step in trace.steps]
    last = max(keys.index(stage_of(trace, name)) for name in blanks)
    return tuple(keys[1 : last + 1])


def _given_arrays(trace: Trace, stages: tuple[str, ...]) -> tuple[str, ...]:
    names = [n for n in INPUTS if n in trace.arrays]
    if "dropout" in stages and trace.config.dropout_active and "dropout_keep" in trace.arrays:
        names.append("dropout_keep")
    if "out_proj" in stages:
        names += [n for n in OUTPUT_INPUTS if n in trace.arrays]
    return tuple(names)


def worksheet(
    trace: Trace,
    blanks: tuple[str, ...],
    *,
    number: int = 1,
    count: int = 1,
    source: str = "",
    open_with: str = "",
) -> Sheet:
    """The worksheet of `trace` with `blanks` to fill, as exercise `number` of `count`.

    `source` names what it was made from (an example, a session); `open_with` is the command
    that opens this very exercise in the window, where "Check my numbers" checks it."""
    cfg = trace.config
    order = {n: k for k, n in enumerate(trace.names)}
    blanks = tuple(sorted(dict.fromkeys(blanks), key=lambda n: order[n]))
    stages = _range_of_stages(trace, blanks)
    which = _("Exercise {number} of {count}, seed {seed}").format(
        number=number, count=count, seed=cfg.seed
    )
    check: list[Block] = []
    if open_with:  # the command on a line of its own: copied whole, not split at a hyphen
        check.append(
            Line(
                _(
                    "To check your numbers, open this exercise in attn_explorer and use "
                    "Check my numbers:"
                ),
                "note",
            )
        )
        check.append(Line(open_with, "command"))
    head: list[Block] = [
        Line(
            _("Attention worksheet: {source}").format(source=source)
            if source
            else _("Attention worksheet"),
            "title",
        ),
        Line(which, "subheading"),
        *check,
        Line(_("Settings: {summary}").format(summary=config_summary(cfg)), "note"),
        Line(_("Name:"), "name"),
    ]
    given: list[Block] = [Line(_("Given"), "heading")]
    given.append(
        Line(_("Tokens: {tokens}").format(tokens=", ".join(label_token(t) for t in cfg.tokens)))
    )
    for name in _given_arrays(trace, stages):
        given += [table(trace, name, h) for h in _heads(trace, name)]
    formulas: list[Block] = [Line(_("Formulas"), "heading")]
    for step in trace.steps:
        # A stage that changes nothing is left out, but for the projections: "Q = K = V = X"
        # is what the learner computes the scores from.
        if step.key in stages and (step.applies or step.key == "projections"):
            words = step_text(step)
            formulas.append(Line(words.title, "subheading"))
            formulas.append(Line(words.formula if step.applies else words.reason, "formula"))
    asked: list[Block] = [
        Line(_("Your turn"), "heading"),
        Line(_("Fill in every cell to 4 decimals.")),
    ]
    if cfg.has_mask and not cfg.method_1 and {"masked_scores", "scaled_scores"} & set(blanks):
        asked.append(Line(_("Write −∞ where the mask hides a score.")))
    for name in blanks:
        asked += [table(trace, name, h, blank=True) for h in _heads(trace, name)]
    key: list[Block] = [Line(_("Answer key: {exercise}").format(exercise=which), "title")]
    for name in blanks:
        for h in _heads(trace, name):
            key.append(table(trace, name, h))
            rows = trace.matrix(name, h or 0).shape[0]
            key += [Line(worked_line(trace, name, h, i), "worked") for i in range(rows)]
    if open_with:
        key.append(Line(_("Open it in attn_explorer:"), "note"))
        key.append(Line(open_with, "command"))
    return Sheet(
        exercise=(*head, *given, *formulas, *asked),
        key=tuple(key),
        footer=which,
        key_footer=_("Answer key: {exercise}").format(exercise=which),
    )
