"""How a stage's matrices share out their width: by what the matrices hold (their columns of
cells, row labels and colour bars), never by the length of their titles."""

import pytest
from PySide6.QtCore import QRectF

from attn_explorer.engine import compute, preset
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.figures import FigureSpec, _Stage, build_figure

from .test_stepper import load, steps  # noqa: F401  (a fixture)


def cell_area(plot) -> QRectF:
    """The matrix's cells as laid out (the plot's view box holds exactly its cells), in the
    figure's pixels."""
    return plot.view.sceneBoundingRect()


def writes_values(plot, view) -> bool:
    cell = plot.cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
    return plot.cells.written(cell) is not None


def show(window, wait_settled, steps, qtbot, name, stage, size):  # noqa: F811
    load(window, wait_settled, name)
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    steps.set_stage(stage)
    qtbot.wait(50)
    return steps.figure.plots


def test_softmax_input_and_output_get_equal_widths_at_1024(
    window,
    wait_settled,
    steps,  # noqa: F811
    qtbot,
):
    """'Masked scores' wrote its values and the output 'Weights before dropout', of the same
    6×6 shape, wrote none: its longer title had made its column narrower."""
    scores, weights = show(window, wait_settled, steps, qtbot, "dropout", "softmax", (1024, 768))
    view = steps.figure_view
    assert scores.matrix.shape == weights.matrix.shape
    assert cell_area(scores).width() == pytest.approx(cell_area(weights).width(), abs=1)
    assert writes_values(scores, view) and writes_values(weights, view)


def test_the_two_masking_methods_get_equal_widths_at_1024(
    window,
    wait_settled,
    steps,  # noqa: F811
    qtbot,
):
    """Method 1 showed its values and method 2 none, in the panel whose point is that the
    two agree: method 1's longer title had taken the width."""
    show(window, wait_settled, steps, qtbot, "dropout", "mask", (1024, 768))
    panel = steps.mask_panel
    qtbot.waitUntil(panel.isVisible)
    qtbot.wait(50)
    one, two = panel.method1, panel.method2
    assert cell_area(one).width() == pytest.approx(cell_area(two).width(), abs=1)
    assert writes_values(one, panel.view) and writes_values(two, panel.view)


def test_cross_projections_of_one_shape_get_one_width(
    window,
    wait_settled,
    steps,  # noqa: F811
    qtbot,
):
    """Keys K and Values V (6×2) showed 2 and 4 decimals, X and Q nothing: each sat in a
    column of the grid sized by the titles above and below it."""
    plots = show(window, wait_settled, steps, qtbot, "cross", "projections", (1500, 940))
    view = steps.figure_view
    by_name = {plot.shown.name: plot for plot in plots}
    queries, keys, values = by_name["queries"], by_name["keys"], by_name["values"]
    widths = [cell_area(p).width() for p in (queries, keys, values)]
    assert max(widths) - min(widths) <= 1  # two columns each
    weights = [cell_area(by_name[name]).width() for name in ("w_query", "w_key", "w_value")]
    assert max(weights) - min(weights) <= 1  # three 3×2
    for plot in plots:
        assert writes_values(plot, view), plot.shown.name
    # The same value, written the same way: one precision for the three outputs.
    cells = [
        p.cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
        for p in (queries, keys, values)
    ]
    chosen = [p.cells.written(c) for p, c in zip((queries, keys, values), cells, strict=True)]
    assert len({(len(texts[0]), font.pointSizeF()) for texts, font in chosen}) == 1


@pytest.fixture
def mha(qapp):
    configure_pyqtgraph()
    return compute(preset("mha").config)


def laid_out(trace, spec, size):
    figure = build_figure(trace, spec)
    stage = _Stage(figure, size)
    return figure, stage


def test_an_exported_context_stage_gives_the_weights_the_width(mha):
    """The 6×1 V and Z were drawn wider than the 6×6 weights."""
    figure, stage = laid_out(mha, FigureSpec("stage", "context"), (1400, 820))
    weights, values, context = figure.plots
    widths = [cell_area(p).width() for p in (weights, values, context)]
    stage.close()
    assert widths[0] > 3 * widths[1]
    assert widths[1] == pytest.approx(widths[2], abs=1)
    # Cells of one size: a column of V as wide as a column of the weights.
    assert widths[1] == pytest.approx(widths[0] / 6, rel=0.1)
