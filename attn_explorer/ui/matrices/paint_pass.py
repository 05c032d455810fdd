"""Repaint several graphics views in one paint pass of the window.

When the matrices of a new trace are set, every view's scene schedules its own repaint, and
Qt paints each view in a separate pass of the window (each pass syncs and flushes the window's
backing store): six views, six passes, where one would do.
Inside `OnePaintPass` the views do not schedule repaints for their scenes' changes; after it,
the views whose plots changed are marked for repaint together, and Qt paints them in one pass.
Their scenes' own deferred updates are ignored until the views have painted; the views update
themselves again as usual from then on.

They are marked in a later turn of the event loop than the one that changed them, from a
zero timer: Qt runs the timers already due (input, animations, a burst's own clock) between
setting a trace into the views and painting it, so the window never stalls for both in one
stretch (at 6 tokens, 5 and 10 M instructions of the UI thread: 13 ms in one go on a quiet
machine, over 16 ms on a busy one). A zero-delay `QTimer.singleShot` would not do: Qt sends it
as a posted event, before the timers that are due.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from types import TracebackType

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QRect, QRectF, QTimer
from PySide6.QtWidgets import QGraphicsView

from attn_explorer.ui.heatmap import MatrixView
from attn_explorer.ui.heatmap.plot import MatrixPlot

_HELD = QGraphicsView.ViewportUpdateMode.NoViewportUpdate
# How many passes hold each view: it updates itself again when the last has been painted.
_holds: weakref.WeakKeyDictionary[MatrixView, int] = weakref.WeakKeyDictionary()


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
        self._areas: list[tuple[MatrixView, QRect | None]] = []  # to repaint (None: whole)
        self._then: list[Callable[[], None]] | None = []  # None once painted (`then`)

    def then(self, call: Callable[[], None]) -> None:
        """Call `call` once what changed inside the block is on screen: from the turn of the
        event loop after the views' paint, or at once if that has happened."""
        if self._then is None:
            call()
        else:
            self._then.append(call)

    def _done(self) -> None:
        calls, self._then = self._then or [], None
        for call in calls:
            call()

    def __enter__(self) -> OnePaintPass:
        self._revisions = [view.plot.revision for view in self.views]
        self._frames = [_frame_state(view.plot) for view in self.views]
        for view in self.views:
            _holds[view] = _holds.get(view, 0) + 1
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
        self._areas = []
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
                self._areas.append((view, None))
                continue
            # Only what changed: Qt then neither paints nor blits the title and axes, whose
            # cached pictures stand. Two pixels more for the antialiased edges. One rectangle
            # around the cells and the bar beside them: a clip of two would make Qt blend
            # every picture span by span (3 M instructions more per move than it saves).
            area = QRect()
            for rect in rects:
                area |= view.mapFromScene(rect).boundingRect()
            self._areas.append((view, area.adjusted(-2, -2, 2, 2)))
        if not self.views:
            self._done()
            return
        # After the timers already due: see the module's docstring.
        _after_due_timers(self._paint)

    def _paint(self) -> None:
        """Mark what changed for repaint, in one pass. The views stay held until they have
        painted it: the scenes' own deferred updates (posted events of Qt's, one round
        posting the next, and one more from the paint itself) come until then, and would
        each have a whole view painted again."""
        alive = [view for view in self.views if shiboken6.isValid(view)]  # closed meanwhile?
        waiting = set()
        for view, area in self._areas:
            if view in alive and view.isVisible():  # one hidden since is painted when shown
                if area is None:
                    view.viewport().update()
                else:
                    view.viewport().update(area)
                waiting.add(view.viewport())
        if not waiting:
            self._resume()
            self._done()
            return
        self._watch = _PaintWatch(waiting, self._painted)

    def _painted(self) -> None:
        self._watch = None
        # Posted: after what the paint itself posted.
        QTimer.singleShot(0, self._resume)
        # Seen by the last view's paint event before it is delivered: on the next turn, once
        # the window's paint pass is over, so that `then`'s calls neither lay out nor mark
        # widgets for repaint in its middle.
        QTimer.singleShot(0, self._done)

    def _resume(self) -> None:
        alive = [view for view in self.views if shiboken6.isValid(view)]
        for view in alive:
            holds = _holds.pop(view, 1) - 1
            if holds > 0:  # a later pass holds it still (a new trace set before this one's paint)
                _holds[view] = holds
            elif view.viewportUpdateMode() == _HELD:
                view.setViewportUpdateMode(view.UPDATE_MODE)
        for view, layout in self._layouts:
            if view in alive and view.plot.layout_key() != layout:
                view.viewport().update()


# A view marked for repaint that Qt does not paint (hidden, or its area off screen meanwhile)
# holds the others no longer than this.
PAINT_WAIT_MS = 200


_DONE = (QEvent.Type.Paint, QEvent.Type.Hide)


class _PaintWatch(QObject):
    """Calls `done` once every one of `viewports` has painted (or been hidden), or after
    `PAINT_WAIT_MS`."""

    def __init__(self, viewports: set, done: Callable[[], None]) -> None:
        super().__init__(QCoreApplication.instance())
        self.waiting = viewports
        self.done: Callable[[], None] | None = done
        for viewport in viewports:
            viewport.installEventFilter(self)
        QTimer.singleShot(PAINT_WAIT_MS, self, self._finish)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        # Hidden before its paint (the board's arrangement gives a row's room to the others)
        # is as good: it is painted afresh when shown.
        if event.type() in _DONE and obj in self.waiting:
            self.waiting.discard(obj)
            obj.removeEventFilter(self)
            if not self.waiting:
                self._finish()
        return False

    def _finish(self) -> None:
        done, self.done = self.done, None
        if done is None:
            return
        for viewport in self.waiting:
            if shiboken6.isValid(viewport):
                viewport.removeEventFilter(self)
        self.waiting = set()
        self.deleteLater()
        done()


def _after_due_timers(call: Callable[[], None]) -> None:
    """Call `call` from a zero timer: after the timers already due and the events posted
    before it. (A zero-delay `QTimer.singleShot` is sent as a posted event, before them.)"""
    timer = QTimer(QCoreApplication.instance())
    timer.setSingleShot(True)
    timer.setInterval(0)
    # A closure, not a bound method, which PySide would hold weakly: the pass is gone once
    # its block is left.
    timer.timeout.connect(lambda: call())
    timer.timeout.connect(timer.deleteLater)
    timer.start()


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
