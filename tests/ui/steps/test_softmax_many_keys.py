"""The softmax panel at 256 and 1,024 keys: the row drawn as an area with the followed key
marked, the masked keys said once; it was a band of overlapping "−∞" labels, one per
masked key, with the real bars squeezed to the left."""

import numpy as np
import pytest

from attn_explorer.engine import compute, preset
from attn_explorer.model.state import Controls, ExplorerState, random_sequence
from attn_explorer.ui.steps.softmax_panel import SoftmaxPanel


@pytest.mark.parametrize("keys", [256, 1024])
def test_many_keys_are_an_area_and_one_note(qtbot, keys):
    state = ExplorerState(
        queries=random_sequence(keys, 4, seed=1), kv=None, controls=Controls(causal=True)
    )
    trace = compute(state.config())
    panel = SoftmaxPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    panel.show_row(trace, 0, 5)  # query 6 sees keys 1-6
    for plot in (panel.score_plot, panel.weight_plot):
        shown = [item.toPlainText() for item in plot.marks if item.isVisible()]
        assert shown == [f"{keys - 6} masked keys: −∞ → weight 0"]
        x, y = plot.area.getData()
        assert len(x) == (6 if plot is panel.score_plot else keys)
        assert plot.followed.isVisible() and plot.followed.value() == 5
        assert len(plot.bars.opts["x"]) == 0
    x, y = panel.weight_plot.area.getData()
    np.testing.assert_allclose(y, trace.weights[0, 5], rtol=1e-6)


def test_a_few_keys_keep_their_bars(qtbot):
    trace = compute(ExplorerState.from_preset(preset("causal")).config())
    panel = SoftmaxPanel()
    qtbot.addWidget(panel)
    panel.show_row(trace, 0, 1)
    assert len(panel.weight_plot.bars.opts["x"]) == 6
    assert not panel.weight_plot.followed.isVisible()
