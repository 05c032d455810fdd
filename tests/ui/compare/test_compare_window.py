"""The window's compare tools: Pin as A (undoable), A, B and B − A in every matrix, the first
differing stage marked, the summary; heads switched on and off (undoable) with the same
numbers as the engine and the command line; importance beside the all-heads grid."""

import json
from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import compute, preset
from attn_explorer.engine.heads import head_importance
from attn_explorer.io.session import dumps, loads
from attn_explorer.model.state import ExplorerState
from tests.cli.conftest import export_here
from tests.untranslated import shown_texts, untranslated

MHA = preset("mha").config


@pytest.fixture
def mha(window, wait_settled):
    window.load_preset("mha")
    wait_settled(window)
    return window


def _switch_head_2_off(win, wait_settled):
    win.compare.heads.switch(2, False)
    wait_settled(win)


def test_pin_is_an_edit_undone_and_redone(mha):
    doc = mha.doc
    assert doc.pinned is None
    mha.compare.pin_action.trigger()
    assert doc.pinned is not None and doc.pinned.config() == MHA
    assert doc.undo_stack.undoText() == "Pin as A"
    doc.undo_stack.undo()
    assert doc.pinned is None and not mha.compare.panel.isVisibleTo(mha)
    doc.undo_stack.redo()
    assert doc.pinned.config() == MHA and mha.compare.panel.isVisibleTo(mha)


def test_a_head_switched_off_in_the_window_gives_the_engine_s_and_the_command_line_s_numbers(
    mha, wait_settled, tmp_path, capsys
):
    _switch_head_2_off(mha, wait_settled)
    assert mha.doc.controls.ablate == (2,)
    assert mha.doc.undo_stack.undoText() == "Change heads switched off"
    engine = compute(replace(MHA, ablate=(2,)))
    np.testing.assert_array_equal(mha.trace.context, engine.context)
    out = tmp_path / "off.npz"
    assert export_here(capsys, "--preset", "mha", "--ablate", "2", "-o", out)[0] == 0
    with np.load(out) as data:
        np.testing.assert_array_equal(data["context"], mha.trace.context)
    mha.doc.undo_stack.undo()
    wait_settled(mha)
    assert mha.doc.controls.ablate == () and mha.compare.heads.boxes[1].isChecked()
    np.testing.assert_array_equal(mha.trace.context, compute(MHA).context)


def test_b_minus_a_in_the_matrices_and_the_first_stage_marked(mha, stepped_window, wait_settled):
    mha.compare.pin()
    _switch_head_2_off(mha, wait_settled)
    tools = mha.compare
    assert tools.comparison().first_stage == "concat"
    assert mha.stepper.first_difference == "concat"
    index = mha.stepper.keys.index("concat")
    assert mha.stepper.stages.tabTextColor(index).name() == "#c0392b"
    tools.cycle_action.trigger()  # B → B − A
    assert tools.side == "diff"
    plot = mha.board.views["context"].plot
    expected = compute(replace(MHA, ablate=(2,))).context.astype(np.float64) - compute(MHA).context
    np.testing.assert_allclose(plot.matrix, expected, atol=1e-7)
    assert "largest change -0.0503 at row Your, column 1" in plot.title.text
    assert mha.board.explain_cell(plot, 0, 0) == "B − A here: 0.2687 − 0.3190 = -0.0503"
    weights = mha.board.views["weights"].plot
    assert "no change" in weights.title.text
    tools.show_side("a")
    np.testing.assert_array_equal(plot.matrix, compute(MHA).context)
    assert plot.title.text.startswith("<b>A</b>")
    lines = tools.panel.lines
    assert lines[0] == "B changes ablate (none → 2)."
    assert lines[1] == "The first stage that differs is 9. Concatenate heads."
    # Undo the head, then the pin: B is A again, then nothing is pinned and B is shown.
    mha.doc.undo_stack.undo()
    wait_settled(mha)
    assert tools.comparison().first_stage is None
    mha.doc.undo_stack.undo()
    assert mha.doc.pinned is None and tools.side == "b"


