"""The banner beside the tabs, over the matrices, while the settings cannot be computed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTabWidget

from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import NoticeLabel


class StaleBanner(NoticeLabel):
    """What is drawn is the last picture that could be computed, and must not be read as the
    current one: the banner says so, and why.

    A corner widget of the tabs, not a row of its own: a container around the tabs stalls
    the event loop on the first moves after startup. It never pushes the tabs' names aside.
    """

    def __init__(self, tabs: QTabWidget) -> None:
        super().__init__(self._room)
        self.tabs = tabs
        self.setStyleSheet(
            "background: #fff4d6; color: #5c3d00; border: 1px solid #e0b64c; padding: 2px 6px;"
        )
        text_size.follow_under_style_sheet(self)
        self.hide()
        tabs.setCornerWidget(self, Qt.Corner.TopRightCorner)

    def _room(self) -> int:
        """The width beside the tabs' names."""
        return self.tabs.width() - self.tabs.tabBar().sizeHint().width() - 8

    def say(self, reason: str) -> None:
        """Show the banner with `reason` (a sentence in the window's language)."""
        text = _tr("These matrices are for the last settings that could be computed. {0}")
        self.setText(text.format(reason))
        # The full reason also as a tooltip: a long one may not fit beside the tabs.
        self.setToolTip(
            text.format(reason) + "\n" + _tr("Change the setting marked in red, or undo (Ctrl+Z).")
        )
        self.show()
