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

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"


def tr(text: str) -> str:
    return QCoreApplication.translate("", text)


def install_translator(
    app: QCoreApplication, locale: QLocale | None = None, folder: Path = TRANSLATIONS
) -> QTranslator | None:
    """Load `attn_explorer_<language>.qm` for `locale` (the system's by default) from `folder`,
    if there is one; English, the source language, needs none."""
    locale = locale or QLocale()
    translator = QTranslator(app)
    if not translator.load(locale, "attn_explorer", "_", str(folder)):
        translator.deleteLater()
        return None
    app.installTranslator(translator)
    # Qt's own words (dialog buttons, a text field's menu) in the same language, where Qt
    # ships them; without ours they would be the only words translated, so only with ours.
    qt_words = QTranslator(app)
    if qt_words.load(
        locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    ):
        app.installTranslator(qt_words)
    return translator
