"""What Help > Keyboard Shortcuts lists, read from the live QActions: their names, keys and
sections. Apart from the dialog (ui/shortcuts_dialog.py), so that the window, which names
some of its actions for the list as it builds them, does not make the dialog's Qt classes
(QDialog, QDialogButtonBox, QTreeWidget ...: 10-20 M instructions of PySide6's types and
enums) before its first paint.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

# A section of the list: its title and (what the key does, the keys) rows.
Section = tuple[str, list[tuple[str, str]]]


def plain(text: str) -> str:
    """A menu text as read aloud: no mnemonic ampersands ("&&" stays one "&")."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def keys_text(sequences: Iterable[QKeySequence]) -> str:
    """Keys as this platform writes them (Ctrl+Shift+S, ⌘⇧S on a Mac), alternatives by commas."""
    native = QKeySequence.SequenceFormat.NativeText
    return ", ".join(s.toString(native) for s in sequences if not s.isEmpty())


NAME = "shortcutName"  # the dynamic property naming an action whose text changes


def name_for_shortcuts(action: QAction, name: str) -> None:
    """Give the list a steady name for an action whose text changes (Undo reads "Undo Edit
    cell" while there is a cell edit to undo)."""
    action.setProperty(NAME, name)


def action_rows(actions: Iterable[QAction]) -> list[tuple[str, str]]:
    """(text, keys) of the actions that have a shortcut, in their order."""
    return [
        (a.property(NAME) or plain(a.text()), keys_text(a.shortcuts()))
        for a in actions
        if a.shortcuts()
    ]


def window_wide(action: QAction) -> bool:
    """Whether the action's keys work anywhere in the window (an Edit menu entry for the table
    works from the menu, but its keys only in the table: it is listed with the table)."""
    return action.shortcutContext() in (
        Qt.ShortcutContext.WindowShortcut,
        Qt.ShortcutContext.ApplicationShortcut,
    )


def menu_sections(menus: Iterable[QAction]) -> list[Section]:
    """One section per menu of a menu bar (its `actions()`), with the entries whose keys work
    anywhere in the window."""
    sections = []
    for entry in menus:
        menu = entry.menu()
        if menu is None:
            continue
        rows = action_rows(a for a in menu.actions() if window_wide(a))
        if rows:
            sections.append((plain(menu.title()), rows))
    return sections
