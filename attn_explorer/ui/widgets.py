"""Small reusable widgets."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt, Signal
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QKeyEvent,
    QPaintEvent,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QSpinBox,
    QStyle,
    QStyleOptionComboBox,
    QStylePainter,
    QWidget,
)

from attn_explorer.ui.editing.range_spin import RangeDoubleSpinBox, RangeSpinBox
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.text_size import text_size


def choice_box(items: list[tuple[str, str]], shrink_to: int | None = None) -> QComboBox:
    """A combo box of (value, label) items, labels marked QT_TR_NOOP and translated here.

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
    whole text is in its list): the style cut it at the edge, and at 1024 px the scores'
    box read "Scores fed to softmax ω̃ (no ma"."""

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
    or not: a learner scrolling the controls or pressing ↓ to look replaced the whole session.
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
    where the window is narrow. Sized to their labels, a few boxes made the window wider
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


class SliderSpin(QWidget):
    """A slider paired with a spin box: drag, or type an exact value.

    Both edit one value; `valueChanged` fires once per change, whichever half made it. A
    float pair snaps to `step`; `log=True` spaces the slider logarithmically (temperature).
    """

    valueChanged = Signal(object)  # int for integer pairs, float otherwise

    def __init__(
        self,
        minimum: float,
        maximum: float,
        *,
        step: float = 1,
        decimals: int = 0,
        log: bool = False,
        what: str | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """`what` names the value in a sentence ("the number of heads"): a number typed
        outside the range is then kept until Enter and refused in words (`spin.refused`),
        where a plain box cut "100" heads to 10 and "-1" to 1 without a word."""
        super().__init__(parent)
        self._min, self._max, self._step, self._log = minimum, maximum, step, log
        self._is_int = decimals == 0 and not log and float(step).is_integer()
        self.slider = QSlider(Qt.Orientation.Horizontal)
        if self._is_int:
            self.spin: QSpinBox | QDoubleSpinBox = (
                QSpinBox() if what is None else RangeSpinBox(what)
            )
            self.spin.setRange(int(minimum), int(maximum))
            self.spin.setSingleStep(int(step))
        else:
            self.spin = QDoubleSpinBox() if what is None else RangeDoubleSpinBox(what)
            self.spin.setDecimals(decimals)
            self.spin.setRange(minimum, maximum)
            self.spin.setSingleStep(step)
        self.spin.setKeyboardTracking(False)
        self.spin.setAccelerated(True)
        self.spin.setMinimumWidth(74)
        self.spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        self.slider.setRange(0, self._ticks())
        self.slider.setPageStep(max(1, self._ticks() // 10))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)
        self.setFocusProxy(self.spin)

    def _ticks(self) -> int:
        if self._log:
            return 200
        return round((self._max - self._min) / self._step)

    def _to_tick(self, value: float) -> int:
        if self._log:
            span = math.log10(self._max) - math.log10(self._min)
            return round((math.log10(value) - math.log10(self._min)) / span * 200)
        return round((value - self._min) / self._step)

    def _from_tick(self, tick: int) -> float:
        if self._log:
            span = math.log10(self._max) - math.log10(self._min)
            value = 10 ** (math.log10(self._min) + tick / 200 * span)
            return round(value, self.spin.decimals())
        return self._min + tick * self._step

    def value(self) -> int | float:
        return self.spin.value()

    def setValue(self, value: float) -> None:
        """Show `value` without emitting valueChanged (for syncing from the document)."""
        if self.spin.value() == value and self.spin.cleanText() == self.spin.textFromValue(value):
            return  # re-setting repaints the box for nothing, on every control change
        # (A value typed and not entered leaves value() as it was: the box is set again, or
        # a file opened over "42" typed would still show 42 beside the file's 123.)
        self.spin.blockSignals(True)
        self.slider.blockSignals(True)
        self.spin.setValue(value)
        self.slider.setValue(self._to_tick(min(max(value, self._min), self._max)))
        self.spin.blockSignals(False)
        self.slider.blockSignals(False)

    def _from_slider(self, tick: int) -> None:
        value = self._from_tick(tick)
        value = round(value) if self._is_int else round(value, self.spin.decimals())
        self.spin.blockSignals(True)
        self.spin.setValue(value)
        self.spin.blockSignals(False)
        self.valueChanged.emit(self.spin.value())

    def _from_spin(self, value: float) -> None:
        self.slider.blockSignals(True)
        self.slider.setValue(self._to_tick(value))
        self.slider.blockSignals(False)
        self.valueChanged.emit(value)


class ErrorLabel(QLabel):
    """A red, word-wrapped message shown under the control it is about."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet("color: #b00020;")
        text_size.follow_under_style_sheet(self)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hide()

    def show_message(self, text: str) -> None:
        if text != self.text():
            self.setText(text)
        if self.isVisibleTo(self.parentWidget()) != bool(text):
            self.setVisible(bool(text))


