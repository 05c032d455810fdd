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
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QGraphicsView

from attn_explorer.ui.heatmap import MatrixView

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
        self._layouts: list[tuple[MatrixView, tuple]] = []

    def __enter__(self) -> OnePaintPass:
        self._revisions = [view.plot.revision for view in self.views]
        for view in self.views:
            view.setViewportUpdateMode(_HELD)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        changed = [
            view
            for view, revision in zip(self.views, self._revisions, strict=True)
            if view.plot.revision != revision or error is not None
        ]
        for view in changed:
            view.plot.settle_layout()
            view.viewport().update()
        self._layouts = [(view, view.plot.layout_key()) for view in self.views]
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
