"""Qt's own words in Vietnamese, from the qt_vi.qm we carry (Qt ships no Vietnamese): the menus
of a text field and a spin box, the message box's details button, Qt's own file dialog, the
names of the arrow keys."""

import re

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QLineEdit, QTreeView

from attn_explorer.ui.i18n import use_language


@pytest.fixture
def qt_in_vietnamese(qapp):
    use_language("vi")
    yield
    use_language("en")


def qt(context: str, text: str) -> str:
    return QCoreApplication.translate(context, text)


def letter(text: str) -> str:
    """The letter after a menu text's "&" (the key that picks it), lower case."""
    found = re.search(r"&(\w)", text.replace("&&", ""))
    return found.group(1).lower() if found else ""


def test_qt_says_its_words_in_vietnamese_and_english_again_after(qt_in_vietnamese):
    assert qt("QLineEdit", "&Copy") == "&Sao chép"
    assert qt("QAbstractSpinBox", "&Step up") == "Tă&ng"
    assert qt("QMessageBox", "Show Details...") == "Hiện chi tiết…"
    assert qt("QFileDialog", "%1 already exists.\nDo you want to replace it?") == (
        "%1 đã có.\nBạn có muốn thay thế không?"
    )
    assert qt("QScrollBar", "Scroll here") == "Cuộn đến đây"
    use_language("en")
    assert qt("QLineEdit", "&Copy") == "&Copy"


def test_a_text_fields_menu_is_in_vietnamese(qt_in_vietnamese, qtbot):
    field = QLineEdit("0.43")
    qtbot.addWidget(field)
    menu = field.createStandardContextMenu()
    shown = [action.text().split("\t")[0] for action in menu.actions() if not action.isSeparator()]
    assert shown == ["&Hoàn tác", "&Làm lại", "&Cắt", "&Sao chép", "&Dán", "Xóa", "Chọn tất cả"]


def test_a_spin_boxs_menu_picks_each_entry_by_its_own_letter(qt_in_vietnamese):
    """A spin box's menu is its text field's, Select All replaced, and Step up and Step down
    added: the letters that pick them must differ, and be keys a keyboard has (not "ă")."""
    field = [qt("QLineEdit", t) for t in ("&Undo", "&Redo", "Cu&t", "&Copy", "&Paste")]
    spin = [qt("QAbstractSpinBox", t) for t in ("&Select All", "&Step up", "Step &down")]
    letters = [letter(text) for text in field + spin]
    assert all(len(key) == 1 and key.isascii() for key in letters), letters
    assert len(set(letters)) == len(letters), letters


def test_qts_own_file_dialog_is_in_vietnamese(qt_in_vietnamese, qtbot, tmp_path):
    (tmp_path / "session.json").write_text("{}")
    dialog = QFileDialog(None, "", str(tmp_path))
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    qtbot.addWidget(dialog)
    labels = {label.objectName(): label.text() for label in dialog.findChildren(QLabel)}
    assert labels["lookInLabel"] == "Tìm tr&ong:"
    assert labels["fileNameLabel"] == "Tên &tệp:"
    assert labels["fileTypeLabel"] == "&Kiểu tệp:"
    model = dialog.findChild(QTreeView, "treeView").model()
    horizontal = Qt.Orientation.Horizontal
    headers = [model.headerData(i, horizontal) for i in range(model.columnCount())]
    assert headers == ["Tên", "Kích thước", "Kiểu", "Ngày sửa đổi"]


def test_the_arrow_keys_are_written_as_arrows(qt_in_vietnamese):
    native = QKeySequence.SequenceFormat.NativeText
    assert QKeySequence("Alt+Up").toString(native) == "Alt+↑"
    assert QKeySequence("Ctrl+Shift+Z").toString(native) == "Ctrl+Shift+Z"
    use_language("en")
    assert QKeySequence("Alt+Up").toString(native) == "Alt+Up"