def test_a_session_keeps_a_and_the_heads_switched_off(mha, wait_settled):
    mha.compare.pin()
    _switch_head_2_off(mha, wait_settled)
    state = loads(dumps(mha.current_state()))
    assert state.controls.ablate == (2,)
    assert state.pinned is not None and state.pinned.config() == MHA
    # Another session opened: A stays, to be compared with it.
    mha.doc.reset(ExplorerState.from_preset(preset("v1")))
    wait_settled(mha)
    assert mha.doc.pinned.config() == MHA
    assert mha.compare.comparison().first_stage == "projections"  # same tokens, rand weights
    mha.doc.reset(replace(state, pinned=ExplorerState.from_preset(preset("v2"))))
    wait_settled(mha)
    assert mha.doc.pinned.config() == preset("v2").config
    mha.doc.reset(state)
    wait_settled(mha)
    assert mha.doc.pinned.config() == MHA and mha.compare.comparison().first_stage == "concat"


def test_importance_beside_the_all_heads_grid(mha, qtbot, tmp_path):
    mha.board.show_all_heads(True)
    heads = mha.compare.heads
    qtbot.waitUntil(heads.isVisible)
    assert heads.values.text() == "head 1: 0.7192 (59.5 %)\nhead 2: 0.0744 (6.2 %)"
    path = heads.export_importance(tmp_path / "importance.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == head_importance(compute(MHA)).as_dict()
    csv = heads.export_importance(tmp_path / "importance.csv").read_text(encoding="utf-8")
    assert csv.splitlines()[0] == "head,norm,share" and csv.splitlines()[1].startswith("1,0.719")
    heads.mode.setCurrentIndex(heads.mode.findData("mean"))
    heads.mode.activated.emit(heads.mode.currentIndex())
    assert mha.doc.controls.ablate_mode == "mean"
    mha.board.show_all_heads(False)


def test_the_compare_tools_in_vietnamese(mha, wait_settled):
    mha.set_language("vi")
    wait_settled(mha)
    mha.compare.pin()
    _switch_head_2_off(mha, wait_settled)
    mha.board.show_all_heads(True)
    assert mha.compare.panel.lines[0] == "B thay đổi ablate (không có → 2)."
    assert mha.compare.panel.lines[1] == "Các mảng bắt đầu khác nhau từ Bước 9. Nối các đầu."
    assert mha.compare.heads.values.text().startswith("đầu 1: 0.7192 (59.5 %)")
    assert mha.compare.pin_button.text() == "Ghim lại làm A"
    assert mha.compare.menu.title() == "S&o sánh"
    mha.board.show_all_heads(False)
    mha.set_language("en")


def test_the_compare_tools_are_translated_under_the_pseudo_translation(pseudo, qtbot, wait_settled):
    from attn_explorer.ui.app import configure_pyqtgraph
    from attn_explorer.ui.main_window import MainWindow

    configure_pyqtgraph()
    win = MainWindow(ExplorerState.from_preset(preset("mha")))
    qtbot.addWidget(win, before_close_func=lambda w: w.doc.undo_stack.setClean())
    win.resize(1500, 940)
    with qtbot.waitSignal(win.firstPicture, timeout=30_000):
        win.show()
    win.compare.pin()
    _switch_head_2_off(win, wait_settled)
    win.board.show_all_heads(True)
    tools = win.compare
    tokens = set(MHA.tokens)
    for side in ("diff", "a", "b"):
        tools.show_side(side)
        texts = [*shown_texts(tools.column), tools.menu.title(), tools.pin_button.text()]
        texts += [action.text() for action in tools.menu.actions()]
        texts += [plot.title.text for plot in win.board.grid_plots]
        assert not untranslated(texts, tokens | {"A", "B", "B − A"}), side
    win.board.show_all_heads(False)
    for side in ("diff", "a", "trio"):
        tools.show_side(side)
        texts = [view.plot.title.text for view in win.board.views.values()]
        texts += [plot.title.text for plot in tools.trio.plots]
        texts += [plot.title.text for plot in win.stepper.figure.plots]
        assert not untranslated(texts, tokens), side
    win.doc.undo_stack.setClean()
    win.close()


def test_the_head_list_s_menu_switches_the_head_shown_off_and_on(mha, wait_settled):
    mha.board.set_head(1)
    menu = mha.compare.head_menu()
    (action,) = menu.actions()
    assert action.text() == "Switch head 2 off"
    action.trigger()
    wait_settled(mha)
    assert mha.doc.controls.ablate == (2,)
    (action,) = mha.compare.head_menu().actions()
    assert action.text() == "Switch head 2 on"
    mha.doc.undo_stack.undo()
    wait_settled(mha)
    assert mha.doc.controls.ablate == ()
    mha.board.set_head(0)


def test_a_figure_of_a_b_and_b_minus_a_from_the_window(mha, wait_settled, tmp_path):
    from tests.cli.conftest import svg_texts

    assert not mha.compare.figure_action.isEnabled()
    mha.compare.pin()
    _switch_head_2_off(mha, wait_settled)
    mha.board.weight_box.setCurrentIndex(mha.board.weight_box.findData("weights"))
    path = mha.compare.export_figure(tmp_path / "cmp.svg")
    texts = svg_texts(path)
    assert "B changes ablate (none → 2)." in texts
    assert "B − A: Attention weights" in texts and "no change" in texts


def test_a_b_and_b_minus_a_side_by_side(mha, wait_settled):
    tools = mha.compare
    tools.pin()
    _switch_head_2_off(mha, wait_settled)
    for _press in range(3):  # B → B − A → A → side by side
        tools.cycle_action.trigger()
    assert tools.side == "trio" and mha.board.pages.currentWidget() is tools.trio
    a, b, diff = tools.trio.plots
    np.testing.assert_array_equal(a.matrix, compute(MHA).weights[0])
    np.testing.assert_array_equal(b.matrix, mha.trace.weights[0])
    assert "no change" in diff.title.text
    mha.board.weight_box.setCurrentIndex(mha.board.weight_box.findData("weights_dropped"))
    tools.cycle_action.trigger()  # back to B, on the seven matrices
    assert tools.side == "b" and mha.board.pages.currentIndex() == 0
    assert a.matrix is None  # the page let go of the traces
    mha.board.weight_box.setCurrentIndex(mha.board.weight_box.findData("weights"))


def test_too_many_weights_to_compare_on_every_change_is_said(mha, wait_settled, monkeypatch):
    from attn_explorer.ui.compare import tools as tools_module

    monkeypatch.setattr(tools_module, "COMPARE_CELLS", 10)
    mha.compare.pin()
    _switch_head_2_off(mha, wait_settled)
    assert mha.compare.comparison() is None
    assert mha.compare.panel.lines == [
        "A or B has more than 10 attention weights: too many to compare on every change. "
        "attn-explorer export --compare compares them."
    ]


def test_the_step_through_shows_b_minus_a_too(mha, stepped_window, wait_settled, qtbot):
    mha.compare.pin()
    _switch_head_2_off(mha, wait_settled)
    mha.show_tab(1)
    mha.stepper.set_stage("out_proj")
    mha.compare.show_side("diff")
    titles = [plot.title.text for plot in mha.stepper.figure.plots]
    assert any("B − A: Context (output)" in t and "-0.0503" in t for t in titles), titles
    mha.compare.show_side("b")
    titles = [plot.title.text for plot in mha.stepper.figure.plots]
    assert not any("B − A" in t for t in titles)
    mha.show_tab(0)
