"""The quiet line under the board's matrices that says what they leave out."""

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPalette, QResizeEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from attn_explorer.ui.widgets import ElidedLabel


class NoticeLine(ElidedLabel):
    """One line of quiet text that keeps its height when empty (see MatrixBoard), cut at
    a word where it does not fit, whole in its tooltip."""

    def __init__(self) -> None:
        super().__init__(mode=Qt.TextElideMode.ElideRight, words=True)
        self.setContentsMargins(6, 1, 6, 1)
        quiet = self.palette()
        quiet.setColor(QPalette.ColorRole.WindowText, "#555555")
        self.setPalette(quiet)
        self.set_hint_width(0)  # never widens the window: as wide as the board gives
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        margins = self.contentsMargins()
        return QSize(0, self.fontMetrics().height() + margins.top() + margins.bottom())

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def say(self, text: str) -> None:
        """Write `text` (nothing: an empty line). Its tooltip is set only where it is cut:
        the notice may change on a slider move, which must touch no tooltip."""
        if text != self.full_text():
            self.setText(text)


class NoticePlace(QWidget):
    """Where a `NoticeLine` sits in the board's layout: a widget with no layout of its own,
    the line its only child, as big as it is.

    A label's new text asks its parent's layout for a new layout, even where its size
    cannot change (QLabel::setText); in the board's layout that went on up to the window,
    and the tab widget on the way repainted its whole page (every control and the hover
    help) each time the notice changed on a move. Here it stops: the place has no layout
    to ask. Its size hints are the line's, and a new text size re-lays it out as any
    widget (its font changes too)."""

    def __init__(self, line: NoticeLine) -> None:
        super().__init__()
        self.line = line
        line.setParent(self)
        self.setSizePolicy(line.sizePolicy())

    def sizeHint(self) -> QSize:
        return self.line.sizeHint()

    def minimumSizeHint(self) -> QSize:
        return self.line.minimumSizeHint()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.line.setGeometry(self.rect())
