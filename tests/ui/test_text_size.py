"""View > Larger text: one text size for the window (a projector), not for exported figures."""

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QFontMetricsF, QGuiApplication
from PySide6.QtWidgets import QApplication

from attn_explorer.ui.export.figures import FigureSpec, build_figure
from attn_explorer.ui.text_size import FIGURE_FACTOR, SETTING, STEPS, text_size


def action(window, text):
    return next(a for a in window.text_size_actions if a.text().replace("&", "") == text)


def test_larger_text_scales_the_window_and_its_matrices(window, normal_size):
    base = text_size.base_points()
    plot = window.board.views["weights"].plot
    formula_height = window.board.explanation.height()
    action(window, "Larger text").trigger()
    assert text_size.factor == pytest.approx(1.15)
    assert QGuiApplication.font().pointSizeF() == pytest.approx(base * 1.15)
    assert plot.cells.font.pointSizeF() == pytest.approx(11.5)
    assert plot.axis_font.pointSizeF() == pytest.approx(base * 1.15)
    assert plot.colorbar.font.pointSizeF() == pytest.approx(8.5 * 1.15)
    assert window.board.explanation.label.font().pointSizeF() == pytest.approx(10.5 * 1.15)
    assert window.board.explanation.height() > formula_height
    assert float(QSettings().value(SETTING)) == pytest.approx(1.15)
    assert window.statusBar().currentMessage() == "Text size 115%"
    action(window, "Normal text size").trigger()
    assert plot.cells.font.pointSizeF() == pytest.approx(10)
    assert window.board.explanation.height() == formula_height


def test_table_columns_follow_the_size_and_keep_a_width_the_user_gave(window, normal_size):
    table = window.editor.query_table
    assert [table.columnWidth(c) for c in range(3)] == [96, 64, 64]
    table.setColumnWidth(2, 150)  # widened by hand to read long values
    action(window, "Larger text").trigger()
    assert [table.columnWidth(c) for c in range(3)] == [110, 74, 172]  # all × 1.15
    assert table.verticalHeader().defaultSectionSize() == 28
    action(window, "Normal text size").trigger()
    assert [table.columnWidth(c) for c in range(3)] == [96, 64, 150]


def test_the_shortcuts_are_the_usual_zoom_keys(window, normal_size):
    keys = {
        a.text().replace("&", ""): [k.toString() for k in a.shortcuts()]
        for a in window.text_size_actions
    }
    assert keys == {
        "Larger text": ["Ctrl++", "Ctrl+="],
        "Smaller text": ["Ctrl+-"],
        "Normal text size": ["Ctrl+0"],
    }


def test_labels_are_measured_in_the_new_size(window, normal_size):
    """Larger labels need more room per column: the scores' column labels, slanted at 45° in
    the normal size, stand upright at 250 %, every token still labelled."""
    plot = window.board.views["scores"].plot
    tokens = ["Your", "journey", "starts", "with", "one", "step"]
    assert (plot.top_axis.angle, plot.tick_labels[1]) == (45, tokens)
    height = plot.top_axis.maximumHeight()
    text_size.set_factor(STEPS[-1])
    assert (plot.top_axis.angle, plot.tick_labels[1]) == (90, tokens)
    assert plot.top_axis.maximumHeight() > 2 * height  # room for "journey" upright


def test_the_size_stops_at_its_smallest_and_largest_steps(normal_size):
    for _ in range(20):
        text_size.larger()
    assert text_size.factor == STEPS[-1]
    for _ in range(20):
        text_size.smaller()
    assert text_size.factor == STEPS[0]


@pytest.mark.parametrize(
    ("stored", "factor"), [("abc", 1.0), ("nan", 1.0), ("inf", 1.0), ("-3", 0.8), ("99", 2.5)]
)
def test_a_bad_stored_size_opens_at_a_size_within_the_steps(normal_size, stored, factor):
    QSettings().setValue(SETTING, stored)
    text_size.restore()
    assert text_size.factor == factor


