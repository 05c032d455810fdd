"""The board's views repaint a new trace in one paint pass, and never leave a stale picture."""

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject, QPoint, QRect
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from attn_explorer.ui.matrices.paint_pass import OnePaintPass
from tests.ui.conftest import settled


class PaintLog(QObject):
    """Records, in order, the window's paint passes and which views painted in them."""

    def __init__(self, window) -> None:
        super().__init__()
        self.window = window
        self.viewports = {view.viewport(): key for key, view in window.board.views.items()}
        self.events: list[str] = []
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.UpdateRequest and obj is self.window:
            self.events.append("pass")
        elif event.type() == QEvent.Type.Paint and obj in self.viewports:
            self.events.append(self.viewports[obj])
        return False

    def passes(self) -> list[set[str]]:
        """The views painted in each pass of the window."""
        passes: list[set[str]] = []
        for event in self.events:
            if event == "pass":
                passes.append(set())
            elif passes:
                passes[-1].add(event)
        return [views for views in passes if views]

    def stop(self) -> None:
        QApplication.instance().removeEventFilter(self)


@pytest.fixture
def paint_log(window):
    log = PaintLog(window)
    yield log
    log.stop()


def test_a_slider_move_repaints_every_changed_view_in_one_pass(window, paint_log, qtbot):
    changing = {"scores", "weights", "queries", "keys", "values", "context"}  # not the mask
    # Seeds after which the scores' colour bar keeps its width: the example shows its raw
    # masked scores (tutorial 000's order), whose bar narrows once between seeds 5 and 7, a
    # re-layout that OnePaintPass rightly paints in a pass of its own.
    window.controls.seed.spin.setValue(7)
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    qtbot.wait(300)  # the window's first layouts and paints after it was shown
    for seed in (8, 9, 10):
        paint_log.events.clear()
        window.controls.seed.spin.setValue(seed)
        qtbot.waitUntil(
            lambda: settled(window) and changing <= set(paint_log.events), timeout=30_000
        )
        qtbot.wait(50)  # the scenes' own deferred updates come after the pass: none may paint
        assert paint_log.passes() == [changing]


def test_the_values_notice_is_checked_after_a_seeds_picture_before_a_new_shape(
    window, paint_log, qtbot, monkeypatch
):
    """A seed move changes only values: the arrangement stands, and the notice of how the
    values are written is checked once the matrices are on screen, not in the stretch before
    their paint. A new token changes the matrices' shapes: the arrangement is chosen for
    them before anything is painted."""
    board = window.board
    check = type(board)._check_values

    def logged(self):
        paint_log.events.append("check")
        check(self)

    monkeypatch.setattr(type(board), "_check_values", logged)
    window.controls.seed.spin.setValue(7)
    qtbot.waitUntil(lambda: settled(window) and board.settled(), timeout=30_000)
    qtbot.wait(300)
    changing = {"scores", "weights", "queries", "keys", "values", "context"}
    paint_log.events.clear()
    window.controls.seed.spin.setValue(8)
    qtbot.waitUntil(lambda: settled(window) and board.settled(), timeout=30_000)
    events = paint_log.events
    assert events.count("check") == 1
    assert changing <= set(events[: events.index("check")])  # the picture, then the check

    paint_log.events.clear()
    window.doc.queries.insert_tokens(6, 1, np.random.default_rng(3))
    qtbot.waitUntil(lambda: settled(window) and board.settled(), timeout=30_000)
    events = paint_log.events
    first_paint = min(events.index(key) for key in changing if key in events)
    assert "check" in events[:first_paint]


