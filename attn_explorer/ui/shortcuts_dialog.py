"""Help > Keyboard Shortcuts: every key the window answers to, read from its actions.

The list is built from the live QActions (and the table's own keys), not written by hand, so
a shortcut that changes or a language that renames an action shows here as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.shortcut_rows import (  # noqa: F401 (read from here too)
    NAME,
    Section,
    action_rows,
    keys_text,
    menu_sections,
    name_for_shortcuts,
    plain,
    window_wide,
)


class ShortcutsDialog(QDialog):
    """A two-column list (what, keys) grouped by where the keys work."""

    def __init__(self, sections: Sequence[Section], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_tr("Keyboard Shortcuts"))
        self.tree = QTreeWidget()
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels([_tr("Action"), _tr("Keys")])
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionMode(QTreeWidget.SelectionMode.NoSelection)
        self.tree.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for title, rows in sections:
            top = QTreeWidgetItem([title])
            for text, keys in rows:
                child = QTreeWidgetItem([text, keys])
                child.setToolTip(0, text)  # read in full where a narrow screen cuts it
                top.addChild(child)
            self.tree.addTopLevelItem(top)
            top.setFirstColumnSpanned(True)  # a title belongs to no column: not cut by one
            top.setExpanded(True)
        # The keys always whole; what they do takes the rest, cut with "…" only when the
        # screen is too narrow for both (the keys are what the list is for).
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:
        """A new text size (View > Larger text while the list is open, or before it opens
        again): the columns and the dialog follow it, as they did the first size."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()

    def _fit(self) -> None:
        """As large as the list, so that nothing scrolls or is cut, within the screen."""
        tree = self.tree
        for i in range(tree.topLevelItemCount()):  # bold in the tree's font as it is now
            font = QFont(tree.font())
            font.setBold(True)
            tree.topLevelItem(i).setFont(0, font)
        tree.header().resizeSections()
        # Room between what and keys: without it "…the stages Space" reads as one phrase.
        gap = 4 * tree.fontMetrics().averageCharWidth()
        scroll = tree.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent, None, tree)
        keys = max(tree.sizeHintForColumn(1), tree.header().sectionSizeHint(1))
        width = tree.sizeHintForColumn(0) + gap + keys + scroll
        rows = sum(1 + tree.topLevelItem(i).childCount() for i in range(tree.topLevelItemCount()))
        row = max(tree.sizeHintForRow(0), 1)
        height = rows * row + tree.header().sizeHint().height()
        frame = 2 * tree.frameWidth()
        margins = self.layout().contentsMargins()
        spacing = self.layout().spacing()
        want_w = width + frame + margins.left() + margins.right()
        want_h = (
            height
            + frame
            + margins.top()
            + margins.bottom()
            + spacing
            + self.layout().itemAt(1).sizeHint().height()
        )
        room = self.screen().availableGeometry() if self.screen() else None
        if room is not None:
            want_w, want_h = min(want_w, room.width() - 40), min(want_h, room.height() - 80)
        self.resize(want_w, want_h)
        if room is not None and self.isVisible() and not room.contains(self.frameGeometry()):
            # Grown past the screen's edge: back onto it.
            outer = self.frameGeometry()
            self.move(
                max(room.left(), min(outer.left(), room.right() - outer.width())),
                max(room.top(), min(outer.top(), room.bottom() - outer.height())),
            )

    def rows(self) -> list[tuple[str, str, str]]:
        """(section, text, keys) as listed: what a reader of the dialog sees."""
        shown = []
        for i in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(i)
            for j in range(top.childCount()):
                child = top.child(j)
                shown.append((top.text(0), child.text(0), child.text(1)))
        return shown
