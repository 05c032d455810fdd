"""The graphics items of a matrix plot that only hold others: what Qt asks of them on every
paint, answered in C++.

A seed move repaints six views, and Qt asks every item of each for its bounds, shape and
paint. pyqtgraph answers for its layouts, plots and view boxes in Python (a call from C++
into Python each time), though they draw nothing themselves. `set_attributes` sets a
QObject's Python attributes without PySide's look-up of Qt properties.
"""

from __future__ import annotations

import pyqtgraph as pg
import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget


class Layout(pg.GraphicsLayout):
    """pyqtgraph's layout with Qt's own bounds and shape: it has no transform, so
    pyqtgraph's (its geometry mapped from its parent, in Python) are the same rectangle."""

    boundingRect = QGraphicsWidget.boundingRect
    shape = QGraphicsWidget.shape


def set_attributes(obj: QObject, **values: object) -> None:
    """Set attributes of a Python subclass of a QObject as those of any Python object.

    PySide looks up every attribute set on a QObject for a Qt property of that name (a full
    attribute lookup, some 5,000 instructions a set), and a matrix plot sets a dozen on each
    seed move. For names that are not Qt properties (none of a plot's own state is)."""
    vars(obj).update(values)


def draw_nothing(*items: QGraphicsItem) -> None:
    """Mark items that paint nothing themselves (no border, no background): Qt then neither
    paints them nor asks their bounds to do so; their children are drawn as before."""
    for item in items:
        item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)


def discard(item: QGraphicsItem) -> None:
    """Delete a graphics tree that no scene and no parent holds, whole and at once.

    Such a tree (an exported figure) belongs to Python. Left to the garbage collector, which
    frees the members of a reference cycle in no set order, it can be deleted from its middle:
    PySide gives a parent no ownership of a QGraphicsObject or QGraphicsWidget made with one
    (pyqtgraph makes each view's child group so), and freeing that item's wrapper deletes it
    and everything under it; a reference one of those held may be the last to an ancestor,
    which is then deleted while it is deleting them, and the process crashes. Deleted from
    its root, the tree goes down in Qt's order and the wrappers are only let go.
    """
    if shiboken6.isValid(item) and item.parentItem() is None and item.scene() is None:
        shiboken6.delete(item)
