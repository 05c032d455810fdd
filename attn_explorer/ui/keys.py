"""Which keys a focused widget keeps and which go to the window's shortcuts.

Qt asks the focused widget first (a ShortcutOverride event): a widget that accepts it gets the
key as a key press, otherwise a shortcut of the window takes it. Two defaults are wrong here:

- a spin box claims Ctrl+Z for its own text even when it has nothing to undo (after Enter the
  value is the document's), so Edit > Undo would never run while a spin box has focus;
- the step-through's Space, ← and → shortcuts would take the keys from its own buttons and
  sliders: Space on "Next" would start Play, → on the k slider change the stage instead.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QWidget,
)


class _UndoToDocument(QObject):
    """On a spin box: Ctrl+Z / Ctrl+Shift+Z go to the window's undo unless the typed text
    itself has something to undo or redo."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        spin = watched if isinstance(watched, QAbstractSpinBox) else watched.parent()
        edit = spin.findChild(QLineEdit) if isinstance(spin, QAbstractSpinBox) else None
        if edit is None:
            return False
        if event.matches(QKeySequence.StandardKey.Undo) and not edit.isUndoAvailable():
            event.ignore()
            return True
        if event.matches(QKeySequence.StandardKey.Redo) and not edit.isRedoAvailable():
            event.ignore()
            return True
        return False


class _OwnKeys(QObject):
    """On buttons, sliders and combo boxes: Space presses a focused button or opens a focused
    box's list, arrows move a focused slider or a box's choice, before any shortcut of the
    window can take them."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() != QEvent.Type.ShortcutOverride or not isinstance(event, QKeyEvent):
            return False
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        key = event.key()
        keeps = (
            (isinstance(watched, QAbstractButton) and key == Qt.Key.Key_Space)
            or (
                isinstance(watched, QAbstractSlider)
                and key in (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Up, Qt.Key.Key_Down)
            )
            or (
                isinstance(watched, QComboBox)
                and key in (Qt.Key.Key_Space, Qt.Key.Key_Up, Qt.Key.Key_Down)
            )
        )
        if keeps:
            event.accept()  # delivered as a key press to the widget, not to a shortcut
        return keeps


_undo_to_document = _UndoToDocument()
_own_keys = _OwnKeys()


def send_undo_to_document(root: QWidget) -> None:
    """Every spin box under `root` lets Ctrl+Z / Ctrl+Shift+Z reach Edit > Undo / Redo."""
    for spin in root.findChildren(QAbstractSpinBox):
        spin.installEventFilter(_undo_to_document)
        for edit in spin.findChildren(QLineEdit):
            edit.installEventFilter(_undo_to_document)


def keep_own_keys(root: QWidget) -> None:
    """Buttons, sliders and combo boxes under `root` keep Space and the arrows when they have
    focus (the step-through's Space started Play from its head box)."""
    widgets = root.findChildren(QAbstractButton) + root.findChildren(QAbstractSlider)
    for widget in widgets + root.findChildren(QComboBox):
        widget.installEventFilter(_own_keys)


def commit_typed_edits(window: QWidget) -> None:
    """Take in what is typed in the window but not yet entered: a spin box's text, a table
    cell's open editor. Saving or closing reads the document, and a shortcut (Ctrl+S) does not
    move the focus: a typed seed would be left out of the file, and closing would lose it
    unasked.

    Both commit when they lose the focus, as they do when the user clicks elsewhere; the
    focus then goes back where it was (to the table, whose editor is gone).
    """
    focus = QApplication.focusWidget()
    if focus is None or not window.isAncestorOf(focus):
        return
    view = focus
    while view is not None and not isinstance(view, QAbstractItemView):
        view = view.parentWidget()
    editing = view is not None and view.state() == QAbstractItemView.State.EditingState
    if not editing and not isinstance(focus, QAbstractSpinBox | QLineEdit):
        return
    focus.clearFocus()
    (view if editing else focus).setFocus()
