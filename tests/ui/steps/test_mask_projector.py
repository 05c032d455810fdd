"""The mask stage at 1024 × 768 and 1366 × 768. At 1024 its one row of matrices wrote no
value at all (kept in one row so that the panel comparing the two methods stays on a
1366 × 768 laptop): where one row writes nothing, the masked scores get a row of their own
and write four decimals, every token labelled, and the panel gives way with its note; at
1366 × 768 the row writes its values and the panel stays."""

import pytest

from attn_explorer.engine import compute

from .test_stage_projector import TOKENS, on_screen, written


@pytest.fixture
def causal(window, wait_settled):
    window.load_preset("causal")
    wait_settled(window)
    return window


def test_at_1024_the_masked_scores_write_four_decimals(causal, steps, qtbot):
    plots = on_screen(causal, steps, qtbot, "mask", (1024, 768))
    assert steps.figure.panel_rows == 2
    masked = next(plot for plot in plots if plot.shown.name == "masked_scores")
    trace = compute(causal.doc.config())
    want = [
        "−∞" if hidden else f"{v:.4f}"
        for v, hidden in zip(trace.masked_scores[0].ravel(), trace.mask.ravel(), strict=True)
    ]
    assert written(masked, steps.figure_view) == want
    assert want[6:8] == ["0.4656", "0.1723"]  # the worked line's ω_m2
    assert masked.tick_labels == (TOKENS, TOKENS)
    for plot in plots:
        assert plot.tick_labels[1] == TOKENS, plot.shown.name
        assert plot.tick_labels[0] in (TOKENS, []), plot.shown.name
    assert not steps.extras.isVisible()
    assert steps.extras_left_out.isVisible()
    assert steps.extras_left_out.text().startswith(
        "The comparison of the two masking methods needs more height"
    )


def test_at_1366_the_row_writes_its_values_and_the_panel_stays(causal, steps, qtbot):
    plots = on_screen(causal, steps, qtbot, "mask", (1366, 768))
    assert steps.figure.panel_rows == 1
    masked = next(plot for plot in plots if plot.shown.name == "masked_scores")
    texts = written(masked, steps.figure_view)
    assert texts[6:8] in (["0.47", "0.17"], ["0.4656", "0.1723"])
    assert steps.extras.isVisible() and steps.mask_panel.isVisible()
