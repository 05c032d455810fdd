"""How a stage's matrices and an exported figure share out their width: by what the matrices
hold (their columns of cells, row labels and colour bars), never by the length of their
titles; and a margin all round an exported figure."""

import dataclasses
import itertools
import sys

import numpy as np
import pytest
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QImage

from attn_explorer.engine import STEP_KEYS, compute, preset
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.export.figures import FigureSpec, _Stage, build_figure, export_figure
from attn_explorer.ui.heatmap import MatrixPlot
from attn_explorer.ui.steps.stage_figure import StageFigure
from tests.ui.steps.conftest import load


def cell_area(plot) -> QRectF:
    """The matrix's cells as laid out (the plot's view box holds exactly its cells), in the
    figure's pixels."""
    return plot.view.sceneBoundingRect()


def writes_values(plot, view) -> bool:
    cell = plot.cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
    return plot.cells.written(cell) is not None


def show(window, wait_settled, steps, qtbot, name, stage, size):
    """The step-through at `stage` of example `name` (None: the example as it is)."""
    if name is None:
        wait_settled(window)
    else:
        load(window, wait_settled, name)
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    steps.set_stage(stage)
    qtbot.wait(50)
    return steps.figure.plots


def test_softmax_input_and_output_get_equal_widths_at_1024(
    window,
    wait_settled,
    steps,
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
    steps,
    qtbot,
):
    """Method 1 showed its values and method 2 none, in the panel whose point is that the
    two agree: method 1's longer title had taken the width. (1024 wide, 1000 high: at 768
    the panel gives way to the masked scores' four decimals, see test_mask_projector.py.)"""
    show(window, wait_settled, steps, qtbot, "dropout", "mask", (1024, 1000))
    panel = steps.mask_panel
    qtbot.waitUntil(panel.isVisible)
    qtbot.wait(50)
    one, two = panel.method1, panel.method2
    assert cell_area(one).width() == pytest.approx(cell_area(two).width(), abs=1)
    assert writes_values(one, panel.view) and writes_values(two, panel.view)


