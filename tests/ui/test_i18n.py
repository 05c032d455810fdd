"""The window speaks through the gettext catalogue: a pseudo-translation reaches every widget,
and Qt's own words come in the same language from the file we carry."""

import re

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QAbstractButton, QComboBox, QGroupBox, QLabel, QMenu, QTabBar, QWidget

from attn_explorer.text import i18n
from attn_explorer.ui.i18n import system_language, use_language
from attn_explorer.ui.main_window import MainWindow


def shown_texts(window: QWidget) -> list[str]:
    texts = []
    for child in window.findChildren(QWidget):
        texts.append(child.toolTip())
        if isinstance(child, (QLabel, QAbstractButton)):
            texts.append(child.text())
        if isinstance(child, QGroupBox):
            texts.append(child.title())
        if isinstance(child, QComboBox):
            texts += [child.itemText(i) for i in range(child.count())]
        if isinstance(child, QTabBar):
            texts += [child.tabText(i) for i in range(child.count())]
        if isinstance(child, QMenu):
            texts.append(child.title())
            texts += [action.text() for action in child.actions() if not action.isSeparator()]
    return texts


def test_a_translation_reaches_the_menus_tabs_and_colour_bar(pseudo, qtbot):
    window = MainWindow()
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1500, 940)
    with qtbot.waitSignal(window.firstPicture, timeout=30_000):
        window.show()
    assert window.menuBar().actions()[0].text() == "⟪&File⟫"
    assert window.board.views["mask"].plot.colorbar.ticks[1][1] == "⟪1 hidden⟫"
    missed = {
        text for text in shown_texts(window) if re.search("[A-Za-z]{2}", text) and "⟪" not in text
    }
    assert len(missed) < 400  # narrowed to none by the sweep in tests/ui/test_translation_sweep.py


def test_qt_own_words_follow_the_chosen_language(qapp):
    use_language("vi")
    try:
        assert i18n.language() == "vi"
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Hủy"
    finally:
        use_language("en")
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"


def test_the_desktops_language_is_used_when_we_have_it():
    from PySide6.QtCore import QLocale

    assert system_language(QLocale("vi_VN")) == "vi"
    assert system_language(QLocale("fr_FR")) == "en"
    assert system_language(QLocale("en_GB")) == "en"
