"""A projector at 1024 × 768 or 1280 × 720, at a large text size: the window fits, and what is
cut is cut visibly ("…", at a word), never so that it reads as something else."""

import re

import numpy as np
import pytest
from PySide6.QtGui import QFontMetricsF, QGuiApplication

from attn_explorer.ui.main_window import MainWindow
from attn_explorer.ui.steps.stepper import STAGE_LABEL
from attn_explorer.ui.text_size import text_size


def numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?", text)


def cut_at_a_word(shown: str, full: str) -> bool:
    """`shown` is `full`, or words of it with "…" where the rest was left out: every number
    shown is one of `full`'s numbers, whole."""
    if shown == full:
        return True
    if "…" not in shown:
        return False
    kept = [part.strip() for part in shown.split("…") if part.strip()]
    words = full.split()
    for part in kept:
        part_words = part.split()
        found = any(
            words[i : i + len(part_words)] == part_words
            for i in range(len(words) - len(part_words) + 1)
        )
        if not found:
            return False
    return all(n in numbers(full) for n in numbers(shown))


@pytest.fixture(autouse=True)
def no_garbage_widgets(qapp):
    """Collect what earlier tests left behind before a text size is set. After
    tests/ui/test_figures.py, QApplication.allWidgets() (which a new text size walks)
    crashes until the collector has run: test_figures.py then test_text_size.py crash the
    same way at bef8deb, before these tests existed."""
    import gc

    from PySide6.QtCore import QCoreApplication, QEvent

    gc.collect()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture
def sized_window(window, qtbot, wait_settled, normal_size):
    """The window at a text size, on an example. (Windows opened at a remembered size, one
    per test, crashed a later text-size change in the whole suite: a widget of an earlier
    test's window was half destroyed when it was polished again.)"""

    def make(factor: float, preset: str = "v1") -> MainWindow:
        text_size.set_factor(factor)
        window.load_preset(preset)
        wait_settled(window)
        qtbot.wait(50)  # the window re-fits itself to the new size in posted events
        return window

    return make


@pytest.mark.parametrize("factor", [1.5, 2.0])
def test_the_window_fits_a_1024_pixel_projector_at_a_large_text_size(sized_window, qtbot, factor):
    """At 150 % the window could not be made narrower than 1112 px, at 200 % 1396 px: on a
    1024 × 768 projector the weights' colour bar and the context were off the screen."""
    window = sized_window(factor, "wrapper")
    screen = QGuiApplication.primaryScreen().availableGeometry()
    most = min(1000, screen.width())
    for page in ("matrices", "grid", "steps"):
        window.board.show_all_heads(page == "grid")
        window.tabs.setCurrentIndex(1 if page == "steps" else 0)
        qtbot.wait(20)
        hint = window.minimumSizeHint()
        assert hint.width() <= most, (page, hint)
        assert hint.height() <= 660, (page, hint)  # 1280 × 720, below a title bar and a panel
    window.resize(most, 660)
    qtbot.waitUntil(lambda: window.width() == most)


def test_row_labels_never_run_into_each_other(window, qtbot, normal_size):
    """At 200 % in a short window "journey" ran into "starts": rows thinned only below 15 px."""
    text_size.set_factor(2.0)
    window.resize(1000, 560)
    qtbot.wait(100)
    for key in ("scores", "weights", "queries", "keys", "values", "context"):
        plot = window.board.views[key].plot
        tokens = plot._row_labels
        rows_px = plot.view.size().height()
        line = QFontMetricsF(plot.axis_font).height()
        shown = plot.tick_labels[0]
        assert shown, key
        if len(shown) > 1:
            stride = tokens.index(shown[1]) - tokens.index(shown[0])
            assert stride * rows_px / len(tokens) >= line, (key, shown)


def test_the_hover_help_gives_a_short_window_to_the_matrices(sized_window, qtbot):
    """At 1024 × 768 and 200 % the two lines of instructions kept 165 px, four lines' worth."""
    window = sized_window(2.0)
    window.resize(1000, 660)
    qtbot.waitUntil(lambda: window.height() == 660)
    qtbot.wait(20)
    help_pane = window.board.explanation
    line = help_pane.label.fontMetrics().lineSpacing()
    assert help_pane.height() <= 3 * line + 16
    height = help_pane.height()
    help_pane.setText("a\nlong\nexplanation\nof\nsix\nlines")  # as a hover writes it
    assert help_pane.height() == height  # a hover never moves the matrices


def test_the_hover_help_keeps_its_four_lines_in_a_tall_window(window, qtbot):
    window.resize(1500, 940)
    qtbot.wait(20)
    help_pane = window.board.explanation
    assert help_pane.height() >= 4 * help_pane.label.fontMetrics().lineSpacing()


