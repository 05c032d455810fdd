"""The editing a Vietnamese learner does: the Edit menu names each step as a Vietnamese phrase
("Hoàn tác thay đổi số đầu", not "Hoàn tác Change heads"), and a table cell writes and reads a
decimal point on a Vietnamese desktop."""

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QLineEdit

from attn_explorer.ui.editing.embedding_editor import EmbeddingTable
from attn_explorer.ui.i18n import tr
from tests.ui.desktop_locale import desktop_locale


@pytest.fixture
def doc(new_document):
    return new_document()


def test_the_edit_menu_names_each_step_in_vietnamese(vietnamese, doc):
    undo = doc.undo_stack.createUndoAction(None, tr("&Undo"))
    redo = doc.undo_stack.createRedoAction(None, tr("&Redo"))
    assert undo.text() == "&Hoàn tác"
    doc.set_control("num_heads", 2)
    assert undo.text() == "&Hoàn tác thay đổi số đầu"
    assert not doc.controls.out_proj
    doc.set_control("out_proj", True)
    assert undo.text() == "&Hoàn tác bật phép chiếu đầu ra"
    doc.queries.setData(doc.queries.index(0, 1), "0,5")
    assert undo.text() == "&Hoàn tác sửa x1[1]"
    doc.queries.remove_tokens([1, 2])
    assert undo.text() == "&Hoàn tác xóa các token"
    assert doc.remove_dimension(0) is None
    assert undo.text() == "&Hoàn tác xóa chiều"
    doc.undo_stack.undo()
    assert redo.text() == "&Làm lại xóa chiều"


def test_a_cell_writes_and_reads_a_decimal_point_on_a_vietnamese_desktop(doc, qtbot):
    with desktop_locale("vi_VN"):
        table = EmbeddingTable(doc.queries)
        qtbot.addWidget(table)
        table.show()
        index = doc.queries.index(0, 1)
        assert doc.queries.data(index) == "0.43"
        table.setCurrentIndex(index)
        table.edit(index)
        editor = table.findChild(QLineEdit)
        assert editor.text() == "0.43"
        editor.selectAll()
        qtbot.keyClicks(editor, "0,55")
        qtbot.keyClick(editor, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: table.state() != QAbstractItemView.State.EditingState)
    assert doc.queries.values[0, 0] == 0.55
    assert doc.queries.data(index) == "0.55"
