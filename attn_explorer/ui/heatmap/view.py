"""A widget showing one matrix, which the keyboard moves over as the mouse does.

The live windows show a `MatrixPlot` through this view; exported figures and the
step-through lay plots out in their own scenes and do without it.
"""

from __future__ import annotations

from typing import ClassVar

import pyqtgraph as pg
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QGraphicsView, QSizePolicy

from attn_explorer.ui.heatmap.plot import MatrixPlot
from attn_explorer.ui.i18n import tr as _tr


class MatrixView(pg.GraphicsView):
    """A widget showing one MatrixPlot."""

    # Whole-view repaints: the board paints several views in one pass (paint_pass.py), and
    # with Qt's minimal updates a view painted by such a pass and changed later without one
    # would repaint only part of what moved, leaving old row labels on screen.
    UPDATE_MODE = QGraphicsView.ViewportUpdateMode.FullViewportUpdate

    def __init__(self, parent: object = None, **plot_options: object) -> None:
        super().__init__(parent, background="w")
        # Its painter's direction too: right to left, "-0.15" would be written "0.15-".
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.plot = MatrixPlot(**plot_options)
        self.setCentralItem(self.plot)
        self.setViewportUpdateMode(self.UPDATE_MODE)
        self.setMinimumSize(140, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.key_cell: tuple[int, int] | None = None  # the keyboard's cell, while focused

    def paintEvent(self, event: object) -> None:
        # What pyqtgraph's view does before it paints, without its scene's signal: the one
        # item that listens to it here is the plot's view box, which brings its transform
        # up to date (after a resize or a new range) and otherwise returns at once.
        self.plot.view.prepareForPaint()
        QGraphicsView.paintEvent(self, event)

    # The keyboard does what the mouse does: arrows move over the cells as hovering does
    # (outline, explanation), Enter or Space clicks (follows the cell's query). Without it a
    # keyboard user could not follow a query nor read how a cell was computed.
    _MOVES: ClassVar[dict[Qt.Key, tuple[int, int]]] = {
        Qt.Key.Key_Up: (-1, 0),
        Qt.Key.Key_Down: (1, 0),
        Qt.Key.Key_Left: (0, -1),
        Qt.Key.Key_Right: (0, 1),
    }

    def keyPressEvent(self, event: QKeyEvent) -> None:
        plot, key = self.plot, event.key()
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if plot.matrix is None or not plain:
            super().keyPressEvent(event)
            return
        rows, cols = plot.matrix.shape
        if self.key_cell is not None:  # the matrix may have shrunk since (an undo, d_out)
            self.key_cell = (min(self.key_cell[0], rows - 1), min(self.key_cell[1], cols - 1))
        if key in self._MOVES:
            if self.key_cell is None:  # the first press shows where the cursor starts
                followed = plot._highlight
                row = followed if followed is not None and 0 <= followed < rows else 0
                self.key_cell = (row, 0)
            else:
                step_row, step_col = self._MOVES[key]
                row, col = self.key_cell
                self.key_cell = (
                    min(max(row + step_row, 0), rows - 1),
                    min(max(col + step_col, 0), cols - 1),
                )
            row, col = self.key_cell
            centre = plot.view.mapViewToScene(QPointF(col + 0.5, row + 0.5))
            on_screen = self.viewport().mapToGlobal(self.mapFromScene(centre))
            plot._hover(self.key_cell, QPointF(on_screen))
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self.key_cell:
            plot.cellClicked.emit(*self.key_cell)
        else:
            super().keyPressEvent(event)

    @staticmethod
    def key_rows() -> list[tuple[str, str]]:
        """What keyPressEvent answers to, for Help > Keyboard Shortcuts."""
        return [
            (_tr("Move over the cells: outline one and explain it"), "↑ ↓ ← →"),
            (_tr("Follow the query of that cell's row"), _tr("Enter, Space")),
        ]

    def focusOutEvent(self, event: object) -> None:
        if self.key_cell is not None:
            self.key_cell = None
            self.plot._hover(None, None)
        super().focusOutEvent(event)
