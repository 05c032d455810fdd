"""The window's words go through the catalogue: under a pseudo-translation no English is left
outside ⟪…⟫ in the controls, the embedding editor, any menu (its entries, their tooltips and
status tips), the status bar or Help > Keyboard Shortcuts; in Vietnamese the menus, the undo
steps and the list of keys read Vietnamese."""

import re
from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QDialogButtonBox,
    QGroupBox,
    QLabel,
    QMenu,
    QTabBar,
    QWidget,
)

from attn_explorer.engine import PRESETS
from attn_explorer.text.examples import example_text
from attn_explorer.text.i18n import LANGUAGES
from attn_explorer.text.summaries import config_summary, shapes_summary
from attn_explorer.ui.i18n import use_language
from attn_explorer.ui.widgets import ElidedLabel
from tests.untranslated import SYMBOLS


def leftover_english(text: str, foreign: set[str]) -> list[str]:
    """The words of `text` left outside ⟪…⟫ (nested ones too), once the `foreign` texts
    (words another part of the program writes) are taken out."""
    for words in sorted(foreign, key=len, reverse=True):
        text = text.replace(words, "")
    while (inner := re.sub("⟪[^⟪⟫]*⟫", "", text)) != text:
        text = inner
    return [word for word in re.findall("[A-Za-z_]{2,}", text) if word not in SYMBOLS]


def menu_texts(menu: QMenu) -> Iterator[tuple[str, str]]:
    """(where, text) of every entry of `menu` and its submenus: text, tooltip, status tip."""
    for action in menu.actions():
        if action.isSeparator():
            continue
        where = f"{menu.title()} > {action.text()}"
        yield where, action.text()
        yield f"{where} (tooltip)", action.toolTip()
        yield f"{where} (status tip)", action.statusTip()
        if action.menu() is not None:
            yield where, action.menu().title()
            yield from menu_texts(action.menu())


def widget_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) of what `root` and the widgets in it show: their texts, titles, items,
    tabs, tooltips and status tips, and the tables' headings and cell tooltips."""
    for child in [root, *root.findChildren(QWidget)]:
        where = f"{type(child).__name__} {child.objectName()}"
        yield f"{where} (tooltip)", child.toolTip()
        yield f"{where} (status tip)", child.statusTip()
        if isinstance(child, ElidedLabel):
            yield where, child.full_text()
        elif isinstance(child, (QLabel, QAbstractButton)):
            yield where, child.text()
        if isinstance(child, QGroupBox):
            yield where, child.title()
        if isinstance(child, QComboBox):
            for i in range(child.count()):
                yield where, child.itemText(i)
                yield where, child.itemData(i, Qt.ItemDataRole.ToolTipRole) or ""
        if isinstance(child, QTabBar):
            for i in range(child.count()):
                yield where, child.tabText(i)
                yield where, child.tabToolTip(i)
        if isinstance(child, QAbstractItemView) and child.model() is not None:
            model = child.model()
            for orientation, count in (
                (Qt.Orientation.Horizontal, model.columnCount()),
                (Qt.Orientation.Vertical, model.rowCount()),
            ):
                for section in range(count):
                    yield where, str(model.headerData(section, orientation) or "")
            for column in range(model.columnCount()):
                tip = model.data(model.index(0, column), Qt.ItemDataRole.ToolTipRole)
                yield f"{where} cell (1, {column})", str(tip or "")


def foreign_words(window) -> set[str]:
    """The words of the examples and the config's summaries, which their own module
    translates: taken out here only while that module has not marked them."""
    words = set()
    for name in PRESETS:
        text = example_text(name)
        words |= {text.title, text.source}
    words |= {config_summary(window.doc.config()), shapes_summary(window.trace)}
    words |= set(LANGUAGES.values())  # each language named in itself, to be found by all
    return {w for w in words if "⟪" not in w}


def test_no_english_escapes_the_catalogue(pseudo, window, wait_settled):
    window.doc.set_control("num_heads", 2)  # Undo now names a step
    wait_settled(window)  # and the status bar the new settings
    texts = []
    for entry in window.menuBar().actions():
        texts.append(("menu bar", entry.text()))
        texts += menu_texts(entry.menu())
    for root in (window.controls, window.editor, window.statusBar()):
        texts += widget_texts(root)
    dialog = window.menus.show_shortcuts()
    texts += [("shortcuts", dialog.windowTitle())]
    header = dialog.tree.headerItem()
    texts += [("shortcuts heading", header.text(0)), ("shortcuts heading", header.text(1))]
    # The keys are Qt's words (Ctrl, Alt+Up): the Vietnamese test reads them.
    texts += [(f"shortcuts {section}", f"{section} {what}") for section, what, _ in dialog.rows()]
    dialog.close()
    assert len(texts) > 400  # the sweep reached every part
    foreign = foreign_words(window)
    missed = {
        f"{where}: {text!r}" for where, text in texts if text and leftover_english(text, foreign)
    }
    assert not missed, "\n".join(sorted(missed))


def mnemonic(text: str) -> str:
    found = re.search(r"&(\w)", text.replace("&&", ""))
    return found.group(1).lower() if found else ""


@pytest.fixture
def in_vietnamese(qapp):
    """Our words and Qt's in Vietnamese, from before the window is built until after."""
    use_language("vi")
    yield
    use_language("en")


def test_the_menus_the_list_of_keys_and_the_status_bar_read_vietnamese(in_vietnamese, window):
    bar = window.menuBar().actions()
    menus = {entry.text(): entry.menu() for entry in bar}
    # The File menu (first) is the file actions' own.
    assert [entry.text() for entry in bar[1:]] == [
        "&Sửa",
        "&Xem",
        "&Ví dụ",
        "S&o sánh",
        "Trợ &giúp",
    ]
    window.doc.set_control("num_heads", 2)
    edit = [action.text() for action in menus["&Sửa"].actions() if not action.isSeparator()]
    assert edit[:3] == ["&Hoàn tác thay đổi số đầu", "&Làm lại", "Chèn token\tCtrl+I trong bảng"]
    assert "Chuyển token lên\tAlt+↑ trong bảng" in edit
    view = [action.text() for action in menus["&Xem"].actions() if not action.isSeparator()]
    assert view[:2] == ["&Ma trận", "&Từng bước"]
    assert "Cỡ chữ &bình thường" in view and "Toàn màn &hình" in view
    assert [a.text() for a in menus["Trợ &giúp"].actions()] == [
        "&Bài học…",
        "&Phím tắt",
        "&Giới thiệu attn_explorer",
    ]
    for title in ("&Sửa", "&Xem", "Trợ &giúp"):
        letters = [mnemonic(a.text()) for a in menus[title].actions() if mnemonic(a.text())]
        assert len(set(letters)) == len(letters), (title, letters)
    # A letter is a key the keyboard has: "&Đóng" could never be picked.
    letters = [mnemonic(entry.text()) for entry in bar[1:]]
    assert all(letter.isascii() for letter in letters) and len(set(letters)) == len(letters)

    dialog = window.menus.show_shortcuts()
    rows = dialog.rows()
    dialog.close()
    assert ("Sửa", "Hoàn tác chỉnh sửa cuối cùng", "Ctrl+Z") in rows
    assert ("Bảng embedding (khi đang có tiêu điểm)", "Chuyển token lên", "Alt+↑") in rows
    assert dialog.windowTitle() == "Phím tắt"
    assert dialog.findChild(QDialogButtonBox).buttons()[0].text() == "Đóng"
    times = window.time_text.full_text()
    assert re.fullmatch(r"tính toán \d+\.\d ms · vẽ \d+\.\d ms", times), times
