"""A stage at 1024 × 768, nothing hidden by hand: its input and output write every value of
the 6-token example in four decimals, every row and column labelled. They were squeezed side
by side into 18-px rows, every other row label dropped, two decimals, while the softmax
bars under them kept their height: now the input goes over the output, and the panel under
the stage gives way, saying where it went."""

import pytest
from PySide6.QtCore import QRectF

from attn_explorer.engine import compute

TOKENS = ["Your", "journey", "starts", "with", "one", "step"]


def written(plot, view) -> list[str]:
    """The texts the plot writes in its cells as drawn in `view`; [] for none."""
    cell = plot.cells.deviceTransform(view.viewportTransform()).mapRect(QRectF(0, 0, 1, 1))
    chosen = plot.cells.written(cell)
    return [] if chosen is None else list(chosen[0])


def on_screen(window, steps, qtbot, stage, size):
    window.resize(*size)
    qtbot.waitUntil(lambda: (window.width(), window.height()) == size)
    steps.set_stage(stage)
    qtbot.wait(100)
    steps.redraw()  # (the figure's room as laid out now)
    qtbot.wait(100)
    return steps.figure.plots


@pytest.mark.parametrize("stage", ["scores", "scale", "softmax", "dropout", "context"])
def test_a_stage_writes_four_decimals_at_1024(window, steps, qtbot, stage):
    plots = on_screen(window, steps, qtbot, stage, (1024, 768))
    trace = compute(window.doc.config())
    for plot in plots:
        values = trace.matrix(plot.shown.name, 0)
        hidden = plot.hidden
        texts = written(plot, steps.figure_view)
        want = [
            ("−∞" if plot._neg_inf_text else "") if hidden is not None and hidden.flat[k] else t
            for k, t in enumerate(f"{v:.4f}" for v in values.ravel())
        ]
        assert texts == want, plot.shown.name
        if values.shape[0] == 6:  # every row labelled (by itself, or by its left neighbour)
            assert plot.tick_labels[0] in (TOKENS, [])
        if values.shape[1] == 6:
            assert plot.tick_labels[1] == TOKENS
    labelled = [plot for plot in plots if plot.tick_labels[0]]
    assert labelled and all(plot.tick_labels[0] == TOKENS for plot in labelled)


def test_the_softmax_stage_stacks_and_its_bars_give_way_saying_so(window, steps, qtbot):
    scores, weights = on_screen(window, steps, qtbot, "softmax", (1024, 768))
    assert steps.figure.panel_rows == 2  # the input over the output
    assert written(weights, steps.figure_view)[6:8] == ["0.4833", "0.5167"]
    assert scores.tick_labels == (TOKENS, TOKENS) and weights.tick_labels == (TOKENS, TOKENS)
    row_height = weights.view.size().height() / 6
    assert row_height >= 15  # was 12: a row label a line tall fits
    assert not steps.extras.isVisible()
    assert steps.extras_left_out.isVisible()
    assert steps.extras_left_out.text().startswith("The softmax bars, the sharpening slider")


def test_at_1500_the_stage_stays_side_by_side(window, steps, qtbot):
    _scores, weights = on_screen(window, steps, qtbot, "softmax", (1500, 940))
    assert steps.figure.panel_rows == 1
    assert written(weights, steps.figure_view)[6:8] == ["0.4833", "0.5167"]
    assert steps.extras.isVisible()


def test_the_dropout_stage_shows_the_whole_keep_mask(window, wait_settled, steps, qtbot):
    """Its upper triangle was hatched and blank; the tutorial prints the mask whole."""
    window.load_preset("dropout")
    wait_settled(window)
    plots = on_screen(window, steps, qtbot, "dropout", (1500, 940))
    keep = next(plot for plot in plots if plot.shown.name == "dropout_keep")
    assert keep.hidden is None
    want = compute(window.doc.config()).dropout_keep[0].astype(int).ravel()
    assert written(keep, steps.figure_view) == [str(v) for v in want]
    assert written(keep, steps.figure_view)[:6] == ["1", "1", "0", "1", "1", "0"]


def test_method_1_writes_four_decimals_at_1500(window, wait_settled, steps, qtbot):
    """Method 1's softmax stage (its input and three outputs) wrote two decimals even at
    1500 × 940: the input now goes over the three outputs, every token labelled."""
    window.load_preset("causal")
    wait_settled(window)
    window.doc.set_control("mask_before_scaling", False)
    window.doc.set_control("mask_method", "renormalize")
    wait_settled(window)
    plots = on_screen(window, steps, qtbot, "softmax", (1500, 940))
    assert steps.figure.panel_rows == 2
    trace = compute(window.doc.config())
    for plot in plots:
        values = trace.matrix(plot.shown.name, 0)
        texts = written(plot, steps.figure_view)
        shown = [t for t in texts if t not in ("", "−∞")]
        assert shown and all(len(t.split(".")[1]) == 4 for t in shown), plot.shown.name
        assert plot.tick_labels[1] == TOKENS
        assert plot.tick_labels[0] in (TOKENS, [])
        assert plot.view.size().height() / values.shape[0] >= 15
    zeroed = next(plot for plot in plots if plot.shown.name == "weights_zeroed")
    want = trace.matrix("weights_zeroed", 0)[1]
    assert written(zeroed, steps.figure_view)[6:8] == [f"{v:.4f}" for v in want[:2]]


def test_at_100_percent_the_box_keeps_its_lines_and_the_bars(window, steps, qtbot):
    on_screen(window, steps, qtbot, "scores", (1500, 940))
    assert not steps.followed.shortened()
    assert not steps.figure.bars_hidden and not steps.extras_left_out.isVisible()


def test_at_100_percent_the_weights_stay(window, steps, qtbot):
    plots = on_screen(window, steps, qtbot, "projections", (1500, 940))
    names = [plot.shown.name for plot in plots]
    assert names == ["x", "w_query", "w_key", "w_value", "queries", "keys", "values"]
    assert "left out" not in steps.figure.reason.text
