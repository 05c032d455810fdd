"""B − A of one array drawn into a `MatrixPlot`: a diverging map centred on 0, the cells
hidden on one side only hatched (their difference is infinite), the largest change named in
the title. The labels are B's, cut to the tokens both sides have."""

from __future__ import annotations

import numpy as np

from attn_explorer.engine.compare import Comparison
from attn_explorer.text.compare import location
from attn_explorer.text.numbers import num
from attn_explorer.text.titles import array_symbol, array_title
from attn_explorer.ui.heatmap import MatrixPlot
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.trace_plots import Shown, head_note, hidden_cells


def diff_matrix(comparison: Comparison, name: str, head: int) -> np.ndarray | None:
    """The 2-D B − A a view shows for `head`, or None where nothing is compared."""
    diff = comparison[name]
    if diff.diff is None:
        return None
    info = comparison.b.info(name) if name in comparison.b else comparison.a.info(name)
    array = diff.diff
    if info.per_head:
        array = array[min(head, array.shape[0] - 1)]
    return array[None, :] if array.ndim == 1 else array


def largest_in(matrix: np.ndarray) -> tuple[float, tuple[int, int]] | None:
    """The finite cell of largest magnitude of one head's difference, or None if all are 0."""
    finite = np.where(np.isfinite(matrix), np.abs(matrix), -1.0)
    if not finite.size or finite.max() <= 0:
        return None
    where = np.unravel_index(int(finite.argmax()), matrix.shape)
    return float(matrix[where]), (int(where[0]), int(where[1]))


def not_compared_text(comparison: Comparison, name: str) -> str:
    """What a B − A view says where it draws nothing."""
    diff = comparison[name]
    if diff.status == "only_a":
        return _tr("computed in A only")
    if diff.status == "only_b":
        return _tr("computed in B only")
    shapes = ["×".join(map(str, s)) if s else "–" for s in (diff.shape_a, diff.shape_b)]
    return _tr("not comparable: {0} in A, {1} in B").format(*shapes)


def show_diff(
    plot: MatrixPlot, comparison: Comparison, name: str, head: int, title: str | None = None
) -> bool:
    """Draw B − A of array `name` (one head) into `plot`, titled `title` (the all-heads
    grid's "Head 2") or by the array; False (and the plot cleared, its title saying why)
    where the arrays cannot be compared."""
    b = comparison.b if name in comparison.b else comparison.a
    info = b.info(name)
    head_text = "" if title is not None else head_note(b, head, info.per_head)
    title = title if title is not None else array_title(b.config, name)
    matrix = diff_matrix(comparison, name, head)
    if matrix is None:
        plot.clear()
        plot.set_title(
            _tr("<b>B − A: {0}</b> <span style='color:#666'>{1}</span>").format(
                title, not_compared_text(comparison, name)
            )
        )
        plot.shown = Shown(name, head)
        return False
    n_rows, n_cols = matrix.shape
    rows = (
        b.axis_labels(info.rows, _tr)[:n_rows]
        if info.rows is not None
        else (array_symbol(b.config, name),)
    )
    cols = b.axis_labels(info.cols, _tr)[:n_cols]
    # Hatched: a score hidden on one side only (its difference is infinite), and a cell
    # hidden on both sides (0 − 0 says nothing).
    hidden = ~np.isfinite(matrix)
    both = [hidden_cells(t, name) for t in (comparison.a, comparison.b) if name in t]
    if len(both) == 2 and both[0] is not None and both[1] is not None:
        hidden = hidden | (both[0][:n_rows, :n_cols] & both[1][:n_rows, :n_cols])
    plot.set_matrix(
        np.where(hidden, 0.0, matrix).astype(np.float32),
        kind="signed",
        rows=rows,
        cols=cols,
        hidden=hidden if hidden.any() else None,
        name=name,
    )
    found = largest_in(matrix)
    if found is None:
        said = _tr("no change")
    else:
        value, (i, j) = found
        cell = (head, i, j) if info.per_head else (i, j)
        if info.rows is None:
            cell = (head, j) if info.per_head else (j,)
        said = _tr("largest change {0} at {1}").format(num(value), location(b, name, cell))
    plot.set_title(
        _tr("<b>B − A: {0}</b>{1} <span style='color:#666'>{2}</span>").format(
            title, head_text, said
        )
    )
    plot.shown = Shown(name, head)
    return True