def test_the_summary_is_cut_at_a_word_with_an_ellipsis(sized_window, qtbot):
    """At 1280 × 720 and 150 % the status bar read "… · causal · seed 12" for seed 123."""
    window = sized_window(1.5, "causal")
    window.statusBar().clearMessage()
    window.resize(900, 660)
    qtbot.waitUntil(lambda: window.width() == 900)
    qtbot.wait(20)
    label = window.status_text
    full = label.toolTip()
    assert "seed" in full
    assert label.fontMetrics().horizontalAdvance(label.text()) <= label.contentsRect().width()
    assert cut_at_a_word(label.text(), full), label.text()
    window.resize(1900, 660)
    qtbot.waitUntil(lambda: label.text() == full)


def test_the_shapes_have_room_where_the_bar_has_it(window, wait_settled, qtbot):
    """Cross-attention at 1500 × 940 showed "Q 2×4×2, K,V…" beside free room.

    The bar's widths settle in the layout pass after the picture (the timings beside the
    shapes change width with each computation), so the test waits for that pass."""
    window.load_preset("cross")
    wait_settled(window)
    label = window.shape_text
    qtbot.waitUntil(lambda: label.text() == label.full_text(), timeout=2000)
    assert label.text() == "X 4×3 → Q 2×4×2, K,V 2×6×2 → α 2×4×6 → out 4×4"


def test_a_stage_title_too_wide_is_cut_at_a_word_with_an_ellipsis(
    window, stepped_window, wait_settled, qtbot
):
    """At 1024 px the projections' title ended at "· seed", its number cut off."""
    window.load_preset("dropout")
    wait_settled(window)
    window.tabs.setCurrentWidget(window.stepper)
    steps = window.stepper
    qtbot.waitUntil(steps.isVisible)
    steps.set_stage("projections")
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.width() == 1024)
    qtbot.wait(50)
    title = steps.figure.title
    full = re.sub("<[^>]+>", "", title.text).replace("&nbsp;", " ")
    shown = title.item.toPlainText()
    assert shown != full, "the test needs a title too wide for its room"
    assert cut_at_a_word(shown, full), shown
    width = title.item.boundingRect().width() * title.item.scale()
    assert width <= title.rect().width() + 1


def test_stage_tabs_shorten_to_something_shorter(window, stepped_window, qtbot):
    """At 1024 × 768 the tabs read "3 ...", "8 ...": as long as "3 Q·Kᵀ" and "8 α·V"."""
    window.resize(1024, 740)
    window.tabs.setCurrentWidget(window.stepper)
    steps = window.stepper
    qtbot.waitUntil(steps.isVisible)
    qtbot.wait(50)
    bar = steps.stages
    metrics = bar.fontMetrics()
    for index in range(bar.count()):
        full = f"{index + 1} {STAGE_LABEL[steps.keys[index]]}"  # in the trace's order
        text = bar.tabText(index)
        assert bar.tabRect(index).right() <= bar.width()
        # Written as set (no elision by the bar itself) ...
        assert bar.tabRect(index).width() >= bar.tabSizeHint(index).width()
        # ... and either whole, or shorter than the whole.
        assert text == full or metrics.horizontalAdvance(text) < metrics.horizontalAdvance(full)
        assert text.startswith(str(index + 1))
    short = [bar.tabText(i) for i in range(bar.count())]
    assert "3 Q·Kᵀ" in short and "8 α·V" in short  # short names are never shortened first


def test_softmax_bars_labels_and_title_fit(window, stepped_window, wait_settled, qtbot):
    """At 1024 × 768 the keys' labels ran together ("Yourjourney") and the title was cut at
    "(row"."""
    window.resize(1024, 900)
    window.tabs.setCurrentWidget(window.stepper)
    steps = window.stepper
    qtbot.waitUntil(steps.isVisible)
    steps.set_stage("softmax")
    qtbot.waitUntil(steps.extras.isVisible)
    qtbot.wait(50)
    panel = steps.softmax_panel
    for plot in (panel.score_plot, panel.weight_plot, panel.sweep_plot):
        axis = plot.getAxis("bottom")
        ticks = axis._tickLevels[0]
        metrics = QFontMetricsF(axis.style["tickFont"] or axis.font())
        per_bar = plot.getViewBox().width() / len(panel.labels)
        positions = [x for x, _ in ticks]
        widest = max(metrics.horizontalAdvance(t) for _, t in ticks)
        gaps = np.diff(positions) * per_bar
        assert not gaps.size or gaps.min() >= widest + 4, (gaps, widest)
        title = plot.getPlotItem().titleLabel
        assert title.item.boundingRect().width() <= title.width() + 1, title.text