def test_a_new_trace_is_painted_after_the_timers_that_were_due(window, paint_log, qtbot):
    """Setting a trace into the views and painting it are two stretches of the event loop:
    the timers due in between (input, animations, a burst's clock) run between them, so the
    window never stalls for both at once. Every changed view is still painted, in one pass."""
    from dataclasses import replace

    from PySide6.QtCore import QCoreApplication, QTimer

    from attn_explorer.engine import compute

    # Seeds whose colour bars keep their widths (see the first test): a re-layout resizes
    # the views, which Qt repaints at once, held or not.
    window.controls.seed.spin.setValue(7)
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    qtbot.wait(300)
    shown = window.trace
    board = window.board
    changing = {"scores", "weights", "queries", "keys", "values", "context"}
    due = QTimer()
    due.setSingleShot(True)
    due.setInterval(0)
    due.timeout.connect(lambda: paint_log.events.append("due"))
    try:
        for seed in (8, 9):
            paint_log.events.clear()
            trace = compute(replace(shown.config, seed=seed))
            due.start()  # due by the time the trace is set
            board.set_trace(trace)
            QCoreApplication.sendPostedEvents()  # the window's paint requests among them
            assert not changing & set(paint_log.events)
            qtbot.waitUntil(lambda: changing <= set(paint_log.events), timeout=10_000)
            first_paint = min(paint_log.events.index(key) for key in changing)
            assert "due" in paint_log.events[:first_paint]
            assert paint_log.passes()[0] == changing
            # The values' notice is checked once the picture is on screen, and repainted in
            # a pass of its own if it changed: over before the next seed.
            qtbot.waitUntil(board.settled)
            qtbot.wait(50)
    finally:
        board.set_trace(shown)
        qtbot.waitUntil(
            lambda: all(
                view.viewportUpdateMode() == view.UPDATE_MODE for view in board.views.values()
            )
        )


def test_a_view_hidden_before_its_paint_holds_the_others_no_longer(window, qtbot, monkeypatch):
    """The views stay held until they have painted a new trace; one hidden meanwhile (the
    board gives the Q, K, V row's room to the others) will not paint it, and the others
    update themselves again (hovering outlines a row) once they have painted, not after the
    watch gives up."""
    from dataclasses import replace

    from attn_explorer.engine import compute
    from attn_explorer.ui.matrices import paint_pass

    monkeypatch.setattr(paint_pass, "PAINT_WAIT_MS", 600_000)
    qtbot.wait(300)
    board, shown = window.board, window.trace
    keys = board.views["keys"]
    try:
        board.set_trace(compute(replace(shown.config, seed=shown.config.seed + 1)))
        keys.hide()
        qtbot.waitUntil(
            lambda: all(
                view.viewportUpdateMode() == view.UPDATE_MODE for view in board.views.values()
            ),
            timeout=10_000,
        )
    finally:
        keys.show()
        board.set_trace(shown)
        qtbot.waitUntil(
            lambda: all(
                view.viewportUpdateMode() == view.UPDATE_MODE for view in board.views.values()
            ),
            timeout=10_000,
        )


class WidgetPaints(QObject):
    """Counts the paint events of every widget of the window, and the tallest area each
    painted."""

    def __init__(self) -> None:
        super().__init__()
        self.painted: dict[object, int] = {}
        self.tallest: dict[object, int] = {}
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.painted[obj] = self.painted.get(obj, 0) + 1
            self.tallest[obj] = max(self.tallest.get(obj, 0), event.rect().height())
        return False

    def stop(self) -> None:
        QApplication.instance().removeEventFilter(self)


def test_a_seed_change_repaints_the_views_and_the_status_bar_once_and_nothing_else(window, qtbot):
    """The board's controls and hover help keep their pixels: the pin button's texts, set
    again on every trace, and the values' notice, which seeds 8 to 10 change ("rounded to
    2 decimals" comes and goes with a minus sign), re-laid out the window up to the tab
    widget, which repainted the whole page. The status bar, whose labels say the new seed
    and times, is painted once, not again in a pass of its own after its layout, and only
    under the labels that changed."""
    from PySide6.QtWidgets import QStatusBar

    board, pin = window.board, window.compare.pin_button
    window.controls.seed.spin.setValue(7)
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    qtbot.wait(300)
    changing = {board.views[k].viewport() for k in ("scores", "weights", "queries", "keys")}
    changing |= {board.views[k].viewport() for k in ("values", "context")}
    notices = set()
    paints = WidgetPaints()
    try:
        for seed in (8, 9, 10):
            paints.painted.clear()
            paints.tallest.clear()
            window.controls.seed.spin.setValue(seed)
            qtbot.waitUntil(
                lambda: settled(window) and changing <= set(paints.painted), timeout=30_000
            )
            qtbot.wait(50)
            notices.add(board.values_notice.full_text())
            assert {paints.painted[viewport] for viewport in changing} == {1}
            assert board.views["mask"].viewport() not in paints.painted  # the mask is the same
            untouched = [board.explanation, board.score_box, board.weight_box, board.head_box]
            untouched += [board.all_heads, pin, window.tabs.tabBar()]
            assert [widget for widget in untouched if widget in paints.painted] == []
            # The board itself only where the notice changed: its line, not its page.
            assert paints.tallest.get(board, 0) <= board.values_notice.height()
            assert paints.painted[window.findChild(QStatusBar)] == 1
            # Under the two labels whose texts changed: the shapes, the same on a seed
            # move, are not repainted (they were, with the whole bar, when the new texts
            # re-laid it out).
            assert window.shape_text not in paints.painted
            assert paints.painted[window.time_text] == 1
    finally:
        paints.stop()
    assert len(notices) == 2  # the notice did change meanwhile


