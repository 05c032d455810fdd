"""The status bar: the summary, shapes and times, and notices that never hide a problem or cut
a number."""

from PySide6.QtCore import Qt

from attn_explorer.engine import PRESETS
from attn_explorer.text.examples import example_text
from attn_explorer.ui.engine_thread import Failure


def test_status_bar_summarises_config_shapes_and_time(window, wait_settled):
    window.controls.heads.spin.setValue(2)
    wait_settled(window)
    assert window.status_text.text() == "linear · d_out 2 · 2 heads (stacked) · causal · seed 123"
    assert window.shape_text.text() == "X 6×3 → Q,K,V 2×6×2 → α 2×6×6 → out 6×4"
    assert window.time_text.text().startswith("engine ")


def test_the_shapes_show_whole_or_elided_never_cut_at_their_start(
    window, stepped_window, wait_settled, qtbot
):
    """After "Why √dₖ? Show me" the shapes read "‹ 8×16 → Q,K,V …": a text a few pixels wider
    than its fixed-width, right-aligned label lost its leading "X" with no sign of it.

    The bar gives the shapes their room in the layout pass after the picture (the timings
    beside them change width with each computation): the test takes the label's own width
    once that pass has given it the whole text."""
    window.stepper.softmax_panel.why.click()
    wait_settled(window)
    label, full = window.shape_text, "X 8×16 → Q,K,V 1×8×64 → α 1×8×8 → out 8×64"
    qtbot.waitUntil(lambda: label.text() == full, timeout=2000)

    def shown_in_full_or_visibly_cut() -> bool:
        fits = label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
        whole = label.text() == full and label.toolTip() == ""
        cut = label.text().startswith("X 8×16") and "…" in label.text()
        return fits and (whole or (cut and label.toolTip() == full))

    assert shown_in_full_or_visibly_cut()
    assert label.full_text() == full
    own = label.width()  # the bar has room for the whole text: the label gets it
    for width in (120, 900, own):  # as a narrower or wider window would size it
        label.setFixedWidth(width)
        assert shown_in_full_or_visibly_cut(), width
        assert (label.text() == full) == (width != 120)


