"""One text size for the whole window, so a class at the back of a room can read a projector.

Qt can scale a window only at start-up (QT_SCALE_FACTOR); this scales what carries the lesson
while the lesson goes on: the application font (controls, tables, menus), the formulas, and
the live matrices' values, labels, titles and colour bars. Exported figures keep their own
sizes: a figure for a handout does not change with the room it was made in.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtGui import QFont, QGuiApplication

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

STEPS = (0.8, 0.9, 1.0, 1.15, 1.3, 1.5, 1.75, 2.0, 2.5)
SETTING = "view/textSize"
# An exported figure's text against the window's at its normal size. A figure is shown on a
# slide or a page at about its own width or less; at the window's sizes its colour-bar
# ticks (8.5 pt, 11 px), token labels (9 pt, 12 px) and matrix titles (10 pt, 13 px) are
# smaller than matplotlib writes a figure of the same pixel size (10 and 12 pt at 100 dpi:
# 14 and 17 px). Cell values keep their 10 pt (see figures.build_figure).
FIGURE_FACTOR = 1.1


class TextSize(QObject):
    """The factor every followed text size is multiplied by; `changed` after it moves."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.factor = 1.0
        self._base: float | None = None
        self._styled: weakref.WeakSet[QWidget] = weakref.WeakSet()

    def base_points(self) -> float:
        """The application font's size before any scaling (taken the first time it is asked)."""
        if self._base is None:
            size = QGuiApplication.font().pointSizeF() if QGuiApplication.instance() else -1
            self._base = size if size > 0 else 9.0
        return self._base

    def points(self, size: float, follow: bool = True) -> float:
        """`size` points as drawn: times the window's factor, or, for text that does not
        follow the window (an exported figure's), times FIGURE_FACTOR."""
        return size * self.factor if follow else size * FIGURE_FACTOR

    def set_factor(self, factor: float) -> None:
        factor = float(factor)
        factor = min(max(factor, STEPS[0]), STEPS[-1]) if math.isfinite(factor) else 1.0
        if abs(factor - self.factor) < 1e-9:
            return
        base = self.base_points()
        self.factor = factor
        font = QFont(QGuiApplication.font())
        font.setPointSizeF(base * factor)
        QGuiApplication.setFont(font)
        self._restyle()
        self.changed.emit()

    def follow_under_style_sheet(self, widget: QWidget) -> None:
        """Keep `widget`, which has a style sheet, in the application font's size.

        Qt's style-sheet style fixes a widget's font when it polishes it and does not follow a
        later QApplication.setFont: the stale-picture notice and the red messages under the
        controls would stay 9 pt at 200 %. Polishing such a widget again takes the new font.
        Only widgets named here are polished: a sweep over every widget with a style sheet
        would reach Qt's own child widgets, whose wrappers cannot tell when Qt deletes them,
        and crash.
        """
        self._styled.add(widget)

    def _restyle(self) -> None:
        for widget in list(self._styled):
            try:
                style = widget.style()
                style.unpolish(widget)
                style.polish(widget)
            except RuntimeError:  # its C++ half is gone, the Python half not yet
                self._styled.discard(widget)

    def larger(self) -> None:
        self.set_factor(next((s for s in STEPS if s > self.factor + 1e-9), STEPS[-1]))

    def smaller(self) -> None:
        self.set_factor(next((s for s in reversed(STEPS) if s < self.factor - 1e-9), STEPS[0]))

    def reset(self) -> None:
        self.set_factor(1.0)

    def restore(self) -> None:
        """The size the learner chose last time (a bad stored value means the normal size)."""
        try:
            self.set_factor(float(QSettings().value(SETTING, 1.0)))
        except (TypeError, ValueError):
            self.set_factor(1.0)

    def remember(self) -> None:
        QSettings().setValue(SETTING, self.factor)


text_size = TextSize()