def test_exported_figures_keep_their_own_size(window, normal_size):
    text_size.set_factor(2.0)
    figure = build_figure(window.trace, FigureSpec("array", "weights"))
    plot = next(item for item in figure.items if hasattr(item, "cells"))
    assert plot.cells.font.pointSizeF() == pytest.approx(10)
    assert plot.axis_font.pointSizeF() == pytest.approx(text_size.base_points() * FIGURE_FACTOR)
    assert plot.colorbar.font.pointSizeF() == pytest.approx(8.5 * FIGURE_FACTOR)


def test_an_exported_stage_is_laid_out_the_same_at_any_text_size(window, normal_size):
    """The empty reason line took the application's font: at 250 % the matrices of an
    exported stage sat 21 px lower."""
    from attn_explorer.ui.export.figures import _Stage

    tops = []
    for factor in (1.0, 2.5):
        text_size.set_factor(factor)
        figure = build_figure(window.trace, FigureSpec("stage", "softmax"))
        stage = _Stage(figure, (1400, 820))
        tops.append([plot.geometry().y() for plot in figure.plots])
        stage.close()
    assert tops[0] == tops[1]


def test_the_step_through_follows_the_size(window, normal_size):
    window.tabs.setCurrentIndex(1)
    figure = window.stepper.figure
    text_size.set_factor(1.5)
    assert figure.title.opts["size"] == "19.5pt"
    assert figure.plots
    assert all(p.cells.font.pointSizeF() == pytest.approx(15) for p in figure.plots)


def test_a_title_too_wide_for_its_matrix_keeps_its_beginning(window, normal_size, qtbot):
    """Centred, "Mask (True = hidden) 6×6" lost both ends at large sizes; now only its end."""
    text_size.set_factor(STEPS[-1])
    title = window.board.views["mask"].plot.title
    qtbot.waitUntil(lambda: title.item.boundingRect().width() > title.width() > 0)
    assert title.item.mapToParent(title.item.boundingRect().topLeft()).x() == 0


def test_a_new_text_size_keeps_the_summary_under_its_notice(window, normal_size, qtbot):
    """The second Ctrl++ drew the config summary over "Text size 130%"."""
    for _ in range(2):
        action(window, "Larger text").trigger()
        qtbot.wait(50)  # the window re-lays out for the new size in posted events
    assert window.statusBar().currentMessage() == "Text size 130%"
    assert not window.status_text.isVisible()
    window.statusBar().clearMessage()
    assert window.status_text.isVisible() and window.shape_text.isVisible()


def test_a_remembered_size_gives_the_status_labels_room_from_the_start(normal_size, qtbot):
    """Measured with the window's font before the remembered size reached it, "X 6×3 →" and
    "engine … ms" were cut off at 200 %."""
    from attn_explorer.ui.main_window import MainWindow

    QSettings().setValue(SETTING, 2.0)
    window = MainWindow()  # restores the size, then builds the status bar
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(2400, 940)  # the labels' widths follow the bar's: room for all three
    window.show()
    qtbot.waitUntil(lambda: window.statusBar().width() >= 2300)
    metrics = QFontMetricsF(QApplication.font())
    usual = metrics.horizontalAdvance("engine 9.9 ms · drawn in 99.9 ms")
    qtbot.waitUntil(lambda: window.time_text.width() >= usual)


