"""Outlines of a fixed pixel width: the followed query's row, the hovered cell.

`HIGHLIGHT`, the followed row's colour, is shared with the exported figures, which mark the
same row the same way.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QGraphicsRectItem

HIGHLIGHT = QColor("#ff8c00")


class OutlineItem(QGraphicsRectItem):
    """A rectangle outlined in a pen of a fixed width in pixels, at any zoom: the followed
    query's box, the hovered cell's.

    On screen the pen is cosmetic. With `device_pen` (exported figures) the outline is drawn
    in the device's own coordinates with a plain pen of that width instead: Qt writes a
    cosmetic pen into SVG as vector-effect="non-scaling-stroke" under the cells' scale (a
    cell is one unit, some 100 px), and renderers that ignore it (ImageMagick 6, librsvg
    2.54, slide software) draw the 3 px outline 300 px wide, an orange blob over the matrix;
    and a PNG at 2× would draw it 3 pixels thick, half as thick as at 1×.
    """

    device_pen = False

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        if not self.device_pen:
            super().paint(painter, option, widget)
            return
        rect = painter.transform().mapRect(self.rect())
        pen = QPen(self.pen())
        pen.setCosmetic(False)
        painter.save()
        painter.resetTransform()
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
        painter.restore()
