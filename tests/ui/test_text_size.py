"""View > Larger text: one text size for the window (a projector), not for exported figures."""

import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QGuiApplication

from attn_explorer.ui.figures import FigureSpec, build_figure
from attn_explorer.ui.text_size import SETTING, STEPS, text_size


@pytest.fixture
def normal_size(qapp):
    text_size.reset()
    yield
    text_size.reset()
    text_size.remember()


def action(window, text):
    return next(a for a in window.text_size_actions if a.text().replace("&", "") == text)


def test_larger_text_scales_the_window_and_its_matrices(window, normal_size, qtbot):
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


def test_labels_are_measured_in_the_new_size(window, normal_size, qtbot):
    """Larger labels need more room per column: the 6-token scores slant or thin them."""
    plot = window.board.views["scores"].plot
    assert plot.top_axis.angle == 0 or len(plot.tick_labels[1]) == 6
    text_size.set_factor(STEPS[-1])
    assert plot.top_axis.angle != 0 or len(plot.tick_labels[1]) < 6


def test_the_size_stops_at_its_smallest_and_largest_steps(normal_size):
    for _ in range(20):
        text_size.larger()
    assert text_size.factor == STEPS[-1]
    for _ in range(20):
        text_size.smaller()
    assert text_size.factor == STEPS[0]


@pytest.mark.parametrize("stored", ["abc", "nan", "-3", "inf"])
def test_a_bad_stored_size_opens_at_a_size_within_the_steps(normal_size, stored):
    QSettings().setValue(SETTING, stored)
    text_size.restore()
    assert STEPS[0] <= text_size.factor <= STEPS[-1]
    if stored in ("abc", "nan"):
        assert text_size.factor == 1.0


def test_exported_figures_keep_their_own_size(window, normal_size):
    text_size.set_factor(2.0)
    figure = build_figure(window.trace, FigureSpec("array", "weights"))
    plot = next(item for item in figure.items if hasattr(item, "cells"))
    assert plot.cells.font.pointSizeF() == pytest.approx(10)
    assert plot.axis_font.pointSizeF() == pytest.approx(text_size.base_points())
    assert plot.colorbar.font.pointSizeF() == pytest.approx(8.5)


def test_the_step_through_follows_the_size(window, normal_size, qtbot):
    window.tabs.setCurrentIndex(1)
    figure = window.stepper.figure
    text_size.set_factor(1.5)
    assert figure.title.opts["size"] == "19.5pt"
    assert figure.plots
    assert all(p.cells.font.pointSizeF() == pytest.approx(15) for p in figure.plots)
