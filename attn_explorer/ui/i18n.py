"""The window's words and Qt's own, in the language the user chose.

Our strings go through `tr` (imported as `_tr`), which is the Qt-free layer's gettext lookup
(`text/i18n.py`): one catalogue and one language for the window, the figures it exports and the
words about the computation. Qt's own words (dialog buttons, a text field's menu) come from
`translations/qt_<language>.qm`, which we carry because Qt ships no Vietnamese translation.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLocale, QSettings, QTranslator

from attn_explorer.text import i18n
from attn_explorer.text.i18n import LANGUAGES, SOURCE_LANGUAGE, TRANSLATIONS

SETTING = "language"


def tr(text: str) -> str:
    return i18n._(text)


def system_language(locale: QLocale | None = None) -> str:
    """The first of the desktop's preferred languages that we have, English otherwise."""
    for name in (locale or QLocale.system()).uiLanguages():
        code = name.replace("_", "-").split("-")[0].lower()
        if code in LANGUAGES:
            return code
    return SOURCE_LANGUAGE


def chosen_language() -> str:
    """The language chosen in View → Language in an earlier run, else the system's."""
    saved = QSettings().value(SETTING, "", type=str)
    return saved if saved in LANGUAGES else system_language()


def remember_language(code: str) -> None:
    QSettings().setValue(SETTING, code)


class QtWords:
    """Qt's own words in the current language: one translator, swapped on every change."""

    def __init__(self, app: QCoreApplication, folder: Path = TRANSLATIONS) -> None:
        self.app = app
        self.folder = folder
        self.translator: QTranslator | None = None

    def use(self, code: str) -> None:
        if self.translator is not None:
            self.app.removeTranslator(self.translator)
            self.translator.deleteLater()
            self.translator = None
        if code == SOURCE_LANGUAGE:
            return
        translator = QTranslator(self.app)
        if translator.load(str(self.folder / f"qt_{code}.qm")):
            self.app.installTranslator(translator)
            self.translator = translator
        else:
            translator.deleteLater()


_qt_words: QtWords | None = None


def use_language(code: str) -> None:
    """Speak `code` everywhere: our catalogue and Qt's own words."""
    global _qt_words
    i18n.set_language(code)
    app = QCoreApplication.instance()
    if app is not None:
        if _qt_words is None or _qt_words.app is not app:
            _qt_words = QtWords(app)
        _qt_words.use(code)
