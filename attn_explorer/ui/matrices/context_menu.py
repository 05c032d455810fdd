"""The right-click menu of a matrix, on the Matrices tab and on the step-through's stage:
check the learner's numbers for that array, copy its values for a spreadsheet, follow the
query of the row clicked, export the array as a figure.

Apart from the views, which know nothing of checks, exports or the window: a view asks
`show_matrix_menu` with the plot and the point clicked, and the menu reaches the window's
own actions (Edit → Check my numbers…, File → Export Figure…) through the view's window.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication, QGraphicsView, QMenu, QWidget

from attn_explorer.engine import ARRAY_INFO
from attn_explorer.text.titles import array_title
from attn_explorer.ui.heatmap import MatrixPlot
from attn_explorer.ui.i18n import tr as _tr

CHECK_KEY = "Ctrl+K"  # Edit → Check my numbers… (ui/menus.py)


def cell_at(plot: MatrixPlot, scene_pos: QPointF) -> tuple[int, int] | None:
    """The (row, column) of `plot`'s cell under `scene_pos`, None outside its cells."""
    if plot.matrix is None:
        return None
    point = plot.view.mapSceneToView(scene_pos)
    row, col = math.floor(point.y()), math.floor(point.x())
    rows, cols = plot.matrix.shape[:2]
    return (row, col) if 0 <= row < rows and 0 <= col < cols else None


def plot_at(view: QGraphicsView, pos: QPoint) -> MatrixPlot | None:
    """The matrix under the view's point `pos`, if any."""
    for item in view.items(pos):
        while item is not None and not isinstance(item, MatrixPlot):
            item = item.parentItem()
        if item is not None:
            return item
    return None


def _number(value: float, dtype: np.dtype) -> str:
    """Every digit the engine holds: the shortest text that reads back as the same number
    of its precision (float32: 0.29940459), never a locale's comma; ±inf as a spreadsheet
    reads it."""
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    if math.isnan(value):
        return ""
    kind = dtype if np.issubdtype(dtype, np.floating) else np.dtype(float)
    return np.format_float_positional(kind.type(value), unique=True, trim="-")


def values_text(plot: MatrixPlot) -> str:
    """The matrix as tab-separated rows, a header row of its column labels and each row led
    by its label (where it has labels): pasted into a spreadsheet, one value a cell."""
    matrix = np.asarray(plot.matrix)
    rows, cols = plot.labels
    lines = []
    if cols:
        lines.append("\t".join(["", *cols]) if rows else "\t".join(cols))
    for r, row in enumerate(matrix):
        cells = [_number(float(v), matrix.dtype) for v in row]
        lines.append("\t".join([rows[r], *cells] if rows else cells))
    return "\n".join(lines) + "\n"


def matrix_menu(plot: MatrixPlot, scene_pos: QPointF, parent: QWidget) -> QMenu | None:
    """The menu for `plot` clicked at `scene_pos`; None where it shows no array."""
    # The check's module waits for a right-click, as the Edit menu's action does (startup).
    from attn_explorer.engine.check import CHECKABLE

    shown = plot.shown
    if shown is None or plot.matrix is None:
        return None
    window = parent.window()
    menu = QMenu(parent)
    check = QAction(_tr("Chec&k my numbers…"), menu)
    check.setShortcut(QKeySequence(CHECK_KEY))  # shown beside it, as in the Edit menu
    check.setEnabled(shown.name in CHECKABLE and hasattr(window, "menus"))
    check.triggered.connect(lambda: _check(window, shown.name, shown.head))
    copy = QAction(_tr("&Copy values"), menu)
    copy.triggered.connect(lambda: QApplication.clipboard().setText(values_text(plot)))
    menu.addActions([check, copy])
    cell = cell_at(plot, scene_pos)
    if ARRAY_INFO[shown.name].rows == "q_tokens" and cell is not None:
        follow = QAction(_tr("&Follow this query"), menu)
        row, col = cell
        follow.triggered.connect(lambda: plot.cellClicked.emit(row, col))  # as a click does
        menu.addAction(follow)
    if hasattr(window, "files"):
        export = QAction(_tr("&Export figure…"), menu)
        export.triggered.connect(lambda: _export(window, plot))
        menu.addAction(export)
    return menu


def _check(window: QWidget, name: str, head: int) -> None:
    dialog = window.menus.show_check()
    if dialog.head != head:
        dialog.set_trace(dialog.trace, head)
    dialog.choose_array(name)


def _export(window: QWidget, plot: MatrixPlot) -> None:
    """File → Export Figure… on this array alone, of the head it shows."""
    shown = plot.shown
    # The window's figure made over into this array's (ui.export imports this package: the
    # spec's class is not imported back).
    spec, _what = window.current_figure()
    spec = dataclasses.replace(
        spec, kind="array", name=shown.name, head=shown.head, query=plot._highlight
    )
    what = array_title(window.trace.config, shown.name) if window.trace else shown.name
    window.files._export_dialog(spec, what, all_stages=False)


def show_matrix_menu(view: QGraphicsView, pos: QPoint, plot: MatrixPlot | None = None) -> None:
    """Open the menu of the matrix at the view's point `pos` (of `plot` where given)."""
    plot = plot if plot is not None else plot_at(view, pos)
    if plot is None:
        return
    menu = matrix_menu(plot, view.mapToScene(pos), view)
    if menu is not None:
        # A menu is made for each right-click; closed, it goes (else every one stays a child
        # of the view for the window's life).
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(view.viewport().mapToGlobal(pos))


def install_matrix_menu(view: QGraphicsView) -> None:
    """Give the matrices `view` shows their right-click menu."""
    view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
    view.customContextMenuRequested.connect(lambda pos: show_matrix_menu(view, pos))
