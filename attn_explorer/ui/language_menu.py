"""View → Language: the languages the app speaks, each named in itself, so a learner who
cannot read the current one still finds theirs."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu, QWidget

from attn_explorer.text import i18n
from attn_explorer.text.i18n import LANGUAGES
from attn_explorer.ui.i18n import tr as _tr


def language_menu(
    window: QWidget, view_menu: QMenu, choose: Callable[[str], None]
) -> dict[str, QAction]:
    """Add the Language submenu to `view_menu`; `choose(code)` is called with the language
    picked. Returns the actions by language code."""
    view_menu.addSeparator()
    menu = view_menu.addMenu(_tr("Lan&guage"))
    menu.setToolTipsVisible(True)
    group = QActionGroup(menu)
    group.setExclusive(True)
    actions = {}
    for code, name in LANGUAGES.items():
        action = QAction(name, window)
        action.setCheckable(True)
        action.setChecked(code == i18n.language())
        tip = _tr("Show every word of the window, its figures and exports in {0}")
        action.setStatusTip(tip.format(name))
        action.triggered.connect(lambda _checked=False, code=code: choose(code))
        group.addAction(action)
        menu.addAction(action)
        actions[code] = action
    return actions
