"""The File menu in the chosen language: its actions, the window's title, Open Recent, the
questions before replacing a file and the refusals of an export."""

import re

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from attn_explorer.ui.export import file_actions
from attn_explorer.ui.export.figures import FigureSpec
from attn_explorer.ui.i18n import SETTING

VIETNAMESE_MENU = [
    "&Tạo mới",
    "&Mở…",
    "Mở &gần đây",
    "&Lưu",
    "Lưu t&hành…",
    "&Xuất hình…",
    "Xuất mọi &bước…",
    "Xuất &dữ liệu…",
    "Xuất script &PyTorch…",
]


def test_the_file_menu_and_its_questions_follow_the_language(
    window, tmp_path, dialogs, monkeypatch
):
    assert window.files.menu.title() == "&File"
    window.set_language("vi")
    files = window.files
    try:
        assert files.menu.title() == "&Tệp"
        assert [a.text() for a in files.menu.actions() if a.text()][:9] == VIETNAMESE_MENU
        assert window.windowTitle() == "Chưa đặt tên[*] — attn_explorer"

        QSettings().remove("recentFiles")
        files._fill_recent()
        assert [a.text() for a in files.recent_menu.actions()] == ["Chưa có phiên làm việc gần đây"]

        (tmp_path / "notes.json").write_text("my notes\n")
        monkeypatch.setattr(
            file_actions.QFileDialog,
            "getSaveFileName",
            lambda *a: (str(tmp_path / "notes"), ""),
        )
        dialogs["answer"] = QMessageBox.StandardButton.No
        assert not files.save_as()
        assert dialogs["question"] == [
            ("Thay thế phiên làm việc?", "notes.json đã tồn tại. Thay thế tệp này?")
        ]

        spec = FigureSpec("matrices")
        assert not files.export_figure_to(tmp_path / "m.png", spec, size=(400, 300))
        ((title, text),) = dialogs["critical"]
        assert title == "Không thể xuất hình"
        assert re.fullmatch(
            r"Hình này cần ít nhất \d+×\d+ px mới vừa, không phải 400×300: "
            r"hãy chọn kích thước lớn hơn\.",
            text,
        )
    finally:
        window.set_language("en")
        QSettings().remove(SETTING)
    files = window.files
    assert files.menu.title() == "&File"
    assert [a.text() for a in files.menu.actions() if a.text()][:2] == ["&New", "&Open…"]
