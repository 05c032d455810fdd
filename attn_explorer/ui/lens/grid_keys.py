"""The model view's keyboard: a frame around one layer × head map, moved by the keys as in a
table, and Enter or Space to open the framed head in the lab.

A learner who reads the grid from the keyboard, or who wants to walk head by head, then need
not aim the pointer at maps 96 pixels wide. The keys are those of a table or a spreadsheet:
the arrows move one map, Home and End go to the first and last head of the layer, Page Up and
Page Down to the first and last layer (the same head), Ctrl+Home and Ctrl+End to the first and
the last map of all. The window prepares the framed head ahead as it does a pointed one
(`ModelWindow._aim`), so Enter opens it as fast as a click on a head the pointer rested on.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QWidget

# Orange: seen against the maps' white and their deep blue alike.
FRAME_COLOUR = QColor(230, 85, 13)
FRAME_WIDTH = 3  # pixels on screen, whatever the zoom

OPEN_KEYS = frozenset({Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space})


def moved(
    focus: tuple[int, int], key: int, control: bool, layers: int, heads: int
) -> tuple[int, int] | None:
    """Where `key` (with Ctrl held when `control`) moves the frame from `focus` = (layer, head),
    from 0, in a grid of `layers` × `heads`; None for a key that does not move it. The frame
    stops at the grid's edges: an arrow pressed at an edge leaves it where it is."""
    layer, head = focus
    last_layer, last_head = layers - 1, heads - 1
    if key == Qt.Key.Key_Home:
        return (0, 0) if control else (layer, 0)
    if key == Qt.Key.Key_End:
        return (last_layer, last_head) if control else (layer, last_head)
    steps = {
        Qt.Key.Key_Left: (0, -1),
        Qt.Key.Key_Right: (0, 1),
        Qt.Key.Key_Up: (-1, 0),
        Qt.Key.Key_Down: (1, 0),
        Qt.Key.Key_PageUp: (-layers, 0),
        Qt.Key.Key_PageDown: (layers, 0),
    }
    if key not in steps:
        return None
    down, across = steps[key]
    return (
        min(max(layer + down, 0), last_layer),
        min(max(head + across, 0), last_head),
    )


class GridKeys(QObject):
    """Reads the keys pressed in the grid's widget `plot` and draws the frame in `view` (whose
    coordinates are the grid image's pixels). `focusMoved(layer, head)` when the frame moves,
    or appears as the widget takes the keyboard focus from the keyboard (Tab); `chosen(layer,
    head)` on Enter or Space. The window tells it the grid's size and places (`show_grid`)."""

    focusMoved = Signal(int, int)
    chosen = Signal(int, int)

    def __init__(self, plot: QWidget, view: pg.ViewBox) -> None:
        super().__init__(plot)
        self.plot = plot
        self.focus = (0, 0)  # (layer, head), from 0
        self.grid = None  # the lens Grid shown: its size and where each map is
        self.frame = QGraphicsRectItem()
        pen = QPen(FRAME_COLOUR)
        pen.setWidth(FRAME_WIDTH)
        pen.setCosmetic(True)
        self.frame.setPen(pen)
        self.frame.setZValue(10)  # over the image
        self.frame.hide()
        view.addItem(self.frame)
        plot.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        plot.installEventFilter(self)

    def show_grid(self, grid: object) -> None:
        """A new grid (a new text): the frame keeps its head, placed on the new maps."""
        self.grid = grid
        layer, head = self.focus
        self.focus = (min(layer, grid.layers - 1), min(head, grid.heads - 1))  # type: ignore[attr-defined]
        self._place()

    def put(self, layer: int, head: int) -> None:
        """Frame this head without announcing it (a head opened by a click: the keys go on
        from there)."""
        self.focus = (layer, head)
        self._place()

    def _place(self) -> None:
        if self.grid is None:
            return
        x, y = self.grid.origin(*self.focus)  # type: ignore[attr-defined]
        tile = self.grid.tile  # type: ignore[attr-defined]
        self.frame.setRect(QRectF(x - 1.5, y - 1.5, tile + 3, tile + 3))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is not self.plot or self.grid is None:
            return False
        kind = event.type()
        if kind == QEvent.Type.FocusIn:
            if event.reason() == Qt.FocusReason.MouseFocusReason:  # type: ignore[attr-defined]
                return False  # a click opens its own head; the frame waits for a key
            self._place()
            self.frame.show()
            self.focusMoved.emit(*self.focus)
        elif kind == QEvent.Type.FocusOut:
            self.frame.hide()
        elif kind == QEvent.Type.KeyPress:
            return self._pressed(event)  # type: ignore[arg-type]
        return False

    def _pressed(self, event: QKeyEvent) -> bool:
        key = event.key()
        if key in OPEN_KEYS and not event.isAutoRepeat():
            self.chosen.emit(*self.focus)
            return True
        control = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        grid = self.grid
        target = moved(self.focus, key, control, grid.layers, grid.heads)  # type: ignore[union-attr]
        if target is None:
            return False  # Tab and the rest go on as usual
        self.frame.show()
        if target != self.focus:
            self.focus = target
            self._place()
            self.focusMoved.emit(*target)
        return True
