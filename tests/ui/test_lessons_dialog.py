"""Help → Lessons: a learner picks a tutorial's section and the window lands on its example,
on the stage the section is about, with the numbers the section prints listed beside."""

import re

from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QApplication

from attn_explorer.engine import matching_preset
from attn_explorer.text import i18n
from attn_explorer.text.lessons import TUTORIALS, exact_rows, sections
from attn_explorer.text.numbers import num
from attn_explorer.ui.lessons_dialog import LessonsDialog
from attn_explorer.ui.text_size import text_size


def lines_of(dialog) -> list[str]:
    return dialog.details.toPlainText().splitlines()


def test_picking_3_5_2_lands_on_the_dropout_example_at_its_dropout_stage(
    window, qtbot, wait_settled
):
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_L, Qt.KeyboardModifier.ControlModifier)
    dialog = window.menus.lessons_dialog
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    dialog.choose("3.5.2")
    assert dialog.tree.currentItem().text(0) == (
        "3.5.2 Masking additional attention weights with dropout"
    )
    shown = lines_of(dialog)
    assert "Opens on the Step through tab, stage 7 “Dropout”." in shown
    assert "[0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000]" in shown
    with qtbot.waitSignal(dialog.lessonChosen) as chosen:
        qtbot.keyClick(dialog.tree, Qt.Key.Key_Return)
    assert chosen.args == ["dropout", "dropout"]
    assert not dialog.isVisible()  # out of the way of the window on a small screen
    wait_settled(window)
    assert matching_preset(window.doc.config()).name == "dropout"
    assert window.tabs.currentWidget() is window.stepper
    assert window.stepper.stage == "dropout"
    assert window.doc.view.stage == "dropout"
    row = window.stepper.stages.currentIndex()
    assert window.stepper.stages.tabText(row) == "7 Dropout"
    assert window.doc.view.query == 2  # “starts”, whose kept weights the section names
    # What the dialog listed is what the window now shows.
    dropped = window.trace.weights_dropped[0]
    section = next(s for _, s in sections() if s.number == "3.5.2")
    listed = next(p for p in section.printed if p.code == "dropout(attn_weights)")
    assert [[num(v) for v in r] for r in dropped] == exact_rows(listed)
    # Help → Lessons again: the dialog, on the section it was left on.
    assert window.menus.show_lessons() is dialog
    assert dialog.chosen()[1].number == "3.5.2"
    qtbot.keyClick(dialog.tree, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_a_double_click_opens_and_a_section_without_a_stage_opens_the_matrices(
    window, qtbot, wait_settled
):
    dialog = window.menus.show_lessons()
    dialog.choose("3.3.1")
    item = dialog.tree.currentItem()
    rect = dialog.tree.visualItemRect(item)
    # A double-click as a mouse makes one: a press (the view remembers the row), then the
    # double-click on the same row.
    qtbot.mousePress(dialog.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.mouseDClick(dialog.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    wait_settled(window)
    assert matching_preset(window.doc.config()).name == "simple"
    assert (window.tabs.currentWidget(), window.stepper.stage) == (window.stepper, "softmax")
    dialog = window.menus.show_lessons()
    dialog.choose("", part="the attention weights of every head", tutorial=2)
    assert "Opens on the Matrices tab." in lines_of(dialog)
    qtbot.mouseClick(dialog.open_button, Qt.MouseButton.LeftButton)
    wait_settled(window)
    assert matching_preset(window.doc.config()).name == "cross"
    assert window.tabs.currentWidget() is window.board


def test_a_tutorials_row_lists_its_sections_and_opens_nothing(qtbot):
    dialog = LessonsDialog()
    qtbot.addWidget(dialog)
    dialog.tree.setCurrentItem(dialog.tree.topLevelItem(3))
    assert not dialog.open_button.isEnabled()
    shown = lines_of(dialog)
    assert shown[0] == "Day 43 – A deeper look at scaled dot-product attention"
    assert "Step 5: Apply softmax" in shown
    with qtbot.assertNotEmitted(dialog.lessonChosen):
        qtbot.keyClick(dialog.tree, Qt.Key.Key_Return)


def test_day_43s_slips_are_marked_beside_the_exact_values(qtbot):
    dialog = LessonsDialog()
    qtbot.addWidget(dialog)
    dialog.tree.setCurrentItem(dialog.tree.topLevelItem(3).child(4))  # Step 5: Apply softmax
    shown = lines_of(dialog)
    wrote = shown.index("The tutorial writes:")
    assert shown[wrote + 1 : wrote + 4] == [
        "[0.30, 0.33, 0.37]",
        "[0.26, 0.37, 0.37]",
        "[0.25, 0.36, 0.39]",
    ]
    exact = shown.index("The exact values, as the window computes them:")
    assert shown[exact + 1 : exact + 4] == [
        "[0.2994, 0.3321, 0.3685]",
        "[0.2514, 0.3260, 0.4227]",
        "[0.2078, 0.3149, 0.4773]",
    ]
    assert (
        "6 numbers written differ from the exact values at the tutorial's own precision "
        "(underlined)." in shown
    )
    marked = re.findall(r"text-decoration:\s*underline[^>]*>([^<]+)<", dialog.details.toHtml())
    assert marked == ["0.26", "0.37", "0.37", "0.25", "0.36", "0.39"]


def rows_cut(dialog) -> list[str]:
    """The sections whose numbers scroll sideways in the details."""
    cut = []
    for t, tutorial in enumerate(TUTORIALS):
        for s in range(len(tutorial.sections)):
            dialog.tree.setCurrentItem(dialog.tree.topLevelItem(t).child(s))
            QApplication.processEvents()
            if dialog.details.horizontalScrollBar().maximum() > 0:
                cut.append(tutorial.sections[s].title)
    return cut


def test_on_a_1024_projector_every_sections_numbers_fit_beside_the_tree(qtbot, normal_size):
    """No row of numbers is cut or scrolls sideways, at the normal text size and at 150 %,
    where the numbers take room from the tree's titles (whole in their tooltips)."""
    dialog = LessonsDialog()
    qtbot.addWidget(dialog)
    projector = QRect(0, 0, 1024, 768)
    dialog.fit_to(projector)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.size() == QSize(900, 600)
    hint = dialog.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 768
    assert rows_cut(dialog) == []
    tree_at_100 = dialog.tree.width()
    text_size.set_factor(1.5)
    QApplication.processEvents()
    dialog.fit_to(projector)
    QApplication.processEvents()
    assert rows_cut(dialog) == []
    assert 240 <= dialog.tree.width() < tree_at_100
    item = dialog.item_for("3.6.2")
    assert item.toolTip(0).startswith("3.6.2 Implementing multi-head attention with weight splits")


def test_a_vietnamese_learner_reads_the_tutorials_headings_and_numbers(qtbot):
    dialog = LessonsDialog()  # built in English, shown after the language changed
    qtbot.addWidget(dialog)
    i18n.set_language("vi")
    try:
        dialog.show()
        assert dialog.windowTitle() == "Bài học"
        assert dialog.tree.topLevelItem(0).text(0) == (
            "Build a Large Language Model (From Scratch), chương 3: Triển khai cơ chế Attention"
        )
        dialog.choose("3.5.2")
        assert dialog.tree.currentItem().text(0) == "3.5.2 Dropout"
        shown = lines_of(dialog)
        assert "Mở ở thẻ Từng bước, bước 7 “Dropout”." in shown
        assert "Những gì bài hướng dẫn in ra ở đây" in shown
        assert "[0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000]" in shown  # decimal points
        assert dialog.open_button.text() == "&Mở"
        dialog.tree.setCurrentItem(dialog.tree.topLevelItem(3).child(5))
        assert dialog.tree.currentItem().text(0) == "Bước 6: Nhân Với Ma Trận Value (V)"
        assert (  # its context rows are no slips: they follow from its wrong weights
            "6 số khác với giá trị chính xác chỉ vì các số trước đó của chính bài hướng dẫn "
            "đã sai: chúng được tính đúng từ các số ấy." in lines_of(dialog)
        )
    finally:
        i18n.set_language("en")


def test_a_pseudo_translation_leaves_no_english_in_the_dialog(pseudo, qtbot):
    dialog = LessonsDialog()
    qtbot.addWidget(dialog)
    codes = {p.code for _, section in sections() for p in section.printed}
    texts = [dialog.windowTitle(), dialog.open_button.text(), dialog.open_button.toolTip()]
    texts.append(dialog.tree.toolTip())
    for t, tutorial in enumerate(TUTORIALS):
        top = dialog.tree.topLevelItem(t)
        texts += [top.text(0), top.toolTip(0)]
        for s in range(len(tutorial.sections)):
            dialog.tree.setCurrentItem(top.child(s))
            texts += [top.child(s).text(0), top.child(s).toolTip(0)]
            texts += lines_of(dialog)
    missed = []
    for text in texts:
        left = re.sub("⟪[^⟫]*⟫", "", text)
        for code in sorted(codes, key=len, reverse=True):
            left = left.replace(code, "")
        if re.search("[A-Za-z]{2}", left):
            missed.append(text)
    assert missed == []


def test_day_43s_context_is_no_slip_and_says_it_follows(qtbot):
    """The dialog underlined 0.53 (rounding, as "Check my numbers" says) and the rows that
    are only done from the tutorial's own wrong weights."""
    dialog = LessonsDialog()
    qtbot.addWidget(dialog)
    dialog.tree.setCurrentItem(dialog.tree.topLevelItem(3).child(5))  # Step 6: context
    shown = lines_of(dialog)
    assert re.findall(r"text-decoration:\s*underline", dialog.details.toHtml()) == []
    assert (
        "6 numbers differ from the exact values only because the tutorial's own earlier "
        "numbers did: they are done right from them." in shown
    )
