"""What the learner is looking at in the window (tab, head, followed query, stage, the arrays
chosen in the boxes): shown from a session's view, read back into the document's, and named
for Export Figure. Functions of the window (ui/main_window.py), which delegates to them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from attn_explorer.model.state import ViewState
from attn_explorer.model.views import TABS
from attn_explorer.text.steps import step_text
from attn_explorer.ui.i18n import tr as _tr

if TYPE_CHECKING:
    from attn_explorer.ui.export.figures import FigureSpec

# The main window (not imported: it imports this module).
Window = Any


def apply_view(window: Window, view: ViewState) -> None:
    """Show what a session was looking at: tab, head, followed query, stage."""
    board, stepper = window.board, window.stepper
    stepper.query = view.query
    stepper.set_stage(view.stage)
    for box, name in (
        (board.heads_array, view.heads_array),
        (board.score_box, view.scores_array),
        (board.weight_box, view.weights_array),
    ):
        box.setCurrentIndex(max(0, box.findData(name)))
    board.show_all_heads(view.all_heads)
    board.head = view.head
    stepper.head = view.head
    board.set_head(view.head)
    board.set_query(view.query)
    window.tabs.setCurrentIndex(TABS.index(view.tab) if view.tab in TABS else 0)
    trace = window.trace
    if trace is not None and trace.config == window.doc.config():
        # The picture is already of these settings, so no new one will come to bring the
        # head and query within it (a session opened again with only its view edited).
        board.set_trace(trace)
        stepper.set_trace(trace, stepper.summary)


def sync_view(window: Window) -> None:
    """Copy what the learner is looking at into the document's view."""
    board = window.board
    window.doc.set_view(
        head=board.shown_head,
        heads_array=board.heads_array.currentData(),
        scores_array=board.score_box.currentData(),
        weights_array=board.weight_box.currentData(),
        all_heads=board.all_heads.isChecked(),
        tab=TABS[window.tabs.currentIndex()],
        stage=window.stepper.stage,
    )


def current_figure(window: Window) -> tuple[FigureSpec, str]:
    """What Export Figure saves: the stage on screen, all heads, or the seven matrices."""
    from attn_explorer.ui.export.figures import FigureSpec

    board, stepper, trace = window.board, window.stepper, window.trace
    query = window.doc.view.query
    if trace is not None:
        query = min(query, trace.config.n_q - 1)  # its token may have been removed
    if window.tabs.currentWidget() is stepper:
        step = trace.step(stepper.stage) if trace else None
        what = step_text(step).title if step else stepper.stage
        return FigureSpec("stage", stepper.stage, stepper.shown_head, query), what
    if board.all_heads.isChecked():
        name = board.heads_array.currentData()
        what = _tr("{0}, all heads").format(board.heads_array.currentText())
        return FigureSpec("array", name, None, query), what
    head = board.shown_head
    what = _tr("The seven matrices, head {0}").format(head + 1)
    scores, weights = board.score_box.currentData(), board.weight_box.currentData()
    return FigureSpec("matrices", "", head, query, scores, weights), what