def screen_image(widget, window) -> QImage:
    """What the window's backing store holds for `widget`: what was painted, stale or not
    (the offscreen platform grabs the backing store; `grab()` would paint afresh)."""
    whole = window.screen().grabWindow(window.winId()).toImage()
    rect = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
    return whole.copy(rect).convertToFormat(QImage.Format.Format_RGB32)


def fresh_image(widget) -> QImage:
    return widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)


def pixels(image: QImage) -> np.ndarray:
    return np.frombuffer(image.constBits(), np.uint8, image.sizeInBytes()).reshape(
        image.height(), image.width(), 4
    )


def stale_pixels(view, window) -> int:
    """Pixels of the view on screen that a fresh render paints differently.

    Glyph edges may differ by up to ~60 levels between the two renders (text rasterised at
    another sub-pixel offset); a stale picture differs by far more: a label left at its old
    place is dark where the fresh render is white.
    """
    screen, fresh = screen_image(view, window), fresh_image(view)
    if screen.size() != fresh.size():
        return screen.width() * screen.height()
    difference = np.abs(pixels(screen).astype(int) - pixels(fresh).astype(int)).max(axis=2)
    return int((difference > 128).sum())


# These tests compare what the window's backing store holds with a fresh render: the paints
# of a window that earlier tests used are part of what they read. With a used window, the
# re-layout test found stale pixels in 3 runs of 8 and never with a new one (0 of 9).
pytestmark = pytest.mark.new_window


def on_screen_as_rendered(window) -> bool:
    """Every view shown (a narrow page hides Q, K and V) as a fresh render paints it."""
    views = [view for view in window.board.views.values() if view.isVisible()]
    return all(stale_pixels(view, window) == 0 for view in views)


def test_the_screen_matches_a_fresh_render_after_moves_that_re_lay_out(window, qtbot):
    """New tokens, a long token name, more heads and another variant move titles, axes and
    colour bars: the views must not keep pre-layout pixels."""
    # Not checked before the first edit: `grab()` paints, and painting lays out what was
    # pending, which would hide a view that fails to do so itself.
    qtbot.wait(300)
    edits = [
        lambda: window.doc.queries.insert_tokens(6, 3, np.random.default_rng(2)),
        lambda: window.doc.queries.setData(
            window.doc.queries.index(0, 0), "a-much-longer-token-name"
        ),
        lambda: window.controls.heads.spin.setValue(3),
        lambda: window.controls.seed.spin.setValue(321),
        lambda: window.board.score_box.setCurrentIndex(2),
    ]
    for edit in edits:
        edit()
        qtbot.waitUntil(lambda: settled(window), timeout=30_000)
        qtbot.wait(300)  # time for every deferred layout and paint: a stale picture outlasts it
        assert on_screen_as_rendered(window)


def test_a_change_outside_a_pass_after_one_leaves_no_stale_pixels(window, qtbot, monkeypatch):
    """A view painted by a pass, changed later without one, repaints all it moved: with
    Qt's minimal updates the row labels of three new tokens were left at their old places."""
    import contextlib

    from attn_explorer.ui.matrices import board as matrix_board

    qtbot.wait(300)  # the first picture, painted by a pass, and its deferred layouts

    class NoPass(contextlib.nullcontext):
        """The views update themselves; what waits for the picture is done at once."""

        def then(self, call):
            call()

    monkeypatch.setattr(matrix_board, "OnePaintPass", lambda views: NoPass())
    window.doc.queries.insert_tokens(6, 3, np.random.default_rng(2))
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    qtbot.wait(300)
    assert on_screen_as_rendered(window)


def test_a_re_layout_left_pending_by_a_pass_is_repainted_when_the_views_resume(window, qtbot):
    """A layout change made inside a pass but not through the plot's methods (neither
    counted nor settled) is carried out by Qt while the views' updates are still held; the
    moved matrix must still reach the screen."""
    qtbot.wait(300)
    plot = window.board.views["weights"].plot
    before = plot.layout_key()
    with OnePaintPass(list(window.board.views.values())):
        plot.plot.getAxis("left").setWidth(120)
    qtbot.wait(300)
    assert plot.layout_key() != before  # the matrix moved right to make room
    assert on_screen_as_rendered(window)