def test_cross_projections_of_one_shape_get_one_width(
    window,
    wait_settled,
    steps,
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


def test_the_exported_matrices_figure_fills_its_rows_with_cells_of_one_size(qapp):
    """Three plots in a four-column grid left the top right quarter blank, and the 6×6
    scores and weights had the smallest cells while the 6×2 Q, K, V had huge ones."""
    configure_pyqtgraph()
    trace = compute(preset("v1").config)
    _figure, stage = laid_out(trace, FigureSpec("matrices"), (1500, 980))
    plots = [item for item in stage.scene.items() if isinstance(item, MatrixPlot)]
    areas = [cell_area(p) for p in plots]
    cell_widths = [a.width() / p.matrix.shape[1] for a, p in zip(areas, plots, strict=True)]
    rows = {}
    for plot in plots:
        rows.setdefault(round(plot.mapRectToScene(plot.boundingRect()).top()), []).append(plot)
    stage.close()
    assert max(cell_widths) <= 1.15 * min(cell_widths)
    assert [len(r) for _, r in sorted(rows.items())] == [3, 4]
    for row in rows.values():  # each row centred: no quarter left blank on one side
        left = min(p.mapRectToScene(p.boundingRect()).left() for p in row)
        right = max(p.mapRectToScene(p.boundingRect()).right() for p in row)
        assert left == pytest.approx(1500 - right, abs=12)


@pytest.mark.parametrize(
    ("preset_name", "spec", "size"),
    [
        ("v1", FigureSpec("matrices"), (1500, 980)),
        ("mha", FigureSpec("stage", "context"), (1400, 820)),
        ("mha", FigureSpec("stage", "projections"), (1400, 820)),
    ],
)
def test_an_exported_figure_has_a_white_margin_all_round(qapp, tmp_path, preset_name, spec, size):
    """The last row of matrices touched the figure's bottom edge."""
    configure_pyqtgraph()
    trace = compute(preset(preset_name).config)
    image = QImage(str(export_figure(trace, spec, tmp_path / "f.png", size=size)))
    width, height = image.width(), image.height()
    margin = 16
    # Read whole, not pixel by pixel (some 80,000 pixelColor calls a figure): 32-bit ARGB,
    # the colour bytes of each pixel without its alpha, as QColor.name() writes them.
    argb = image.convertToFormat(QImage.Format.Format_ARGB32)
    rows = np.frombuffer(argb.constBits(), np.uint8, argb.sizeInBytes())
    rows = rows.reshape(height, argb.bytesPerLine())[:, : 4 * width].reshape(height, width, 4)
    alpha = 3 if sys.byteorder == "little" else 0
    colour = np.delete(rows, alpha, axis=2)

    def blank(xs, ys) -> bool:
        return bool((colour[ys.start : ys.stop, xs.start : xs.stop] == 255).all())

    assert blank(range(width), range(height - margin, height)), "bottom"
    assert blank(range(width), range(margin)), "top"
    assert blank(range(margin), range(height)), "left"
    assert blank(range(width - margin, width), range(height)), "right"


def rows_of(plot) -> list[str]:
    """The row labels a user sees beside the matrix."""
    return plot.tick_labels[0]


def bar_shown(plot) -> bool:
    return plot.colorbar is not None and plot.colorbar.isVisible()


def test_neighbours_of_one_shape_and_labels_write_their_row_labels_once(
    window,
    wait_settled,
    steps,
    qtbot,
):
    """At 1024 × 768 each of W_q, W_k, W_v (3×2) spent 50 px on the same row labels and wrote
    no values; now only the first of neighbours with the same rows labels them."""
    plots = show(window, wait_settled, steps, qtbot, "causal", "projections", (1024, 768))
    view = steps.figure_view
    by_name = {plot.shown.name: plot for plot in plots}
    assert rows_of(by_name["x"]) == ["Your", "journey", "starts", "with", "one", "step"]
    assert rows_of(by_name["w_query"]) == ["1", "2", "3"]
    assert rows_of(by_name["w_key"]) == rows_of(by_name["w_value"]) == []
    assert rows_of(by_name["queries"]) == rows_of(by_name["x"])
    assert rows_of(by_name["keys"]) == rows_of(by_name["values"]) == []
    for first, *others in (("w_query", "w_key", "w_value"), ("queries", "keys", "values")):
        rows = cell_area(by_name[first])
        for name in others:  # the unlabelled rows sit beside the labelled ones
            assert cell_area(by_name[name]).top() == pytest.approx(rows.top(), abs=0.5)
            assert cell_area(by_name[name]).height() == pytest.approx(rows.height(), abs=0.5)
    for plot in plots:
        assert writes_values(plot, view), plot.shown.name
    # Each W on its own colour scale: each keeps its own colour bar.
    assert all(bar_shown(by_name[name]) for name in ("w_query", "w_key", "w_value"))


def test_neighbours_on_one_chosen_colour_scale_share_one_colour_bar(
    window,
    wait_settled,
    steps,
    qtbot,
):
    """The heads of Z are drawn on one colour scale: one colour bar, after the last head.
    Z_cat, past the arrow, keeps its own. At 1024 × 768 Z_cat wrote no values."""
    plots = show(window, wait_settled, steps, qtbot, "wrapper", "concat", (1024, 768))
    view = steps.figure_view
    head_1, head_2, concat = plots
    assert (head_1.shown.name, head_2.shown.name, concat.shown.name) == (
        "head_contexts",
        "head_contexts",
        "concat",
    )
    assert not bar_shown(head_1) and bar_shown(head_2) and bar_shown(concat)
    assert head_1.levels == head_2.levels == head_2.colorbar.levels
    assert rows_of(head_2) == [] and rows_of(concat) == rows_of(head_1) != []
    for plot in plots:
        assert writes_values(plot, view), plot.title.text


def test_neighbours_keep_their_labels_and_bars_where_these_differ(
    window,
    wait_settled,
    steps,
    qtbot,
):
    """Cross-attention's X and X_kv have tokens of their own: both are labelled. Q, K and V
    are each on their own colour scale: each has its colour bar."""
    plots = show(window, wait_settled, steps, qtbot, "cross", "projections", (1024, 768))
    by_name = {plot.shown.name: plot for plot in plots}
    x, x_kv = by_name["x"], by_name["x_kv"]
    assert rows_of(x) and rows_of(x_kv) and rows_of(x) != rows_of(x_kv)
    assert all(bar_shown(plot) for plot in plots)


def test_method_1_draws_softmax_and_its_zeroing_on_one_colour_bar(
    window,
    wait_settled,
    steps,
    qtbot,
):
    """softmax(ω̃) and its hidden weights zeroed are one quantity, one step apart: one colour
    scale and one colour bar for both, and the rows labelled once a row of matrices. At
    1500 × 940 none of the four matrices of method 1's softmax wrote its values; then two
    decimals; now the input over the three outputs, four (see test_stage_projector.py)."""
    load(window, wait_settled, "causal")
    window.doc.set_control("mask_method", "renormalize")
    plots = show(window, wait_settled, steps, qtbot, None, "softmax", (1500, 940))
    scores, softmax, zeroed, weights = plots
    assert not bar_shown(softmax) and bar_shown(zeroed) and bar_shown(weights)
    assert softmax.levels == zeroed.levels == zeroed.colorbar.levels
    assert zeroed.levels != weights.levels
    assert rows_of(scores) == ["Your", "journey", "starts", "with", "one", "step"]
    assert rows_of(softmax) == ["Your", "journey", "starts", "with", "one", "step"]
    assert rows_of(zeroed) == rows_of(weights) == []
    view = steps.figure_view
    for plot in plots:
        cell = plot.cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
        texts, font = plot.cells.written(cell)
        assert font.pointSizeF() >= 8, plot.shown.name
        values = [t for t in texts if t not in ("", "−∞")]
        assert values and all(len(t.split(".")[1]) == 4 for t in values), plot.shown.name


def test_the_two_masking_methods_share_one_colour_bar_and_their_labels(
    window,
    wait_settled,
    steps,
    qtbot,
):
    """At 1366 × 768 (at 1024 × 768 the panel gives way to the masked scores' four
    decimals: see test_mask_projector.py)."""
    show(window, wait_settled, steps, qtbot, "causal", "mask", (1366, 768))
    panel = steps.mask_panel
    qtbot.waitUntil(panel.isVisible)
    one, two = panel.method1, panel.method2
    assert not bar_shown(one) and bar_shown(two) and one.levels == two.levels
    assert rows_of(one) and rows_of(two) == []


def test_the_exported_matrices_figure_labels_every_matrix(qapp):
    configure_pyqtgraph()
    trace = compute(preset("v1").config)
    figure, stage = laid_out(trace, FigureSpec("matrices"), (1500, 980))
    labelled = [bool(rows_of(plot)) for plot in figure.plots]
    stage.close()
    assert labelled == [True] * 7


def test_the_output_past_the_arrow_leaves_its_row_labels_to_the_input(
    window,
    wait_settled,
    steps,
    qtbot,
):
    """The scaled scores sit beside the scores, rows at the same height, past the arrow:
    labelled once, both write their values. (At 1024 × 768 they are stacked, for four
    decimals: see test_stage_projector.py.)"""
    plots = show(window, wait_settled, steps, qtbot, "causal", "scale", (1500, 940))
    scores, scaled = plots
    assert rows_of(scores) == ["Your", "journey", "starts", "with", "one", "step"]
    assert rows_of(scaled) == []
    assert cell_area(scaled).top() == pytest.approx(cell_area(scores).top(), abs=0.5)
    assert cell_area(scaled).height() == pytest.approx(cell_area(scores).height(), abs=0.5)
    for plot in plots:
        assert writes_values(plot, steps.figure_view), plot.shown.name


@pytest.mark.parametrize("name", ["mha", "cross", "dropout"])
def test_rows_left_unlabelled_sit_beside_the_labelled_ones(
    window,
    wait_settled,
    steps,
    qtbot,
    name,
):
    """On every stage, a matrix whose row labels are left to its neighbour has its rows at
    the neighbour's height."""
    load(window, wait_settled, name)
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.width() == 1024)
    unlabelled = 0
    for key in STEP_KEYS:
        steps.set_stage(key)
        qtbot.wait(20)
        plots = steps.figure.plots
        for left, right in itertools.pairwise(plots):
            if right.matrix is not None and not rows_of(right):
                unlabelled += 1
                assert left.matrix.shape == right.matrix.shape, key
                assert rows_of(left) or not left.row_labels_shown, key
                assert cell_area(right).top() == pytest.approx(cell_area(left).top(), abs=0.5)
                assert cell_area(right).height() == pytest.approx(cell_area(left).height(), abs=0.5)
    assert unlabelled > 0


