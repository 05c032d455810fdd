"""Labels that show a whole text or whole words of it and "…", never a text cut at an edge,
and the red message under a control."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget

from attn_explorer.ui.text_size import text_size


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


class ElidedLabel(QLabel):
    """A one-line label whose width is set from outside, not by its text, that shows its whole
    text or, where that is too wide, elides it with "…" (`mode`; by default its start and end
    stay), with the whole text in its tooltip (`tooltip`): never a text silently cut at one
    edge (a right-aligned text in a fixed width would lose its start, the shapes their "X").
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
    tabs (a reason the settings cannot be computed) would widen the window past a laptop's
    screen, squeeze the tabs to "S" and keep it that wide after the notice went. This label
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
