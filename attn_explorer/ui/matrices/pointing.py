"""Pointing at a matrix's cells on the board: a hover explains the cell (under the matrices
and in a tooltip), a click on a query's row follows that query in every view."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QToolTip

from attn_explorer.engine import ARRAY_INFO, Trace

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from attn_explorer.ui.heatmap import CellHover, MatrixPlot
    from attn_explorer.ui.matrices.trace_plots import Shown
    from attn_explorer.ui.widgets import FormulaText


class CellPointing:
    """The board's answers to a hovered or clicked cell. The board (a QWidget) declares the
    signals: `explained` (the explanation written) and `querySelected` (the row followed)."""

    trace: Trace | None
    explainer: Callable[..., str]
    explanation: FormulaText
    explained: SignalInstance
    querySelected: SignalInstance
    set_query: Callable[[int | None], None]

    def explain_cell(self, plot: MatrixPlot, row: int, col: int) -> str:
        shown: Shown = plot.shown
        return self.explainer(self.trace, shown.name, shown.head, row, col)

    def _hovered(self, plot: MatrixPlot, hover: CellHover | None) -> None:
        if hover is None or self.trace is None or getattr(plot, "shown", None) is None:
            QToolTip.hideText()
            return
        text = self.explain_cell(plot, hover.row, hover.col)
        self.explanation.setText(text)
        if hover.screen_pos is not None:
            QToolTip.showText(hover.screen_pos.toPoint(), text)
        self.explained.emit(text)

    def _clicked(self, plot: MatrixPlot, row: int, col: int) -> None:
        if getattr(plot, "shown", None) is None:
            return
        if ARRAY_INFO[plot.shown.name].rows == "q_tokens":
            self.set_query(row)
            self.querySelected.emit(row)
        if self.trace is not None:
            self.explanation.setText(self.explain_cell(plot, row, col))