def test_a_cut_title_stays_within_its_matrix(qapp):
    """A stage's "Query weights W_q · head 1 3×1" ran on into "Key weights W_k" beside it."""
    import numpy as np
    import pyqtgraph as pg
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage, QPainter

    from attn_explorer.ui.heatmap import ShrinkingLabel

    figure = pg.GraphicsLayout()
    title = ShrinkingLabel("<b>Query weights W_q</b> · head 1 3×1", size="13pt", color="#000")
    figure.addItem(title, row=0, col=0)
    figure.addItem(pg.LabelItem(""), row=0, col=1)  # its neighbour, blank
    scene = pg.GraphicsScene()
    scene.addItem(figure)
    figure.setGeometry(QRectF(0, 0, 160, 40))
    edge = title.geometry().right()
    assert edge < 160
    shown = title.item.toPlainText()  # cut between words, with "…"
    assert shown.endswith(" …") and "Query weights W_q · head 1 3×1".startswith(shown[:-2])
    image = QImage(300, 40, QImage.Format.Format_RGB32)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    scene.render(painter, QRectF(0, 0, 300, 40), QRectF(0, 0, 300, 40))
    painter.end()
    ink = (np.frombuffer(image.constBits(), np.uint8).reshape(40, 300, 4)[..., :3] < 160).any(2)
    assert ink[:, : int(edge)].any()  # its beginning is written
    assert not ink[:, int(edge) + 2 :].any()  # and nothing past its edge


def test_notices_and_messages_under_a_style_sheet_follow_the_size(window, normal_size, qtbot):
    """Qt's style sheets fix a widget's font when polished: the notice beside the tabs and
    the red message under the embeddings stayed 9 pt at 200 %, shown beside 18 pt text."""
    base = text_size.base_points()
    model = window.doc.queries
    model.remove_tokens(list(range(model.rowCount())))
    qtbot.waitUntil(window.stale_banner.isVisible)
    styled = [window.stale_banner, window.editor.error, window.status_text]
    assert window.status_text.styleSheet()  # red: it says what went wrong
    text_size.set_factor(2.0)
    assert [w.font().pointSizeF() for w in styled] == pytest.approx([2 * base] * 3)
    text_size.reset()
    assert [w.font().pointSizeF() for w in styled] == pytest.approx([base] * 3)
    # A font the widget chose itself is kept: the explanation's formulas.
    assert window.board.explanation.label.font().pointSizeF() == pytest.approx(10.5)


def written_in(view) -> tuple[int, float] | None:
    """The decimals and the point size a matrix view writes its values in; None for none."""
    from PySide6.QtCore import QRectF

    cells = view.plot.cells
    cell = cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
    chosen = cells.written(cell)
    if chosen is None:
        return None
    texts, font = chosen
    decimals = max(len(t.partition(".")[2]) for t in texts)  # ("0" and "1" of a mask: none)
    return decimals, font.pointSizeF()


@pytest.mark.parametrize("preset", ["v1", "mha"])
def test_at_150_percent_no_matrix_writes_its_values_smaller_than_at_100(
    window, wait_settled, normal_size, qtbot, preset
):
    """At 1500 × 940 and 150 % the scores and weights were written 0.90 in 9 pt (4 decimals
    in 8 pt at 100 %), and v1's queries 0.43 in 15 pt beside keys written 0.3669 in 12 pt:
    no value is written smaller than at 100 %, and four decimals that fit in 10 pt stay.
    (The cells themselves shrink, by 13 to 25 %, as the labels and colour bars grow: the
    scores no longer hold four decimals in 8 pt, and are written in two, larger.)"""
    window.load_preset(preset)
    wait_settled(window)
    views = window.board.views
    normal = {key: written_in(view) for key, view in views.items()}
    assert normal["queries"] == (4, 10) and normal["scores"] == (4, 8)
    widths = {key: view.plot.view.width() for key, view in views.items()}
    text_size.set_factor(1.5)
    # Re-laid out for the larger labels: each matrix's room changes (mha's context grows).
    qtbot.waitUntil(lambda: all(v.plot.view.width() != widths[k] for k, v in views.items()))
    for view in views.values():
        view.plot.settle_layout()
    large = {key: written_in(view) for key, view in views.items()}
    for key, was in normal.items():
        assert large[key] is not None and large[key][1] >= was[1], (key, was, large[key])
    bottom = [large[key] for key in ("queries", "keys", "values", "context")]
    assert {decimals for decimals, _ in bottom} == {4}, bottom
