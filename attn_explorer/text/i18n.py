"""The language every word is written in, Qt-free, so the window, the command line, the exported
figures, data and scripts all speak the same one.

Words are looked up in gettext catalogues: stdlib `gettext` reads them, and Poedit, Lokalize or
Weblate edit them without touching the code. The sources are the `.po` files under
`attn_explorer/translations/<language>/`, one per package; they are compiled into one
`LC_MESSAGES/attn_explorer.mo` that ships with the package (docs/translating.md).

Marking, as gettext tools expect it (`python -m attn_explorer.text.catalogues update` finds
these calls):
- `_("Scores of {query}").format(query=...)`: translated now. The placeholders are named or
  numbered so a translation may put them in another order. An f-string cannot be translated:
  translate the template, then format it.
- `N_("causal mask")`: marked only, for tables built at import time; translate with `_()` where
  the word is shown, so a table never holds the language of the moment it was imported.
- `pgettext("context", "head")` where one English word needs two translations.

English is the source language and needs no catalogue.
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Callable
from pathlib import Path

DOMAIN = "attn_explorer"
TRANSLATIONS = Path(__file__).resolve().parent.parent / "translations"

# The languages a user can choose, each named in its own language (as a menu of languages
# should: a learner who cannot read the current one still finds theirs).
LANGUAGES: dict[str, str] = {"en": "English", "vi": "Tiếng Việt"}
SOURCE_LANGUAGE = "en"

_translations: gettext.NullTranslations = gettext.NullTranslations()
_language = SOURCE_LANGUAGE
_listeners: list[Callable[[str], None]] = []


def _(message: str) -> str:
    """`message` in the current language (itself where no translation exists)."""
    return _translations.gettext(message)


def N_(message: str) -> str:
    """Mark `message` for the catalogue without translating it now."""
    return message


def pgettext(context: str, message: str) -> str:
    """`message` in the current language, where `context` tells two meanings apart."""
    return _translations.pgettext(context, message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form for `n` in the current language (Vietnamese has one form, English two)."""
    return _translations.ngettext(singular, plural, n)


def language() -> str:
    """The code of the current language: "en" or "vi"."""
    return _language


def catalogue(code: str, folder: Path = TRANSLATIONS) -> gettext.NullTranslations:
    """The compiled catalogue of language `code`; English (the source) has an empty one."""
    if code == SOURCE_LANGUAGE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, localedir=str(folder), languages=[code])


def set_language(code: str) -> None:
    """Speak `code` from now on. Raises ValueError for a language with no catalogue."""
    if code not in LANGUAGES:
        raise ValueError(f"unknown language {code!r}; choose one of {', '.join(LANGUAGES)}")
    use_translations(catalogue(code), code)


def use_translations(translations: gettext.NullTranslations, code: str) -> None:
    """Speak through `translations` (a test's pseudo-translation, a catalogue being edited)."""
    global _translations, _language
    _translations = translations
    _language = code
    for listener in list(_listeners):
        listener(code)


def on_language_changed(listener: Callable[[str], None]) -> None:
    """Call `listener(code)` after every change of language."""
    _listeners.append(listener)


def system_language(environ: dict[str, str] | None = None) -> str:
    """The language the system asks for, as gettext reads it (LANGUAGE, LC_ALL, LC_MESSAGES,
    LANG), among the ones we have; English otherwise. The window asks Qt instead, which also
    knows the desktop's setting."""
    env = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if not value:
            continue
        for wanted in value.split(":"):
            code = wanted.split("_")[0].split(".")[0].lower()
            if code in LANGUAGES:
                return code
        if value not in ("C", "POSIX", "C.UTF-8"):
            return SOURCE_LANGUAGE
    return SOURCE_LANGUAGE