def test_the_context_stage_writes_the_weights_v_and_z_at_1024(
    window,
    wait_settled,
    steps,
    qtbot,
):
    """The weights' 6 columns were 7 px short of writing their values: the three colour
    bars are 4 px narrower each."""
    plots = show(window, wait_settled, steps, qtbot, "causal", "context", (1024, 768))
    for plot in plots:
        assert writes_values(plot, steps.figure_view), plot.shown.name
        bar = plot.colorbar
        assert bar.bar_rect().width() >= 10  # still a bar to read colours from
    texts = [text for _, text in plots[0].colorbar.ticks]
    assert texts == ["0", "0.25", "0.5", "0.75", "1"]


@pytest.mark.parametrize(
    ("heads", "reason"),
    [
        (9, "Z of heads 1–8 drawn on their own; head 9 is in Z_cat, not drawn apart."),
        (10, "Z of heads 1–8 drawn on their own; heads 9–10 are in Z_cat, not drawn apart."),
    ],
)
def test_the_heads_the_concat_stage_leaves_out_are_named_as_many_as_they_are(qapp, heads, reason):
    """Nine heads wrote "heads 9–9 are in Z_cat"."""
    configure_pyqtgraph()
    config = dataclasses.replace(preset("mha").config, num_heads=heads, d_out=heads)
    figure = StageFigure(follow_text_size=False)
    figure.show_stage(compute(config), "concat", 0, None)
    assert figure.reason.text.endswith(reason)