ELLIPSIS = "…"
_SEPARATORS = ("·", "→", ",", ";", ":", "|", "-", "—", "–")


def elide_words(
    text: str,
    metrics: QFontMetrics,
    width: int,
    mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
) -> str:
    """`text` whole if it fits `width` pixels, else whole words of it and "…" where the others
    were (at its end, or in its middle): never a word cut, so a number never reads as another
    ("seed 12" for seed 123). A separator left beside the "…" goes with the words it joined.
    """
    if metrics.horizontalAdvance(text) <= width:
        return text
    words = text.split(" ")

    def joined(head: list[str], tail: list[str]) -> str:
        while head and head[-1] in _SEPARATORS:
            head = head[:-1]
        while tail and tail[0] in _SEPARATORS:
            tail = tail[1:]
        return " ".join([*head, ELLIPSIS, *tail])

    fits = lambda candidate: metrics.horizontalAdvance(candidate) <= width  # noqa: E731
    if mode != Qt.TextElideMode.ElideMiddle:
        for count in range(len(words) - 1, 0, -1):
            candidate = joined(words[:count], [])
            if fits(candidate):
                return candidate
        return ELLIPSIS
    # The middle: words from the start and the end in turn, while they fit.
    head, tail = 1, 0
    if not fits(joined(words[:1], [])):
        return ELLIPSIS
    grew = True
    while grew and head + tail < len(words) - 1:
        grew = False
        for more_head, more_tail in ((1, 0), (0, 1)) if head <= tail else ((0, 1), (1, 0)):
            h, t = head + more_head, tail + more_tail
            if h + t < len(words) and fits(joined(words[:h], words[len(words) - t :] if t else [])):
                head, tail, grew = h, t, True
                break
    return joined(words[:head], words[len(words) - tail :] if tail else [])


