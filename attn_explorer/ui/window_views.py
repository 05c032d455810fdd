"""The window's matrices and step-through, built with it, or after it is shown.

They are pyqtgraph's, and pyqtgraph takes 0.3-0.5 s to import on two cores, building them
0.3 s more: a window started with `views_later` (ui/main_window.py) reaches the screen with
empty pages in its tabs, holding the picture saved at the last start (ui/start_picture.py),
and these functions put the views in their place in the event loop's next turn.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QMenu, QWidget

from attn_explorer.engine import matching_preset
from attn_explorer.model.views import TABS
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.keys import keep_own_keys, send_undo_to_document

# The main window (not imported: it imports this module).
Window = Any


def new_views(window: Window) -> None:
    """The matrices and the step-through: pyqtgraph is imported here, not before."""
    from attn_explorer.ui.app import configure_pyqtgraph

    configure_pyqtgraph()
    from attn_explorer.ui.matrices.board import MatrixBoard
    from attn_explorer.ui.steps.stepper import StepThrough

    window.board = MatrixBoard()
    window.stepper = StepThrough()


def titles() -> tuple[str, str]:
    return _tr("Matrices"), _tr("Step through")


def pages(window: Window, live: bool) -> None:
    """The tabs' pages: the views (`live`), or empty pages, the page of the view to show
    chosen, until `build` puts the views in their places."""
    if live:
        new_views(window)
    shown = (window.board, window.stepper) if live else (QWidget(), QWidget())
    for page, title in zip(shown, titles(), strict=True):
        window.tabs.addTab(page, title)
    if not live:
        tab = window.doc.view.tab
        window.tabs.setCurrentIndex(TABS.index(tab) if tab in TABS else 0)
        # The examples' box names the example already: it does not change when the views come.
        window.controls.show_example(matching_preset(window.doc.config()))


def hold_compare_menu(window: Window) -> None:
    """The compare tools' menu title in its place before Help (the tools are built with the
    views), so that the menu bar does not change when they come."""
    bar = window.menuBar()
    window.compare_title = bar.insertMenu(bar.actions()[-1], QMenu(_tr("&Compare"), bar))


def swap_in(window: Window) -> None:
    """Put the views in the empty pages' places, the same page shown."""
    tabs, index = window.tabs, window.tabs.currentIndex()
    tabs.blockSignals(True)  # not a tab the learner chose
    pages = (window.board, window.stepper)
    for place, (page, title) in enumerate(zip(pages, titles(), strict=True)):
        old = tabs.widget(place)
        tabs.insertTab(place, page, title)
        tabs.removeTab(place + 1)
        page.setGeometry(old.geometry())  # laid out now, before anything is drawn
        old.deleteLater()
    tabs.setCurrentIndex(index)
    tabs.blockSignals(False)
    window.menuBar().removeAction(window.compare_title)


def build(window: Window) -> None:
    """Put the matrices and the step-through in the tabs of a window shown without them,
    with the picture of these settings drawn on them (as restored, until the engine has
    computed it), and start the engine."""
    if window.views_built:
        return
    window.start_picture.building()
    new_views(window)
    # Wired, and so with the compare tools' button and column, before they are put in the
    # shown tabs: the board is then laid out whole at once, and draws the restored picture
    # with the widths it keeps. (Widgets added to a board already shown are shown in a later
    # turn: the matrices were drawn 36 px wider than in the saved picture, then narrowed.)
    wire(window)
    swap_in(window)
    send_undo_to_document(window)  # the views' spin boxes, now in the window
    ready(window)
    window.window_layout.fit_controls()
    # The engine thread's import of torch holds the interpreter lock for seconds: it starts
    # once the views have drawn their first picture (see `engine_later`).
    _AfterPaint(window.tabs.currentWidget(), window._start_engine)
    window._engine_waited_ms = 0  # the window's timer (`engine_later`) counts from the views


ENGINE_WAIT_MS = 10_000  # the longest a shown window waits for its views' first paint


def engine_later(window: Window) -> None:
    """A second after the window was built, or its views: start the engine if the views'
    first paint has not started it by then.

    A window not shown starts it then. A shown one keeps waiting for that paint, up to
    `ENGINE_WAIT_MS`: on a busy machine the first paint can come seconds after the window
    is built, and torch's import, once begun, holds the interpreter lock that paint needs
    (the restored picture would come after torch instead of before it).
    """
    if window._engine_started:
        return
    window._engine_waited_ms += 1000
    waited_out = window._engine_waited_ms >= ENGINE_WAIT_MS
    if window.views_built and (waited_out or not window.isVisible()):
        window._start_engine()
    elif not waited_out:
        QTimer.singleShot(1000, window._engine_later)


def ready(window: Window) -> None:
    """The views are built: the example's lesson, the view, and the restored picture."""
    window.views_built = True
    window._show_example(window.doc.config(), again=True)
    window.apply_view(window.doc.view)
    window.restored.restore()  # the last picture of these settings, drawn before torch loads
    window.start_picture.views_built()


def wire(window: Window) -> None:
    """Connect the matrices and the step-through to the window and its menus."""
    board, stepper = window.board, window.stepper
    # Pin as A, B − A, heads on and off (ui/compare), built with the views, before their
    # first paint: their button and column are part of the board's layout, and built
    # afterwards they narrowed the matrices under the restored picture (a jump of 13-15 px
    # when the engine's own replaced it).
    window.compare  # noqa: B018
    window.menus.follow_board()
    send_undo_to_document(window)  # the step-through's panels, built later, do the same
    keep_own_keys(stepper)
    window.window_layout.controlsShown.connect(board.set_controls_shown)
    board.querySelected.connect(window._query_chosen)
    stepper.querySelected.connect(window._query_chosen)
    board.head_box.headChosen.connect(stepper.set_head)
    stepper.headChanged.connect(board.set_head)
    stepper.stageChanged.connect(window._stage_chosen)
    stepper.whyScaling.connect(window._why_scaling)
    window.tabs.currentChanged.connect(window._tab_chosen)
    window.controls.preset.activated.connect(window._preset_chosen)
    # The example on screen, named in the examples' box and its lesson under the matrices
    # (in place of the hover help, below it) until an edit leaves it or a hover replaces it.
    window._hover_help = board.explanation.text()


class _AfterPaint(QObject):
    """Calls `then` in the event loop's turn after `widget`'s next paint."""

    def __init__(self, widget: QWidget, then: Any) -> None:
        super().__init__(widget)
        self._then = then
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, watched, self._then)
            self.deleteLater()
        return False
