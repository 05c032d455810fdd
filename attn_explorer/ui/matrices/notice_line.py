"""The quiet line under the board's matrices that says what they leave out."""

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QSizePolicy

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