def test_views_update_themselves_again_after_the_pass(window, qtbot):
    """Hovering after a new trace still repaints: the views are back to their usual mode."""
    window.controls.seed.spin.setValue(99)
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    view = window.board.views["weights"]
    qtbot.waitUntil(lambda: view.viewportUpdateMode() == view.UPDATE_MODE)
    before = screen_image(view, window)
    window.board.set_query(3)  # outlines another row, outside any pass
    qtbot.waitUntil(lambda: screen_image(view, window) != before, timeout=5_000)
    qtbot.waitUntil(lambda: on_screen_as_rendered(window), timeout=5_000)


def test_what_a_move_leaves_alone_is_painted_from_caches_on_screen_not_in_figures(window):
    """The title's text, axes and colour bar are pixmaps between moves (the title's text is
    its label's child, which the label's own cache does not hold); a figure for SVG or PDF
    draws them as vector text."""
    from PySide6.QtWidgets import QGraphicsItem

    from attn_explorer.ui.export.figures import FigureSpec, build_figure

    cached = QGraphicsItem.CacheMode.DeviceCoordinateCache

    def parts(plot):
        return [plot.title.item, plot.colorbar, plot.plot.getAxis("left"), plot.plot.getAxis("top")]

    for view in window.board.views.values():
        assert [part.cacheMode() for part in parts(view.plot)] == [cached] * 4
    figure = build_figure(window.trace, FigureSpec("matrices", head=0))
    plots = figure.plots
    assert plots
    for plot in plots:
        assert cached not in [part.cacheMode() for part in parts(plot)]


class PaintedAreas(QObject):
    """The areas the views' viewports were asked to paint."""

    def __init__(self, views) -> None:
        super().__init__()
        self.viewports = {view.viewport(): key for key, view in views.items()}
        self.areas: dict[str, list[QRect]] = {}
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and obj in self.viewports:
            self.areas.setdefault(self.viewports[obj], []).append(event.region().boundingRect())
        return False

    def stop(self) -> None:
        QApplication.instance().removeEventFilter(self)


def test_a_seed_move_repaints_the_cells_and_colour_bars_not_titles_and_axes(window, qtbot):
    """A seed move changes the cells, their values and the colour scales, not the titles
    nor the tokens: each view repaints its cells' box and, where its scale changed, its
    colour bar, and leaves its title and axes (cached pictures blitted again on every
    move) as they are on screen. A new title repaints the whole view."""
    board = window.board
    # The colour bars grow to their widest labels (a re-layout, rightly painted whole) in a
    # first round of the seeds.
    for seed in (7, 8, 9, 10, 7):
        window.controls.seed.spin.setValue(seed)
        qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    qtbot.wait(300)
    changing = ("scores", "weights", "queries", "keys", "values", "context")
    painted = PaintedAreas(board.views)
    try:
        for seed in (8, 9, 10):
            painted.areas.clear()
            window.controls.seed.spin.setValue(seed)
            qtbot.waitUntil(
                lambda: settled(window) and set(changing) <= set(painted.areas), timeout=30_000
            )
            qtbot.wait(50)
            for key in changing:
                view = board.views[key]
                cells = view.mapFromScene(view.plot.view.sceneBoundingRect()).boundingRect()
                bar = view.mapFromScene(view.plot.colorbar.sceneBoundingRect()).boundingRect()
                allowed = cells.adjusted(-2, -2, 2, 2).united(bar.adjusted(-2, -2, 2, 2))
                title = view.mapFromScene(view.plot.title.sceneBoundingRect()).boundingRect()
                for area in painted.areas[key]:
                    assert allowed.contains(area), (key, area, allowed)
                    assert not area.contains(title.center())
            assert on_screen_as_rendered(window)
        painted.areas.clear()
        plot = board.views["keys"].plot
        plot.set_title(plot.title.text + " ")  # outside a pass: the scene's own update
        with OnePaintPass(list(board.views.values())):
            plot.set_title("K")
        qtbot.waitUntil(lambda: "keys" in painted.areas, timeout=5_000)
        whole = board.views["keys"].viewport().rect()
        assert any(area == whole for area in painted.areas["keys"])
    finally:
        painted.stop()
