"""The font every exported figure is drawn in: DejaVu Sans, shipped with the package.

A figure is a file that travels: drawn in the desktop's font, a Vietnamese title would show
empty boxes where that font lacks ặ or ự, and the same export would look different on every
machine. The shipped font (resources/fonts/, with its licence) has every Vietnamese letter
and every symbol the figures write; it is registered with Qt once, on first use.

The figure's items take their fonts from the application font as they are built (`QFont()`,
a text item's document) and the scene's as they are laid out, all over the heatmap and
step-through code: `figure_font()` sets the application font's family to the shipped one
while a figure is built and painted, and gives the window back its own after. The widgets
named by the caller (the window, the export dialog) do not repaint meanwhile, so the switch is
never seen: only they, not a sweep over every top-level widget, whose wrappers may outlive
widgets Qt has deleted (a figure's view, closed with deleteLater).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

FONTS = Path(__file__).resolve().parent.parent.parent / "resources" / "fonts"
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf")
FAMILY = "DejaVu Sans"

_registered: str | None = None
_depth = 0  # figure_font() inside figure_font(): one switch, undone by the outermost


def figure_family() -> str:
    """The family exported figures are drawn in, registered with Qt on the first call.

    Raises RuntimeError where the shipped files are missing or unreadable: an installation
    without them would export figures whose Vietnamese may not show.
    """
    global _registered
    if _registered is None:
        families: set[str] = set()
        for name in FONT_FILES:
            font_id = QFontDatabase.addApplicationFont(str(FONTS / name))
            if font_id < 0:
                raise RuntimeError(f"cannot load the figure font {FONTS / name}")
            families.update(QFontDatabase.applicationFontFamilies(font_id))
        if FAMILY not in families:
            raise RuntimeError(f"{FONTS} holds {sorted(families)}, not {FAMILY}")
        _registered = FAMILY
    return _registered


@contextmanager
def figure_font(still: Sequence[QWidget | None] = ()) -> Iterator[str]:
    """Build and paint figures in the shipped family (see the module's docstring), the
    widgets `still` not repainted meanwhile; yields the family. The size stays the
    application's, which the figures' sizes are made from."""
    global _depth
    family = figure_family()
    if _depth:
        _depth += 1
        try:
            yield family
        finally:
            _depth -= 1
        return
    window_font = QFont(QGuiApplication.font())
    font = QFont(window_font)
    font.setFamilies([family])
    frozen = [w for w in still if w is not None and isValid(w) and w.updatesEnabled()]
    for widget in frozen:
        widget.setUpdatesEnabled(False)
    QGuiApplication.setFont(font)
    _depth = 1
    try:
        yield family
    finally:
        _depth = 0
        QGuiApplication.setFont(window_font)
        for widget in frozen:
            if isValid(widget):
                widget.setUpdatesEnabled(True)
