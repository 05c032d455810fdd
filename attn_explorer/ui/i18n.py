"""The window's strings and their translation.

Every string the window shows goes through `tr` (imported as `_tr`), in one context, so that
Qt's own tool finds them all:

    pyside6-lupdate -tr-function-alias tr+=_tr -extensions py attn_explorer \
        -ts attn_explorer/translations/attn_explorer_vi.ts

lupdate gives such calls no class context, so `tr` looks them up in that same empty context.
Strings kept in tables and translated where they are shown are marked with QT_TR_NOOP. A
string built inside an f-string is invisible to lupdate: translate it outside, then format.

Texts written by the engine (array and stage titles, formulas, explanations, problems) are
Qt-free and stay English.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLocale, QTranslator

TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"


def tr(text: str) -> str:
    return QCoreApplication.translate("", text)


def install_translator(
    app: QCoreApplication, locale: QLocale | None = None, folder: Path = TRANSLATIONS
) -> QTranslator | None:
    """Load `attn_explorer_<language>.qm` for `locale` (the system's by default) from `folder`,
    if there is one; English, the source language, needs none."""
    translator = QTranslator(app)
    if translator.load(locale or QLocale(), "attn_explorer", "_", str(folder)):
        app.installTranslator(translator)
        return translator
    translator.deleteLater()
    return None
