"""The status bar: the settings' summary (or what is wrong with them), the arrays' shapes, the
timings, and notices that say what an action just did.

The three labels' widths follow the bar's width, never their texts: a label that grew or
shrank with its text would re-lay out the whole window on every slider move. Once laid out,
the labels a move rewrites (the summary, the time) are held at their sizes (`_hold`): a new
text in a label of free size asks the bar and the window for a new layout, however wide the
text, and the bar then repaints itself whole; in a held one it repaints the label alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QApplication, QLabel, QSizePolicy, QStatusBar, QWidget

from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import ElidedLabel, elide_words

NOTICE_MS = 15_000  # the longest a notice stays, if no edit comes first

# The width the shapes ask for at the least: their usual text.
USUAL_SHAPES = "X 6×3 → Q,K,V 2×6×2 → α 2×6×6 → out 6×2"
# The time's usual numbers: its least width is theirs, written in the current language.
USUAL_SECONDS = (0.0099, 0.0999)
_FREE = 16_777_215  # QWIDGETSIZE_MAX: no largest size
# Changes after which a held label's size may be wrong: its font, style or direction.
_RESIZING = (
    QEvent.Type.FontChange,
    QEvent.Type.StyleChange,
    QEvent.Type.LayoutDirectionChange,
)


def times_text(engine_seconds: float, drawn_seconds: float) -> str:
    """How long the engine took and how long drawing took, as the status bar writes it."""
    return _tr("engine {0:.1f} ms · drawn in {1:.1f} ms").format(
        engine_seconds * 1e3, drawn_seconds * 1e3
    )


class StatusLine(QObject):
    """The labels of the window's status bar and the notices written over them."""

    NOTICE_MS = NOTICE_MS

    def __init__(self, bar: QStatusBar) -> None:
        super().__init__(bar)
        self.bar = bar
        # The summary is cut between words, with "…" (whole in its tooltip): cut at its edge,
        # "seed 123" would read "seed 12".
        self.status_text = QLabel()
        self.status_text.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        text_size.follow_under_style_sheet(self.status_text)  # red when it says what is wrong
        self._summary = ""
        self._shapes = ""  # the shapes shown (`show_shapes`)
        self.status_text.installEventFilter(self)
        # Widths set by `size_labels`, from the bar's width: whole texts, or "…" and the whole
        # in a tooltip, never a number cut.
        self.shape_text = ElidedLabel(words=True)
        self.shape_text.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self.shape_text.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.time_text = ElidedLabel(mode=Qt.TextElideMode.ElideRight, words=True)
        self.time_text.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        self.time_text.installEventFilter(self)
        self._shapes_need = 0
        self._held: tuple[QWidget, ...] = ()
        self._picture: tuple[str, str, float, float] | None = None  # `show_picture`'s, waiting
        self._pictures = 0  # pictures whose status was shown
        bar.installEventFilter(self)
        self.size_labels()
        self.time_text.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        bar.addWidget(self.status_text, 1)
        bar.addPermanentWidget(self.shape_text)
        bar.addPermanentWidget(self.time_text)
        bar.messageChanged.connect(self._notice_changed)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Resize:
            if watched is self.status_text:
                self._elide_summary()
            elif watched is self.bar:
                self.size_labels()
        elif kind in _RESIZING:
            self._release()
        return super().eventFilter(watched, event)

    def show_picture(
        self,
        shapes: str,
        summary: str,
        engine_seconds: float,
        started: float,
        after_picture: Callable[[Callable[[], None]], None],
    ) -> None:
        """The shapes, summary and times of a picture being drawn, written once it is on
        screen (`after_picture`, the board's): the labels then take no paint pass before the
        matrices', and "drawn in" is the time from `started` (its result taken up, a
        `perf_counter` reading) to its pixels. A summary written meanwhile (what is wrong with
        a later edit) stands: this one is dropped."""
        self._picture = (shapes, summary, engine_seconds, started)
        after_picture(self._picture_shown)

    @property
    def waiting(self) -> bool:
        """Whether a picture's status waits for its picture to be on screen."""
        return self._picture is not None

    def _picture_shown(self) -> None:
        if not (shiboken6.isValid(self) and shiboken6.isValid(self.bar)) or self._picture is None:
            return  # the window closed (or was rebuilt in another language), or a later
            # summary stands
        shapes, summary, engine_seconds, started = self._picture
        self.show_shapes(shapes)
        self.show_times(engine_seconds, time.perf_counter() - started)
        self.show_summary(summary)
        self.settle()
        self._pictures += 1
        if self._pictures == 1:
            self.size_labels()  # for the first summary, not "Starting the engine…"

    def show_summary(self, text: str, error: bool = False) -> None:
        """The settings' summary, or (`error`, in red) why they cannot be computed."""
        self._picture = None  # written now, it wins over a picture's still waiting
        # Called on every move: only what changed is set (a style sheet, even the same one,
        # re-polishes the label).
        style = "color: #b00020;" if error else ""
        if error and self.bar.currentMessage():
            self.bar.clearMessage()  # a notice must not hide what went wrong
        if self._summary != text:
            self._summary = text
            self._elide_summary()
            self.status_text.setToolTip(text)
        if self.status_text.styleSheet() != style:
            self.status_text.setStyleSheet(style)

    def show_shapes(self, text: str) -> None:
        """The shapes, given more room when they need it (never less: see `size_labels`).
        The same shapes again (a seed or a value moved) are left as they are."""
        if text == self._shapes:
            return
        self._shapes = text
        self.shape_text.setText(text)
        need = self.shape_text.fontMetrics().horizontalAdvance(text) + 12
        if need > self._shapes_need:
            self.size_labels()

    def show_times(self, engine_seconds: float, drawn_seconds: float) -> None:
        """How long the engine took, and drawing its picture."""
        self.time_text.setText(times_text(engine_seconds, drawn_seconds))

    def settle(self) -> None:
        """Lay the bar out now, after its labels' new texts: a label's new text asks the bar
        for a new layout, and the bar repaints itself whole when it gets one. Left to the
        event loop, that came after the window's paint pass and cost a second pass over
        the bar on every move; laid out now, the bar is painted once, in the pass after the
        matrices' (`show_picture`)."""
        if self._held:
            return  # nothing to lay out: the labels keep their sizes
        QApplication.sendPostedEvents(self.bar, QEvent.Type.LayoutRequest.value)
        self._hold()

    def _hold(self) -> None:
        """Hold the summary and the time at the sizes the bar's layout gave them.

        Qt asks a widget's parent for a new layout when its text changes, unless the widget's
        least and largest sizes are one: held so, a move's new texts repaint the two labels
        and nothing else (unheld, the bar laid itself and the window out again and repainted
        the whole bar, its grip and the shapes, on every move). Released whenever their sizes
        may have to change (`_release`), and held again at the next move.
        """
        labels = (self.status_text, self.time_text)
        if not self.bar.isVisible() or any(
            label.testAttribute(Qt.WidgetAttribute.WA_PendingResizeEvent) for label in labels
        ):
            return  # not laid out yet
        for label in labels:
            label.setFixedSize(label.size())
        self._held = labels

    def _release(self) -> None:
        """Let the labels' sizes follow the bar's layout again (a new width of the bar, of the
        shapes, a new text size)."""
        held, self._held = self._held, ()
        for label in held:
            label.setMinimumSize(0, 0)
            label.setMaximumSize(_FREE, _FREE)

    def clear_notice(self) -> None:
        """Take away a notice (an edit came: it was about the state before)."""
        if self.bar.currentMessage():
            self.bar.clearMessage()

    def notify(self, text: str) -> None:
        """Say what an action just did (opened, saved, loaded an example) until the next edit,
        for at most `NOTICE_MS`, over the config summary that each new picture writes.

        The status bar clips a message at its first permanent label. A notice too long for the
        room before the shapes takes the shapes' room too while it shows (they come back when
        it goes); one longer still (a deep path) is cut in the middle,
        keeping its start and end, and is whole in the status bar's tooltip.
        """
        bar = self.bar
        shown = text
        if self.time_text.isVisible():
            # QStatusBar writes a message between 6 px from its start and 2 px before its first
            # visible permanent label (12 px from its end and 2 px after the label, right to
            # left). The shapes sit one layout spacing (6 px) inside the time, which stays put.
            time = self.time_text.geometry()
            if bar.isRightToLeft():
                room = bar.width() - 12 - (time.right() + 1 + 2)
            else:
                room = time.x() - 8
            beside_shapes = room - self.shape_text.width() - 6
            width = bar.fontMetrics().horizontalAdvance(text)
            self.shape_text.setVisible(width <= beside_shapes)
            if width <= beside_shapes:
                room = beside_shapes
            shown = bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, max(room, 0))
        bar.showMessage(shown, self.NOTICE_MS)
        bar.setToolTip(text if shown != text else "")
        # The bar hides the summary under a message only until something re-lays it out (a
        # new text size would draw the summary over the notice); hidden here, shown when it
        # goes.
        self.status_text.hide()

    def _notice_changed(self, message: str) -> None:
        if not message:  # the notice is gone: the summary, the shapes and a bar with no
            self.bar.setToolTip("")  # tooltip come back
            self.status_text.show()
            self.shape_text.show()

    def _elide_summary(self) -> None:
        label = self.status_text
        room = label.contentsRect().width() - 2 * label.margin() - 2
        shown = self._summary
        if not label.testAttribute(Qt.WidgetAttribute.WA_PendingResizeEvent):  # laid out
            shown = elide_words(self._summary, label.fontMetrics(), room)
        if shown != label.text():
            label.setText(shown)

    def size_labels(self) -> None:
        """Status labels whose widths follow the bar's width, not their texts (a label that
        followed its text would re-lay out the window on every move): the shapes ask for
        their text's width (grown, not shrunk, as it changes), the time for its usual text.
        Where the summary, the shapes and the time do not all fit, the time gets at most a
        fifth of the bar and the shapes at most what the summary leaves, at least 30 %: the
        summary keeps at least half. Each can be made as narrow as "…", so at a large text
        size the window still fits a 1024-pixel projector."""
        self._release()
        # The application's font, not the window's: at startup a remembered text size has
        # not reached the window yet (it comes in a posted event), and the labels would be
        # cut.
        metrics = QFontMetrics(QApplication.font())
        gap = 3 * metrics.averageCharWidth()
        bar = self.bar.width()
        shapes = max(
            metrics.horizontalAdvance(USUAL_SHAPES),
            metrics.horizontalAdvance(self.shape_text.full_text()),
        )
        self._shapes_need = shapes + gap
        usual_time = metrics.horizontalAdvance(times_text(*USUAL_SECONDS)) + gap
        summary = metrics.horizontalAdvance(self._summary) + gap
        time = usual_time
        shapes = self._shapes_need
        if summary + shapes + time > bar:  # not all three whole: the summary comes first
            time = min(usual_time, bar // 5)
            shapes = min(shapes, max(bar * 3 // 10, bar - summary - time))
        self.shape_text.set_hint_width(shapes)
        self.time_text.set_hint_width(time)
