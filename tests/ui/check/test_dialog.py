"""Edit → Check my numbers…: a learner pastes Ngày 43's numbers and reads, in the grid, in
the list and on the matrices, which are slips, which only follow from them, and which are
right; a cell that is no number is marked and kept; the words in Vietnamese, and none left
in English under the pseudo-translation."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from attn_explorer.ui.check.grid import VERDICT_ROLE
from tests.untranslated import shown_texts, untranslated

WEIGHTS = "\tI\tam\thappy\nI\t0.30\t0.33\t0.37\nam\t0.26\t0.37\t0.37\nhappy\t0.25\t0.36\t0.39\n"
CONTEXT = (
    "tensor([[0.42, 0.53, 0.62],\n        [0.433, 0.533, 0.633],\n        [0.442, 0.542, 0.642]])"
)


def open_on_happy(window, qtbot, wait_settled):
    window.load_preset("happy")
    wait_settled(window)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    dialog = window.menus.check_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    return dialog


def paste_day_43(dialog, qtbot):
    dialog.choose_array("weights")
    QApplication.clipboard().setText(WEIGHTS)
    dialog.grid.setFocus()
    dialog.grid.setCurrentCell(2, 2)  # a block the size of the array fills it from its start
    qtbot.keyClick(dialog.grid, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    dialog.choose_array("context")
    dialog.paste_text(CONTEXT)
    qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)


def verdicts(grid):
    return [
        [grid.item(r, c).data(VERDICT_ROLE) for c in range(grid.columnCount())]
        for r in range(grid.rowCount())
    ]


def listed(dialog):
    return [dialog.listing.item(i).text() for i in range(dialog.listing.count())]


def test_day_43_pasted_shows_its_slips_first_and_what_follows(window, qtbot, wait_settled):
    dialog = open_on_happy(window, qtbot, wait_settled)
    paste_day_43(dialog, qtbot)
    grid = dialog.grid
    assert verdicts(grid) == [["right", "right", "right"], ["follows"] * 3, ["follows"] * 3]
    assert [grid.horizontalHeaderItem(c).text() for c in range(3)] == ["1", "2", "3"]
    assert [grid.verticalHeaderItem(r).text() for r in range(3)] == ["1 I", "2 am", "3 happy"]
    assert grid.item(1, 0).toolTip() == (
        "Context (output), row 2 (am), column 1: you wrote 0.433, which is what your own "
        "earlier numbers give (0.4330); the exact value is 0.4514. This step was done right: "
        "the slip is earlier."
    )
    lines = listed(dialog)
    assert lines[:3] == [
        "Checked 18 cells: 6 right, 6 following from an earlier slip, 6 wrong, 0 not given.",
        "The first slip: Attention weights α, row 2 (am), column 1 (I).",
        "Context (output): rows 2 (am), 3 (happy) only follow from an earlier slip.",
    ]
    assert (
        lines[3]
        .replace("\xa0", " ")
        .startswith(
            "✗ Attention weights α, row 2 (am), column 1 (I): you wrote 0.26; the exact value is "
            "0.2514 (0.25 to 2 decimals).\nα[2,1] = exp(ω̃[2,1])"
        )
    )
    assert lines[-1] == (
        "✓ Context (output), row 1 (I), column 2: 0.53 is right within the rounding of your "
        "earlier numbers (exact value 0.5207)."
    )
    # A listed cell takes the grid to it.
    dialog.listing.itemClicked.emit(dialog.listing.item(3))
    assert dialog.array_box.currentData() == "weights"
    assert (grid.currentRow(), grid.currentColumn()) == (1, 0)
    assert grid.item(1, 0).text() == "0.26"
    assert verdicts(grid)[1] == ["wrong"] * 3
    # On the Matrices tab: the slips outlined where the weights are drawn.
    marked = window.menus.check_marks.marked()
    assert ("weights", 1, 0, "wrong") in marked
    assert ("context", 2, 2, "follows") in marked
    assert ("weights", 0, 0, "right") in marked
    qtbot.keyClick(grid, Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    assert window.menus.check_marks.marked() == []


def test_a_cell_that_is_no_number_is_marked_and_nothing_is_lost(window, qtbot, wait_settled):
    dialog = open_on_happy(window, qtbot, wait_settled)
    dialog.choose_array("weights")
    dialog.paste_text("0.30\t0.33\t0,37x")
    dialog.run_check()
    grid = dialog.grid
    assert [grid.item(0, c).text() for c in range(3)] == ["0.30", "0.33", "0,37x"]
    assert verdicts(grid)[0] == ["right", "right", "bad"]
    assert verdicts(grid)[1] == ["missing"] * 3
    assert grid.item(0, 2).toolTip() == "“0,37x” is not a number."
    assert dialog.message.text() == (
        "1 cell is not a number: it is marked ? and left out of the check."
    )
    dialog.choose_array("scores")
    dialog.choose_array("weights")
    assert grid.item(0, 2).text() == "0,37x"
    dialog.close()
    assert window.menus.show_check() is dialog
    assert grid.item(0, 0).text() == "0.30"
    dialog.close()


def test_vietnamese(vietnamese, window, qtbot, wait_settled):
    dialog = open_on_happy(window, qtbot, wait_settled)
    paste_day_43(dialog, qtbot)
    assert dialog.windowTitle() == "Kiểm tra số của tôi"
    assert dialog.check_button.text() == "&Kiểm tra"
    lines = listed(dialog)
    assert lines[:2] == [
        "Đã kiểm tra 18 ô: 6 đúng, 6 là hệ quả của một lỗi tính tay trước đó, 6 sai, 0 bỏ trống.",
        "Lỗi tính tay đầu tiên: Trọng số attention α, hàng 2 (am), cột 1 (I).",
    ]
    assert dialog.grid.item(0, 1).toolTip() == (
        "Context vector (đầu ra), hàng 1 (I), cột 2: 0.53 là đúng, trong phạm vi sai số làm "
        "tròn của các số trước đó của bạn (giá trị chính xác 0.5207)."
    )
    dialog.close()


def test_no_english_left_under_the_pseudo_translation(pseudo, window, qtbot, wait_settled):
    dialog = open_on_happy(window, qtbot, wait_settled)
    paste_day_43(dialog, qtbot)
    dialog.paste_text("abc")
    dialog.run_check()
    grid = dialog.grid
    texts = shown_texts(dialog) + listed(dialog)
    texts += [grid.item(r, c).toolTip() for r in range(3) for c in range(3)]
    texts += [action.text() for action in window.menuBar().actions()[1].menu().actions()]
    assert untranslated(texts, {"I", "am", "happy"}) == set()
    dialog.close()


def test_numbers_typed_for_more_tokens_are_checked_as_far_as_the_array_reaches(
    window, qtbot, wait_settled
):
    dialog = open_on_happy(window, qtbot, wait_settled)
    dialog.choose_array("weights")
    dialog.paste_text(WEIGHTS)
    dialog.run_check()
    window.editor.query_table.setCurrentIndex(window.editor.query_table.model().index(2, 0))
    window.editor.actions["remove_token"].trigger()  # "happy" goes
    wait_settled(window)
    assert window.trace.config.tokens == ("I", "am")
    # Checked again against the new computation, on the 2 × 2 that is left of what was typed.
    assert dialog.grid.rowCount() == 2
    assert [c.given for c in dialog.result.of("weights")] == [0.30, 0.33, 0.26, 0.37]
    assert [dialog.grid.item(1, c).text() for c in range(2)] == ["0.26", "0.37"]
    dialog.close()


def test_ctrl_k_on_a_matrix_opens_on_its_array(window, qtbot, wait_settled):
    window.load_preset("happy")
    wait_settled(window)
    window.activateWindow()
    view = window.board.views["values"]
    view.setFocus()
    qtbot.waitUntil(view.hasFocus)
    qtbot.keyClick(view, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    dialog = window.menus.check_dialog
    assert dialog.isVisible()
    assert dialog.array_box.currentData() == "values"
    assert dialog.array_box.currentText() == "Values V"
    assert [dialog.grid.verticalHeaderItem(r).text() for r in range(3)] == [
        "1 I",
        "2 am",
        "3 happy",
    ]
    dialog.close()


def test_opened_on_a_stage_it_checks_what_the_stage_computes(
    window, stepped_window, qtbot, wait_settled
):
    window.load_preset("happy")
    wait_settled(window)
    window.show_tab(1)
    window.stepper.set_stage("scale")
    dialog = window.menus.show_check()
    assert dialog.array_box.currentData() == "scaled_scores"
    dialog.close()
    window.stepper.set_stage("context")
    assert window.menus.show_check().array_box.currentData() == "head_contexts"
    dialog.close()