def outside_view(view, figure) -> list[str]:
    """The figure's title, formula, reason and matrices (by name) that lie, as drawn, beyond
    what the view shows."""
    shown = QRectF(view.viewport().rect()).adjusted(-0.5, -0.5, 0.5, 0.5)
    labels = {"title": figure.title, "formula": figure.formula, "reason": figure.reason}
    items = {**labels, **{f"{plot.shown.name} {i}": plot for i, plot in enumerate(figure.plots)}}
    return [
        name
        for name, item in items.items()
        if item.isVisible()
        and not shown.contains(view.mapFromScene(item.sceneBoundingRect()).boundingRect())
    ]


def shown_title(plot) -> str:
    """A matrix's title as written (cut titles end in "…")."""
    return plot.title.item.toPlainText()


def test_sixteen_heads_opened_at_the_concat_stage_fit_a_1024_window(qtbot):
    """Opened at the concat stage (`--stage concat --size 1024x768`), the figure was laid out
    830 px wide in a 636 px view: its title, reason, eighth head and Z_cat were cut off at
    the right until the window was resized."""
    from attn_explorer.model.state import ExplorerState
    from attn_explorer.ui.main_window import MainWindow

    configure_pyqtgraph()
    state = ExplorerState.from_preset(preset("mha")).with_controls(num_heads=16, d_out=16)
    view = dataclasses.replace(state.view, tab="steps", stage="concat")
    state = dataclasses.replace(state, view=view)
    window = MainWindow(state)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1024, 768)
    with qtbot.waitSignal(window.firstPicture, timeout=30_000):
        window.show()
    stepper = window.stepper
    assert stepper.stage == "concat"
    # The labels' layout settles over a few turns of the event loop; stuck 830 px wide, the
    # figure never came back into its view.
    qtbot.waitUntil(lambda: outside_view(stepper.figure_view, stepper.figure) == [])
    assert stepper.figure_view.drawn_scale() == 1  # not drawn smaller: it fits as laid out
    *heads, concat = stepper.figure.plots
    assert [shown_title(plot).split()[0] for plot in heads] == [f"Z{h}" for h in range(1, 9)]
    assert "heads 9–16 are in Z_cat" in stepper.figure.reason.text
    assert concat.matrix.shape == (6, 16)
    window.close()


@pytest.mark.parametrize("stage", ["concat", "out_proj", "projections"])
def test_a_figure_larger_than_its_view_is_drawn_smaller_not_cut(qapp, qtbot, stage):
    """Where a figure cannot be laid out as small as its view (250 % text in a 1024 × 768
    window), its right or bottom was cut off: it is drawn smaller, all of it in sight."""
    from attn_explorer.ui.steps.figure_view import FigureView

    configure_pyqtgraph()
    config = dataclasses.replace(preset("mha").config, num_heads=16, d_out=16)
    figure = StageFigure()
    view = FigureView(figure)
    qtbot.addWidget(view)
    view.resize(260, 150)
    view.show()
    figure.show_stage(compute(config), stage, 0, 1)
    qtbot.waitUntil(lambda: view.drawn_scale() < 1 and outside_view(view, figure) == [])
    least = figure.effectiveSizeHint(Qt.SizeHint.MinimumSize)
    assert least.width() > 260 or least.height() > 150  # the case at hand
    view.resize(1400, 900)  # room again: drawn as laid out
    qtbot.waitUntil(lambda: view.drawn_scale() == 1 and figure.size().width() == 1400)


def test_an_exported_narrow_concat_figure_names_each_head_it_draws(qapp):
    """At 640 × 480 the heads' titles "Z head 2" were cut to "Z …": eight matrices, and no
    telling which heads they were."""
    configure_pyqtgraph()
    config = dataclasses.replace(preset("mha").config, num_heads=16, d_out=16)
    figure, stage = laid_out(compute(config), FigureSpec("stage", "concat"), (640, 480))
    *heads, _concat = figure.plots
    titles = [shown_title(plot) for plot in heads]
    reason = figure.reason.text
    stage.close()
    assert [title.split()[0] for title in titles] == [f"Z{h}" for h in range(1, 9)]
    assert reason.endswith("heads 9–16 are in Z_cat, not drawn apart.")