class ShrinkButton(QPushButton):
    """A push button that shows its whole text where it has the room, and a short one (a
    symbol, a word) where the window is narrow: its least width is the short text's, so
    a row of buttons at a large text size does not make the window wider than the screen.
    The whole text stays in the tooltip's first line."""

    def __init__(self, text: str, short: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self._texts = (text, short)
        # (A push button's usual policy never gives it less than its whole text; one wider
        # than its whole text would show its short one with room to spare.)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)

    def set_texts(self, text: str, short: str) -> None:
        self._texts = (text, short)
        self._fit()
        self.updateGeometry()

    def _width_for(self, text: str) -> int:
        extra = QPushButton.sizeHint(self).width() - self.fontMetrics().horizontalAdvance(
            self.text()
        )
        return self.fontMetrics().horizontalAdvance(text) + extra

    def sizeHint(self) -> QSize:
        return QSize(self._width_for(self._texts[0]), QPushButton.sizeHint(self).height())

    def minimumSizeHint(self) -> QSize:
        return QSize(self._width_for(self._texts[1]), QPushButton.sizeHint(self).height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit()

    def _fit(self) -> None:
        text, short = self._texts
        shown = text if self._width_for(text) <= self.width() else short
        if shown != self.text():
            self.setText(shown)


class ElidedLabel(QLabel):
    """A one-line label whose width is set from outside, not by its text, that shows its whole
    text or, where that is too wide, elides it with "…" (`mode`; by default its start and end
    stay), with the whole text in its tooltip (`tooltip`): never a text silently cut at one
    edge (the right-aligned shapes in the status bar lost their leading "X" to a fixed width).
    """

    def __init__(
        self,
        parent: QWidget | None = None,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideMiddle,
        tooltip: bool = True,
        words: bool = False,
    ) -> None:
        """`words`: cut between words only (`elide_words`), never inside a number."""
        super().__init__(parent)
        self._full = ""
        self._mode = mode
        self._tooltip = tooltip
        self._words = words
        self._hint_width: int | None = None

    def set_hint_width(self, width: int | None) -> None:
        """Ask the layout for `width` pixels whatever the text, and let it give as little as
        an ellipsis (None: a QLabel's own hints, which follow the text)."""
        if width != self._hint_width:
            self._hint_width = width
            self.updateGeometry()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if self._hint_width is None:
            return hint
        return QSize(self._hint_width, hint.height())

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        if self._hint_width is None:
            return hint
        least = self.fontMetrics().horizontalAdvance(ELLIPSIS) + 2 * self.margin() + 4
        return QSize(least, hint.height())

    def setText(self, text: str) -> None:
        self._full = text
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:  # a new text size
            self._elide()
            self.updateGeometry()

    def _elide(self) -> None:
        room = max(self.contentsRect().width() - 2 * self.margin(), 0)
        if self._words:
            shown = elide_words(self._full, self.fontMetrics(), room, self._mode)
        else:
            shown = self.fontMetrics().elidedText(self._full, self._mode, room)
        if shown != self.text():
            super().setText(shown)
        if self._tooltip:
            tip = self._full if shown != self._full else ""
            if tip != self.toolTip():
                self.setToolTip(tip)


class NoticeLabel(ElidedLabel):
    """A one-line notice that takes the room `room()` says it has, and elides the rest.

    A plain QLabel asks for its whole text as its least width: a long notice beside the
    tabs (a reason the settings cannot be computed) widened the window past a laptop's
    screen, squeezed the tabs to "S" and stayed that wide after the notice went. This label
    never asks for more than `room()`, can be made as narrow as its ellipsis, and keeps the
    whole text in `full_text()` (its owner writes the tooltip).
    """

    def __init__(self, room: Callable[[], int], parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.TextElideMode.ElideRight, tooltip=False)
        self._room = room

    def setText(self, text: str) -> None:
        super().setText(text)
        self.updateGeometry()

    def _extra_width(self) -> int:
        """Border, padding and margins around the text (from the style sheet)."""
        shown = QLabel.sizeHint(self).width()
        return max(0, shown - self.fontMetrics().horizontalAdvance(self.text()))

    def sizeHint(self) -> QSize:
        hint = QLabel.sizeHint(self)
        whole = self.fontMetrics().horizontalAdvance(self.full_text()) + self._extra_width()
        return QSize(max(self.minimumSizeHint().width(), min(whole, self._room())), hint.height())

    def minimumSizeHint(self) -> QSize:
        least = self.fontMetrics().horizontalAdvance("…") + self._extra_width()
        return QSize(least, QLabel.minimumSizeHint(self).height())


def formula_font(point_size: float = 10.5) -> QFont:
    """The font formulas and their numbers are written in: the application's own.

    Not a monospace font: the notation puts a combining tilde on ω (ω̃, the scaled scores),
    and DejaVu Sans Mono, the usual monospace font on Linux, draws that tilde over the next
    character instead ("ω[̃2,1]"); the default monospace font of other systems may lack ω
    altogether, and a fallback font for ω cannot carry another font's tilde. Interface
    fonts place combining marks, and their digits share one width, so a number's width
    does not jump as its digits change under the mouse.
    """
    font = QFont(QApplication.font())
    font.setPointSizeF(point_size)
    return font


class FormulaText(QScrollArea):
    """A panel of formulas with a fixed height of `lines` lines; longer text scrolls.

    Fixed, because the text changes on every hover: a panel that grew with it would shrink
    the matrices above it and move the cell under the mouse.
    """

    def __init__(
        self, text: str = "", lines: int = 4, parent: QWidget | None = None, least: int = 0
    ) -> None:
        """`least` lines (if fewer than `lines`): where `fit_to` says room is short."""
        super().__init__(parent)
        self.label = QLabel(text)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.label.setStyleSheet("background: #fafafa; padding: 4px;")
        self.setWidget(self.label)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setStyleSheet("QScrollArea { background: #fafafa; border-top: 1px solid #ddd; }")
        self._lines = self._most = lines
        self._least = min(least, lines) if least else lines
        self._heights: dict[tuple[str, int], int] = {}
        self._size_to_text()
        text_size.changed.connect(self._size_to_text)

    def _height_for(self, lines: int) -> int:
        """As tall as the label is with `lines` lines, its padding included (a sum guessed
        from the line spacing left the last line half under a scroll bar)."""
        key = (self.label.font().key(), lines)
        if key not in self._heights:
            text = self.label.text()
            self.label.setText("\n".join(["Xg"] * lines))
            self._heights[key] = self.label.sizeHint().height() + 2 * self.frameWidth()
            self.label.setText(text)
        return self._heights[key]

    def _size_to_text(self) -> None:
        self.label.setFont(formula_font(text_size.points(10.5)))
        self.setFixedHeight(self._height_for(self._lines))

    def fit_to(self, room: int) -> None:
        """As many lines as fit `room` pixels, from `least` to `lines`. Called when the
        window is resized or the text size changes, never on a new text."""
        lines = self._most
        while lines > self._least and self._height_for(lines) > room:
            lines -= 1
        if lines != self._lines:
            self._lines = lines
            self._size_to_text()

    def text(self) -> str:
        return self.label.text()

    def setText(self, text: str) -> None:
        if text != self.label.text():
            self.label.setText(text)
            self.verticalScrollBar().setValue(0)
