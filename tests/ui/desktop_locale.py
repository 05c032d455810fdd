"""A desktop whose language writes numbers otherwise: Qt's default locale for one test."""

import contextlib

from PySide6.QtCore import QLocale


@contextlib.contextmanager
def desktop_locale(name: str):
    """Qt's default locale (what a widget writes numbers in unless told) is `name`'s, as on a
    desktop set to that language; the one before comes back after."""
    before = QLocale()
    QLocale.setDefault(QLocale(name))
    try:
        yield
    finally:
        QLocale.setDefault(before)