def test_a_seed_move_touches_no_control_tooltip_or_status_style(window, wait_settled):
    """Every move re-checks which controls are enabled and sets the status line; setting an
    unchanged tooltip or style sheet still costs each widget an event (a re-polish for the
    style sheet), 0.6 ms of a 6-token move."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QApplication

    class Count(QObject):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def eventFilter(self, obj, event):
            if event.type() in (QEvent.Type.ToolTipChange, QEvent.Type.StyleChange):
                self.seen.append(type(obj).__name__)
            return False

    window.controls.seed.spin.setValue(500)
    wait_settled(window)
    counter = Count()
    QApplication.instance().installEventFilter(counter)
    try:
        window.controls.seed.spin.setValue(501)
        wait_settled(window)
    finally:
        QApplication.instance().removeEventFilter(counter)
    # Only the status line, whose text (and so tooltip) names the new seed.
    assert counter.seen == ["QLabel"]
    assert "seed 501" in window.status_text.toolTip()


def test_the_status_follows_the_picture_and_times_its_drawing(window, wait_settled):
    """The summary and times are written once the matrices are on screen, not in a paint
    pass before theirs; "drawn in" is the time from the result to the pixels, so it is at
    least the time from the trace set to the last changed view painted."""
    import re
    import time

    from PySide6.QtCore import QEvent, QObject

    board = window.board
    changing = {board.views[k].viewport() for k in ("scores", "weights", "queries", "context")}
    events: list[tuple[str, float]] = []

    class Watch(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.Paint and obj in changing:
                events.append(("painted", time.perf_counter()))
            elif event.type() == QEvent.Type.ToolTipChange and obj is window.status_text:
                events.append(("status", time.perf_counter()))  # the summary names the seed
            return False

    def shown(_trace):
        events.append(("set", time.perf_counter()))

    watch = Watch()
    watched = [*changing, window.status_text]
    for widget in watched:
        widget.installEventFilter(watch)
    window.traceShown.connect(shown)
    try:
        window.controls.seed.spin.setValue(640)
        wait_settled(window)
    finally:
        for widget in watched:
            widget.removeEventFilter(watch)
        window.traceShown.disconnect(shown)
    assert "seed 640" in window.status_text.toolTip()
    kinds = [kind for kind, _ in events]
    assert kinds[0] == "set" and kinds[-1] == "status" and kinds.count("status") == 1
    assert kinds.count("painted") >= len(changing)
    last_paint = max(t for kind, t in events if kind == "painted")
    drawn_ms = float(re.search(r"drawn in ([0-9.]+) ms", window.time_text.full_text())[1])
    assert drawn_ms >= (last_paint - events[0][1]) * 1e3 - 0.05


def test_loading_an_example_names_it_until_the_next_edit(window, qtbot, wait_settled):
    preset = PRESETS["causal"]
    window.load_preset("causal")
    wait_settled(window)
    qtbot.wait(20)
    bar = window.statusBar()
    # The new picture's summary must not overwrite the notice.
    assert bar.currentMessage() == f"Loaded example “{example_text(preset.name).title}”"
    assert not window.status_text.isVisible()
    window.controls.seed.spin.setValue(window.controls.seed.spin.value() + 1)
    wait_settled(window)
    assert bar.currentMessage() == ""
    assert window.status_text.isVisible()
    assert window.status_text.text().startswith("linear · d_out")


def test_a_problem_is_not_hidden_behind_a_notice(window, qtbot, wait_settled):
    window.controls.layout_box.setCurrentIndex(window.controls.layout_box.findData("split"))
    window.controls.d_out.spin.setValue(5)
    wait_settled(window)
    window.notify("Saved somewhere")
    window.controls.heads.spin.setValue(2)
    qtbot.waitUntil(lambda: bool(window.problems))
    assert window.statusBar().currentMessage() == ""
    assert window.status_text.isVisible()
    assert "d_out 5 cannot be split" in window.status_text.text()


def test_an_engine_failure_after_a_notice_clears_the_notice(window):
    """No edit in between (a loaded example whose numbers overflow): the failure itself must
    clear the notice, or the notice would hide it."""
    window.notify("Loaded an example")
    window._show_failure(Failure(window.bridge.generation, "Scores overflowed float32.", None))
    assert window.statusBar().currentMessage() == ""
    assert window.status_text.isVisible()
    assert window.status_text.text() == "Scores overflowed float32."


def test_a_long_notice_takes_the_shapes_room_and_a_longer_one_is_cut_in_the_middle(
    window, stepped_window
):
    bar = window.statusBar()
    assert window.shape_text.x() - 8 == window.time_text.x() - 8 - window.shape_text.width() - 6
    window.notify("Saved a.json")  # fits: the shapes stay, no tooltip
    assert bar.currentMessage() == "Saved a.json" and bar.toolTip() == ""
    assert window.shape_text.isVisible()

    window.resize(960, 760)  # a small screen: the demonstration's notice needs the shapes' room
    window.stepper.softmax_panel.why.click()
    assert "Ctrl+Z undoes the demo." in bar.currentMessage()
    assert bar.toolTip() == "" and not window.shape_text.isVisible()
    bar.clearMessage()  # the notice's time is up: the shapes come back
    assert window.shape_text.isVisible()

    path = "/home/teacher/" + "lectures/" * 40 + "attention-week-3.png"
    window.notify(f"Exported {path}")  # longer than the whole bar: cut, whole in the tooltip
    shown = bar.currentMessage()
    assert shown.startswith("Exported /home/") and shown.endswith("week-3.png") and "…" in shown
    assert bar.fontMetrics().horizontalAdvance(shown) <= window.time_text.x() - 8
    assert bar.toolTip() == f"Exported {path}"
    window.notify("Saved a.json")  # a short notice after it brings the shapes back at once
    assert window.shape_text.isVisible() and bar.toolTip() == ""
    bar.clearMessage()
    assert bar.toolTip() == ""


def test_notices_fit_a_right_to_left_status_bar(window):
    """Measured as if left to right, every notice became "…" beside labels on the left."""
    bar = window.statusBar()
    window.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
    try:
        window.resize(1501, 940)  # lay the bar out right to left
        window.resize(1500, 940)
        assert window.time_text.x() < window.shape_text.x() < bar.width() // 2
        window.notify("Saved a.json")
        assert bar.currentMessage() == "Saved a.json" and window.shape_text.isVisible()
        path = "/home/teacher/" + "lectures/" * 40 + "attention-week-3.png"
        window.notify(f"Exported {path}")
        shown = bar.currentMessage()
        assert shown.startswith("Exported /home/") and shown.endswith("week-3.png")
        right_end = window.time_text.geometry().right() + 1 + 2
        assert bar.fontMetrics().horizontalAdvance(shown) <= bar.width() - 12 - right_end
    finally:
        window.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
