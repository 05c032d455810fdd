"""What a user reads that escaped translation: under the pseudo-translation (tests/conftest.py's
`pseudo`) every translated string is wrapped in ⟪…⟫, so a word outside the brackets was never
looked up. Symbols, token names, numbers and the names of code are not words to translate."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

import pyqtgraph as pg
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QComboBox,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QTabBar,
    QTextEdit,
    QWidget,
)

from attn_explorer.text.i18n import LANGUAGES
from attn_explorer.ui.widgets import ElidedLabel

# Names that stay as they are in every language: the tutorials' symbols and code, file formats,
# keys, the app's own name. Compared case-sensitively, word by word.
SYMBOLS = {
    *["Q", "K", "V", "X", "Z", "W", "x", "q", "k", "v", "z", "e", "i", "j", "n", "h", "b"],
    *[
        "W_q",
        "W_k",
        "W_v",
        "W_o",
        "W_query",
        "W_key",
        "W_value",
        "d_in",
        "d_out",
        "d_k",
        "d_head",
        "n_q",
        "n_k",
    ],
    *[
        "softmax",
        "exp",
        "max",
        "sum",
        "log",
        "tril",
        "triu",
        "masked_fill",
        "nn",
        "Linear",
        "Dropout",
        "Parameter",
        "rand",
    ],
    *["torch", "PyTorch", "manual_seed", "SelfAttention_v1", "SelfAttention_v2", "CausalAttention"],
    *["MultiHeadAttentionWrapper", "MultiHeadAttention", "out_proj", "qkv_bias", "valid_lens"],
    *[
        "inf",
        "NaN",
        "nan",
        "px",
        "pt",
        "PNG",
        "SVG",
        "PDF",
        "CSV",
        "JSON",
        "NPZ",
        "png",
        "svg",
        "pdf",
        "csv",
        "json",
        "npz",
        "py",
    ],
    *[
        "Ctrl",
        "Shift",
        "Alt",
        "Esc",
        "Space",
        "Tab",
        "Enter",
        "Del",
        "PgUp",
        "PgDown",
        "Home",
        "End",
        "F1",
        "F9",
        "F11",
    ],
    *["q_i", "k_j", "z_i", "X_kv", "Z_cat", "b_o", "out", "keep", "Bernoulli", "cat", "kv"],
    *["encoder", "decoder", "j'"],  # kept in English, as the Self-Attention blog keeps them
    *["attn_explorer", "attn-explorer", "English"],
}
# Two Latin letters or more (Vietnamese's included): Greek letters and subscripts are symbols.
LATIN = "A-Za-zÀ-ÖØ-öø-ɏḀ-ỿ"
# A name with a digit (z2, Z_cat2, W_1) is a symbol, not a word.
WORD = re.compile(f"[{LATIN}][{LATIN}_'\\d]+")


def qt_words() -> set[str]:
    """Qt's own words that we carry translated (translations/vi/qt.ts): Qt translates them, not
    our catalogue, so they show unbracketed under the pseudo-translation."""
    import xml.etree.ElementTree as ET

    from attn_explorer.text.i18n import TRANSLATIONS

    root = ET.parse(TRANSLATIONS / "vi" / "qt.ts").getroot()
    return {
        message.findtext("source")
        for message in root.iter("message")
        if message.findtext("translation")
    }


def outside_brackets(text: str) -> str:
    """`text` without its ⟪…⟫ spans (nested ones too), its HTML tags and entities."""
    text = re.sub(r"<[^>]+>", " ", text)
    text = html.unescape(text)
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"⟪[^⟪⟫]*⟫", " ", text)
    return text


def untranslated(texts: Iterable[str], allowed: Iterable[str] = ()) -> set[str]:
    """The texts with a word outside the brackets that is not a symbol or an allowed name.
    Qt's own words and the languages' names (each written in itself) are not ours to wrap."""
    ok = SYMBOLS | set(allowed)
    whole = qt_words() | set(LANGUAGES.values())
    found = set()
    for text in texts:
        if not text or text in whole:
            continue
        words = [
            word
            for word in WORD.findall(outside_brackets(text))
            if word not in ok and not re.search(r"\d", word)
        ]
        if words:
            found.add(text)
    return found


def _count(method) -> int:
    """A model's rows or columns, as each model's binding takes the question: a table
    widget's model without the root's index, a list widget's with it; a list model's one
    column is private to it."""
    for args in ((), (QModelIndex(),)):
        try:
            return method(*args)
        except TypeError:
            continue
    return 1


def shown_texts(root: QWidget) -> list[str]:
    """Every text `root` and its children show: labels, buttons, tooltips, status tips,
    placeholders, boxes' items, tabs, group titles, menus (with their actions'
    tooltips), table headers, and the pyqtgraph titles, labels and texts of its plots."""
    texts: list[str] = [root.windowTitle()]
    for child in [root, *root.findChildren(QWidget)]:
        if not child.isVisibleTo(root) and not isinstance(child, QMenu):
            continue
        texts += [child.toolTip(), child.statusTip(), child.whatsThis()]
        if isinstance(child, ElidedLabel):
            texts.append(child.full_text())  # an elided text has lost its closing bracket
        elif isinstance(child, QLabel | QAbstractButton):
            texts.append(child.text())
        if isinstance(child, QLineEdit):
            texts.append(child.placeholderText())
        if isinstance(child, QTextEdit):
            texts.append(child.toPlainText())
        if isinstance(child, QGroupBox):
            texts.append(child.title())
        if isinstance(child, QComboBox):
            for i in range(child.count()):
                texts += [child.itemText(i), child.itemData(i, Qt.ItemDataRole.ToolTipRole) or ""]
        if isinstance(child, QTabBar):
            for i in range(child.count()):
                texts += [child.tabText(i), child.tabToolTip(i)]
        if isinstance(child, QMenu):
            texts.append(child.title())
            for action in child.actions():
                if not action.isSeparator():
                    texts += [action.text(), action.toolTip(), action.statusTip()]
        if isinstance(child, QAbstractItemView) and child.model() is not None:
            model = child.model()
            for orientation, count in (
                (Qt.Orientation.Horizontal, _count(model.columnCount)),
                (Qt.Orientation.Vertical, _count(model.rowCount)),
            ):
                for section in range(count):
                    for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                        value = model.headerData(section, orientation, role)
                        texts.append(value if isinstance(value, str) else "")
        if isinstance(child, pg.GraphicsView):
            texts += graphics_texts(child.scene())
    return texts


def graphics_texts(scene) -> list[str]:
    texts = []
    for item in scene.items():
        if isinstance(item, pg.LabelItem):
            texts.append(item.text)
        elif isinstance(item, pg.TextItem):
            texts.append(item.textItem.toPlainText())
        elif isinstance(item, pg.AxisItem):
            texts.append(item.labelText)
        if hasattr(item, "toolTip"):
            texts.append(item.toolTip())
    return texts
