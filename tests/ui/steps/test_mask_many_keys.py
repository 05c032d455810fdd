"""The mask stage's panel at 256 and 1,024 keys: the followed row of both methods as one
area and one line, the followed key marked, the masked keys said once; two heatmaps of
256 × 256 cells showed no number and no key a learner could read."""

import numpy as np
import pytest

from attn_explorer.engine import compute, preset
from attn_explorer.model.state import Controls, ExplorerState, random_sequence
from attn_explorer.ui.steps.mask_panel import MaskMethodsPanel


def _trace(keys):
    state = ExplorerState(
        queries=random_sequence(keys, 4, seed=1), kv=None, controls=Controls(causal=True)
    )
    return compute(state.config())


@pytest.mark.parametrize("keys", [256, 1024])
def test_many_keys_are_one_row_and_one_note(qtbot, keys):
    trace = _trace(keys)
    panel = MaskMethodsPanel()
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    panel.show_methods(trace, 0, 5)  # query 6 sees keys 1-6
    rows = panel.rows
    assert rows.isVisible() and not panel.view.isVisible()
    assert rows.note.isVisible()
    assert rows.note.toPlainText() == f"{keys - 6} masked keys: weight 0 by both methods"
    assert rows.followed.isVisible() and rows.followed.value() == 5
    assert "Query 6 “t6”" in rows.title and f"its {keys} keys" in rows.title
    x, y = rows.method1.getData()
    np.testing.assert_allclose(y, trace.weights_renormalize[0, 5], rtol=1e-6)
    x, y = rows.method2.getData()
    assert len(x) == keys
    np.testing.assert_allclose(y, trace.weights_neg_inf[0, 5], rtol=1e-6)
    assert panel.difference.text().startswith("Largest difference between the two methods")


def test_many_keys_in_vietnamese(qtbot, vietnamese):
    panel = MaskMethodsPanel()
    qtbot.addWidget(panel)
    panel.show_methods(_trace(256), 0, 5)
    note = panel.rows.note.toPlainText()
    assert note == "250 key bị che: trọng số 0 theo cả hai cách"
    assert panel.rows.title.startswith("Query 6 “t6”: <b>cách 1</b> (vùng tô)")


def test_many_keys_pseudo_translated(qtbot, pseudo):
    panel = MaskMethodsPanel()
    qtbot.addWidget(panel)
    panel.show_methods(_trace(256), 0, 5)
    assert panel.rows.note.toPlainText().startswith("⟪")
    assert panel.rows.title.startswith("⟪")


def test_a_few_keys_keep_their_heatmaps(qtbot):
    trace = compute(ExplorerState.from_preset(preset("causal")).config())
    panel = MaskMethodsPanel()
    qtbot.addWidget(panel)
    panel.show()
    panel.show_methods(trace, 0, 1)
    assert panel.view.isVisible() and not panel.rows.isVisible()
