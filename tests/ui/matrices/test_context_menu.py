"""The right-click menu of a matrix, on the Matrices tab and on the step-through's stage:
each action does what it says, on the real numbers."""

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication, QMenu

from attn_explorer.ui.matrices.context_menu import matrix_menu, show_matrix_menu


@pytest.fixture
def happy(window, wait_settled):
    window.load_preset("happy")
    wait_settled(window)
    return window


def cell_centre(plot, row, col) -> QPointF:
    return plot.view.mapViewToScene(QPointF(col + 0.5, row + 0.5))


def menu_of(plot, view, row=1, col=0):
    menu = matrix_menu(plot, cell_centre(plot, row, col), view)
    return menu, {action.text().replace("&", ""): action for action in menu.actions()}


def test_the_menu_on_the_weights(happy):
    view = happy.board.views["weights"]
    _menu, actions = menu_of(view.plot, view)
    assert list(actions) == [
        "Check my numbers…",
        "Copy values",
        "Follow this query",
        "Export figure…",
    ]
    assert actions["Check my numbers…"].shortcut().toString() == "Ctrl+K"


def test_copy_values_gives_every_digit_the_engine_holds(happy):
    view = happy.board.views["weights"]
    _menu, actions = menu_of(view.plot, view)
    actions["Copy values"].trigger()
    lines = QApplication.clipboard().text().splitlines()
    assert lines[0].split("\t") == ["", "I", "am", "happy"]
    weights = happy.trace.matrix("weights", 0)
    for r, line in enumerate(lines[1:]):
        label, *cells = line.split("\t")
        assert label == ["I", "am", "happy"][r]
        # Read back at the engine's precision: the very numbers it holds.
        assert [weights.dtype.type(c) for c in cells] == list(weights[r])
    assert lines[1].startswith("I\t0.2993529\t")  # 0.2994 on screen
    assert len(lines[1].split("\t")[1]) > 6  # more than the four decimals on screen
    assert "," not in "".join(lines[1:])


def test_minus_infinity_is_copied_as_a_spreadsheet_reads_it(window, wait_settled):
    window.load_preset("causal")
    wait_settled(window)
    view = window.board.views["scores"]
    _menu, actions = menu_of(view.plot, view)
    actions["Copy values"].trigger()
    first = QApplication.clipboard().text().splitlines()[1].split("\t")
    assert first[2:] == ["-inf"] * 5


def test_follow_this_query_follows_the_row_clicked(happy, qtbot):
    view = happy.board.views["weights"]
    _menu, actions = menu_of(view.plot, view, row=2, col=1)
    actions["Follow this query"].trigger()
    qtbot.waitUntil(lambda: happy.doc.view.query == 2)
    assert happy.stepper.query == 2


def test_no_follow_on_a_matrix_whose_rows_are_no_queries(happy):
    view = happy.board.views["keys"]
    _menu, actions = menu_of(view.plot, view)
    assert "Follow this query" not in actions


def test_check_my_numbers_opens_on_that_array(happy):
    view = happy.board.views["values"]
    _menu, actions = menu_of(view.plot, view)
    actions["Check my numbers…"].trigger()
    dialog = happy.menus.check_dialog
    assert dialog.isVisible() and dialog.array_box.currentData() == "values"
    dialog.close()


def test_export_figure_opens_on_that_array(happy, monkeypatch):
    asked = []
    monkeypatch.setattr(
        happy.files, "_export_dialog", lambda spec, what, all_stages: asked.append((spec, what))
    )
    view = happy.board.views["weights"]
    _menu, actions = menu_of(view.plot, view)
    actions["Export figure…"].trigger()
    ((spec, what),) = asked
    assert (spec.kind, spec.name, spec.head) == ("array", "weights", 0)
    assert what == "Attention weights"


def test_on_the_step_through_the_stage_matrices_have_it(happy, steps, qtbot):
    steps.set_stage("softmax")
    weights = next(p for p in steps.figure.plots if p.shown.name == "weights")
    _menu, actions = menu_of(weights, steps.figure_view, row=2, col=0)
    assert "Follow this query" in actions
    actions["Follow this query"].trigger()
    qtbot.waitUntil(lambda: steps.query == 2)
    actions["Copy values"].trigger()
    assert QApplication.clipboard().text().splitlines()[3].startswith("happy\t0.2078")
    # Right-clicked on screen: the menu of the matrix under the mouse pops up.
    point = steps.figure_view.mapFromScene(cell_centre(weights, 0, 0))
    show_matrix_menu(steps.figure_view, point)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None)
    popup = QApplication.activePopupWidget()
    texts = [a.text().replace("&", "") for a in popup.actions()]
    assert texts[:2] == ["Check my numbers…", "Copy values"]
    popup.close()


def test_a_right_clicked_menu_is_gone_once_closed(happy, qtbot):
    view = happy.board.views["weights"]
    for _ in range(3):
        point = view.mapFromScene(cell_centre(view.plot, 1, 0))
        show_matrix_menu(view, point)
        qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None)
        QApplication.activePopupWidget().close()
    qtbot.waitUntil(lambda: not view.findChildren(QMenu))


def test_vietnamese(vietnamese, happy):
    view = happy.board.views["weights"]
    _menu, actions = menu_of(view.plot, view)
    assert list(actions) == [
        "Kiểm tra số của tôi…",
        "Chép các giá trị",
        "Theo dõi query này",
        "Xuất hình…",
    ]


def test_no_english_left_under_the_pseudo_translation(pseudo, happy, steps):
    steps.set_stage("softmax")
    weights = next(p for p in steps.figure.plots if p.shown.name == "weights")
    _menu, actions = menu_of(weights, steps.figure_view)
    assert len(actions) == 4 and all(text.startswith("⟪") for text in actions)
    assert all(text.endswith("⟫") for text in actions)
