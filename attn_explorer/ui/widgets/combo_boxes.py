"""Combo boxes: a list of labelled values, one that elides its words when narrow, one whose
items are commands, and the head chooser."""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFontMetricsF, QKeyEvent, QPaintEvent, QWheelEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.widgets.labels import elide_words


def choice_box(items: list[tuple[str, str]], shrink_to: int | None = None) -> QComboBox:
    """A combo box of (value, label) items, labels marked N_ and translated here.

    `shrink_to` characters: the box may be that narrow (its labels elided), see `shrinkable`.
    """
    box = QComboBox() if shrink_to is None else ElidingComboBox()
    for value, label in items:
        box.addItem(_tr(label), value)
    if shrink_to is not None:
        shrinkable(box, shrink_to)
    return box


class ElidingComboBox(QComboBox):
    """A combo box that, narrower than its text, writes whole words of it and "…" (the
    whole text is in its list), where the style would cut it at the edge, mid-word
    ("Scores fed to softmax ω̃ (no ma" in the scores' box at 1024 px).

    It asks for the width of its texts of now, renamed or translated since it was first shown
    ("Scores ω (not scaled)"). Not through Qt's `AdjustToContents`: that also resizes the box
    itself to its texts 20 ms after they change, over its neighbours in the row until the row
    is laid out again, some turns of the event loop later; the start's picture
    (`start_picture.py`), grabbed then, kept the boxes so, unframed and cut mid-word."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        items = self.model()
        for signal in (items.dataChanged, items.rowsInserted, items.rowsRemoved):
            signal.connect(self.updateGeometry)
        items.modelReset.connect(self.updateGeometry)

    def sizeHint(self) -> QSize:
        """The width of its widest text, counted as Qt counts it for `AdjustToContents`
        (under its default policy a box counts its hint once and keeps it)."""
        metrics = self.fontMetrics()
        texts = [self.itemText(index) for index in range(self.count())]
        widths = [metrics.boundingRect(text).width() for text in texts]
        width = max(widths, default=7 * metrics.horizontalAdvance("x"))
        height = max(math.ceil(QFontMetricsF(metrics).height()), 14) + 2
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        contents = QStyle.ContentsType.CT_ComboBox
        return self.style().sizeFromContents(contents, option, QSize(width, height), self)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self._elided(option)
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)

    def shown_text(self) -> str:
        """The text as painted."""
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        return self._elided(option)

    def _elided(self, option: QStyleOptionComboBox) -> str:
        if self.width() >= self.sizeHint().width():
            return option.currentText  # as wide as the style asks for it: whole
        field = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, self
        )
        # A bracket's words go together: "(no …" said nothing.
        joined = lambda m: m.group(0).replace(" ", "\u00a0")  # noqa: E731
        text = re.sub(r"\([^()]*\)", joined, option.currentText)
        shown = elide_words(text, self.fontMetrics(), field.width())
        return shown.replace("\u00a0", " ")


class CommandBox(QComboBox):
    """A combo box whose items are commands (load an example), not a value to set.

    A plain combo box runs an item on ↑/↓, on a letter and on a wheel tick over it, focused
    or not: a learner scrolling the controls or pressing ↓ to look would replace the whole
    session.
    Here those keys open the list, where ↑/↓ only move and Enter or a click runs the item; the
    wheel scrolls whatever holds the box.
    """

    _OPENERS = frozenset(
        (
            Qt.Key.Key_Up,
            Qt.Key.Key_Down,
            Qt.Key.Key_PageUp,
            Qt.Key.Key_PageDown,
            Qt.Key.Key_Home,
            Qt.Key.Key_End,
        )
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # a wheel tick does not focus it

    def keyPressEvent(self, event: QKeyEvent) -> None:
        mods = Qt.KeyboardModifier
        plain = not event.modifiers() & ~(mods.KeypadModifier | mods.ShiftModifier)
        text = event.text()
        if plain and (event.key() in self._OPENERS or (text and text.isprintable())):
            self.showPopup()
            return
        super().keyPressEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.ignore()


def shrinkable(box: QComboBox, chars: int) -> None:
    """Let a combo box of long labels be as narrow as `chars` characters (its label elided)
    where the window is narrow. Sized to their labels, a few boxes would make the window wider
    than a 1024-pixel projector."""
    # Its preferred width stays its longest label's (a wide window shows them whole); an
    # explicit minimum stands in for the minimum size hint, which is that same width.
    box.setMinimumWidth(chars * box.fontMetrics().averageCharWidth() + 32)


class HeadBox(QComboBox):
    """The head a view shows, chosen from a list: "1 of 2", "2 of 2".

    `head` is the head chosen, kept when a trace has fewer (head 4 shows as head 2 while
    there are two, and comes back when an undo restores four); the box shows the head drawn.
    Qt reports a pick twice (index changed, then activated, which also reports the head
    shown being picked again): `headChosen` fires once per new choice.
    """

    headChosen = Signal(int)

    def __init__(self, tip: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.head = 0
        self.setToolTip(tip)
        self.currentIndexChanged.connect(self._picked)
        self.activated.connect(self._picked)

    def show_heads(self, heads: int) -> None:
        """List `heads` heads, showing the chosen one (or the last), without a signal."""
        shown = min(max(self.head, 0), heads - 1)
        if self.count() != heads or shown != self.currentIndex():
            self.blockSignals(True)
            if self.count() != heads:
                self.clear()
                self.addItems([_tr("{0} of {1}").format(h + 1, heads) for h in range(heads)])
            self.setCurrentIndex(shown)
            self.blockSignals(False)
        self.setEnabled(heads > 1)

    def choose(self, head: int) -> None:
        """Choose a head the list has; one already shown is only recorded (nothing to draw)."""
        if not 0 <= head < self.count():
            return
        if head == self.currentIndex():
            self.head = head
        else:
            self.setCurrentIndex(head)  # reported by _picked

    def _picked(self, index: int) -> None:
        if index >= 0 and index != self.head:
            self.head = index
            self.headChosen.emit(index)
