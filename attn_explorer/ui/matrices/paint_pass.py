"""Repaint several graphics views in one paint pass of the window.

When the matrices of a new trace are set, every view's scene schedules its own repaint, and
Qt paints each view in a separate pass of the window (each pass syncs and flushes the window's
backing store): six views, six passes, where one would do.
Inside `OnePaintPass` the views do not schedule repaints for their scenes' changes; on leaving
it, the views whose plots changed are marked for repaint together, and Qt paints them in one
pass. Their scenes' own deferred updates, which arrive after that pass, are ignored until the
next turn of the event loop, when the views update themselves again as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import TracebackType

import shiboken6
from PySide6.QtCore import QRect, QRectF, QTimer
from PySide6.QtWidgets import QGraphicsView

from attn_explorer.ui.heatmap import MatrixView
from attn_explorer.ui.heatmap.plot import MatrixPlot

_HELD = QGraphicsView.ViewportUpdateMode.NoViewportUpdate


class OnePaintPass:
    """`with OnePaintPass(views): ...` — changes made inside are painted in one pass.

    A view is repainted if its plot's `revision` moved inside the block. A re-layout that
    Qt carries out after the block (new token labels, a new title) is caught when the views
    go back to updating themselves: a view whose parts moved meanwhile is repainted then.
    """

    def __init__(self, views: Sequence[MatrixView]) -> None:
        self.views = [view for view in views if view.isVisible()]
        self._revisions: list[int] = []
        self._frames: list[tuple] = []
        self._layouts: list[tuple[MatrixView, tuple]] = []

    def __enter__(self) -> OnePaintPass:
        self._revisions = [view.plot.revision for view in self.views]
        self._frames = [_frame_state(view.plot) for view in self.views]
        for view in self.views:
            view.setViewportUpdateMode(_HELD)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        before = zip(self.views, self._revisions, self._frames, strict=True)
        self._layouts = []
        for view, revision, frame in before:
            if view.plot.revision == revision and error is None:
                # Where it was at the start: moved since, it is repainted when resumed.
                self._layouts.append((view, frame[1]))
                continue
            view.plot.settle_layout()
            layout = view.plot.layout_key()
            self._layouts.append((view, layout))
            rects = None if error is not None else _changed_rects(view.plot, frame, layout)
            if rects is None:
                view.viewport().update()
                continue
            # Only what changed: Qt then neither paints nor blits the title and axes, whose
            # cached pictures stand. Two pixels more for the antialiased edges. One rectangle
            # around the cells and the bar beside them: a clip of two would make Qt blend
            # every picture span by span (3 M instructions more per move than it saves).
            area = QRect()
            for rect in rects:
                area |= view.mapFromScene(rect).boundingRect()
            view.viewport().update(area.adjusted(-2, -2, 2, 2))
        # After the scenes' deferred updates, which were posted before this timer's event.
        QTimer.singleShot(0, self._resume)

    def _resume(self) -> None:
        alive = [view for view in self.views if shiboken6.isValid(view)]  # closed meanwhile?
        for view in alive:
            if view.viewportUpdateMode() == _HELD:
                view.setViewportUpdateMode(view.UPDATE_MODE)
        for view, layout in self._layouts:
            if view in alive and view.plot.layout_key() != layout:
                view.viewport().update()


def _frame_state(plot: MatrixPlot) -> tuple:
    """What is drawn around the cells, and where: compared by `_changed_rects`."""
    bar = plot.colorbar
    return (plot.frame_revision, plot.layout_key(), bar.revision if bar is not None else 0)


def _changed_rects(plot: MatrixPlot, before: tuple, layout: tuple) -> list[QRectF] | None:
    """The scene's rectangles to repaint for what changed since `_frame_state` gave
    `before` (`layout`: the plot's `layout_key` of now): the cells' box (the view box clips
    the cells, values, hatching and outlines to it), and the colour bar where its levels or
    colours changed; None where anything around the cells changed or moved (the whole view
    is repainted). A seed move repaints the cells, not the title's and axes' pictures."""
    frame, layout_before, bar_revision = before
    if frame != plot.frame_revision or layout != layout_before:
        return None
    rects = [QRectF(*layout)]
    bar = plot.colorbar
    if bar is not None and bar.revision != bar_revision and plot.colorbar_shown:
        rects.append(bar.mapRectToScene(bar.rect()))
    return rects
