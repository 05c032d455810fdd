"""The window can be translated with Qt's own tools: lupdate finds every string, and a
translation compiled by lrelease reaches every widget."""

import ast
import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import PySide6
import pytest
from PySide6.QtCore import QCoreApplication, QLocale, QTranslator
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QGroupBox,
    QLabel,
    QMenu,
    QTabBar,
    QWidget,
)

import attn_explorer
from attn_explorer.engine import PRESETS
from attn_explorer.text.examples import example_text
from attn_explorer.ui.i18n import install_translator
from attn_explorer.ui.main_window import MainWindow

PACKAGE = Path(attn_explorer.__file__).parent
QT_TOOLS = Path(PySide6.__file__).parent


def marked_strings() -> tuple[set[str], list[str]]:
    """The literals passed to `_tr` or QT_TR_NOOP, and every `_tr` call inside an f-string
    (which lupdate cannot see)."""
    literals, in_fstrings = set(), []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.JoinedStr):
                in_fstrings += [
                    f"{path.name}:{call.lineno}"
                    for call in ast.walk(node)
                    if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "_tr"
                ]
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", "") in ("_tr", "QT_TR_NOOP")
                and isinstance(node.args[0], ast.Constant)
            ):
                literals.add(node.args[0].value)
    return literals, in_fstrings


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    """The .ts file the README's lupdate command writes."""
    ts = tmp_path_factory.mktemp("i18n") / "attn_explorer_vi.ts"
    command = [QT_TOOLS / "lupdate", "-silent", "-tr-function-alias", "tr+=_tr"]
    subprocess.run(
        [*map(str, command), "-extensions", "py", str(PACKAGE), "-ts", str(ts)], check=True
    )
    return ts


def test_lupdate_finds_every_string_marked_for_translation(extracted):
    literals, in_fstrings = marked_strings()
    assert in_fstrings == [], "lupdate skips _tr calls inside f-strings"
    sources = {m.findtext("source") for m in ET.parse(extracted).iter("message")}
    assert len(literals) > 200
    assert sources == literals


@pytest.fixture
def pseudo_translated(extracted, tmp_path, qapp):
    """Every extracted string translated as ⟪string⟫, compiled by lrelease, installed for
    Vietnamese: a widget still showing plain English was missed."""
    tree = ET.parse(extracted)
    for message in tree.iter("message"):
        translation = message.find("translation")
        translation.text = f"⟪{message.findtext('source')}⟫"
        translation.attrib.pop("type", None)  # "unfinished" ones are left out by lrelease
    tree.write(tmp_path / "attn_explorer_vi.ts", encoding="utf-8", xml_declaration=True)
    lrelease = QT_TOOLS / "lrelease"
    ts, qm = tmp_path / "attn_explorer_vi.ts", tmp_path / "attn_explorer_vi.qm"
    subprocess.run([str(lrelease), "-silent", str(ts), "-qm", str(qm)], check=True)
    assert install_translator(qapp, QLocale("fr"), tmp_path) is None  # no French here
    before = set(qapp.findChildren(QTranslator))
    translator = install_translator(qapp, QLocale("vi"), tmp_path)
    assert translator is not None
    yield
    for installed in set(qapp.findChildren(QTranslator)) - before:
        QApplication.removeTranslator(installed)


def test_qt_own_words_come_with_a_translation_where_qt_ships_them(extracted, tmp_path, qapp):
    """German: the app's translation, then Qt's own (dialog buttons), which Qt ships."""
    ts, qm = tmp_path / "attn_explorer_de.ts", tmp_path / "attn_explorer_de.qm"
    ts.write_text(extracted.read_text(encoding="utf-8"), encoding="utf-8")
    subprocess.run([str(QT_TOOLS / "lrelease"), "-silent", str(ts), "-qm", str(qm)], check=True)
    before = set(qapp.findChildren(QTranslator))
    assert install_translator(qapp, QLocale("de"), tmp_path) is not None
    try:
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Abbrechen"
    finally:
        for installed in set(qapp.findChildren(QTranslator)) - before:
            QApplication.removeTranslator(installed)
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"


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


def test_a_translation_reaches_every_widget(pseudo_translated, qtbot):
    window = MainWindow()
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1500, 940)
    with qtbot.waitSignal(window.firstPicture, timeout=30_000):
        window.show()
    assert window.menuBar().actions()[0].text() == "⟪&File⟫"
    assert window.stepper.stages.tabText(5) == "6 ⟪Softmax⟫"
    assert window.board.views["mask"].plot.colorbar.ticks[1][1] == "⟪1 hidden⟫"
    # Written by Qt-free modules, which stay English: the examples' titles (engine presets)
    # and the status bar's summary of the configuration and of the shapes.
    english = {example_text(preset.name).title for preset in PRESETS.values()}
    english |= {window.status_text.text(), window.shape_text.text()}
    missed = {
        text
        for text in shown_texts(window)
        if re.search("[A-Za-z]{2}", text) and "⟪" not in text and text not in english
    }
    assert missed == set()


def test_export_refusals_speak_the_windows_language(pseudo_translated, tmp_path):
    """A refused size and a failed write came as English sentences in a translated window."""
    from attn_explorer.ui.export.figures import FigureTooSmallError
    from attn_explorer.ui.export.file_actions import _sentence

    small = FigureTooSmallError((507, 216), (250, 150), stages=True)
    assert _sentence(small, tmp_path) == (
        "⟪The stages need at least 507×216 px to fit, not 250×150: choose a larger size.⟫"
    )
    (tmp_path / "taken").write_text("")
    try:
        (tmp_path / "taken").mkdir()
    except OSError as error:
        message = _sentence(error, tmp_path / "taken")
    assert message == f"⟪Cannot write {tmp_path / 'taken'}: ⟪a file of that name is in the way⟫.⟫"
