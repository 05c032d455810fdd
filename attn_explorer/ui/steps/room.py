"""How the step-through shares its height: the stage's matrices first, then what matters
less gives way in order (the panel under the stage, the worked lines' box, the lesson), and
a note under the stage says what went where (as the Matrices tab's notice line does)."""

from __future__ import annotations

import math

from attn_explorer.ui.steps.left_out import left_out_text
from attn_explorer.ui.steps.lesson_label import LessonLabel
from attn_explorer.ui.text_size import text_size
from attn_explorer.ui.widgets import FormulaText
from attn_explorer.ui.widgets.labels import elide_words

FIGURE_MIN_HEIGHT = 200  # the stage figure's view, at the least
EXTRAS_MAX_HEIGHT = 330  # the softmax and mask panels under a stage's matrices
# A row of a stage's matrices at 100 % text, before the panel under them gives way: six
# tokens' values, their labels and a title (times the text size).
MATRIX_ROW_MIN_HEIGHT = 150


class WorkedLinesBox(FormulaText):
    """The followed query's header and up to four lines (q, k, v and a sum with biases),
    down to one line that scrolls, or none, where the stage's matrices need the height."""

    def __init__(self) -> None:
        self.gone = False  # left out: not even one line has room
        super().__init__(lines=5, least=1)

    @property
    def most_lines(self) -> int:
        return self._most

    def height_for_lines(self, lines: int) -> int:
        return self._height_for(lines)

    def fit_to(self, room: int) -> None:
        """As many lines as fit `room`; hidden where not even one does."""
        self.gone = room < self._height_for(1)
        self.setVisible(not self.gone)
        super().fit_to(room)

    def shortened(self) -> bool:
        """Whether it shows fewer lines than its most (the rest scroll), or none."""
        return self._lines < self._most or self.gone


class StageRoom:
    """The step-through's sharing of its height (a mixin of StepThrough, whose widgets it
    sizes: `figure`, `followed`, `extras`, `extras_left_out`, `lesson`)."""

    def figure_need(self) -> float:
        """The least height of the stage figure's view: its title, formula and reason, and
        MATRIX_ROW_MIN_HEIGHT per row of matrices, both in the window's text size."""
        rows = self.figure.panel_rows * MATRIX_ROW_MIN_HEIGHT * text_size.factor
        margins = 12  # the figure's own
        need = max(self.figure.header_height() + rows + margins, self.figure.least_height())
        return max(FIGURE_MIN_HEIGHT, need)

    def _fit_extras(self) -> None:
        """The stage's matrices come first. The panel below them (softmax bars, the mask
        methods) gets at most a third of the height (330 px in a tall window) and never less
        than it needs; where that would leave the matrices less than `figure_need` it is
        left out, and the note under the stage says so. Then the worked lines' box gives up
        lines (down to one, which scrolls) where its five would leave the matrices less than
        their need: at 200 % text on a 1024 × 768 projector its 192 px were the matrices'
        values. The note is written whole where that leaves the matrices their need, else
        on one line cut at a word (whole in its tooltip), and the lesson takes what is left.
        The figure's need grows with its header and the text size: a fixed height for it
        would leave the matrices strips without numbers at a large text size in a small
        window.
        Decided on screen only: a page laid out before the window has its size would grow
        the window past a small screen."""
        spacing = max(self.layout().spacing(), 6)
        need = self.extras.currentWidget().minimumSizeHint().height()
        room = self.height() - (
            self.stages.sizeHint().height()
            + self.prev_button.sizeHint().height()
            + math.ceil(self.figure_need())
            + 4 * spacing
        )  # what the worked lines, the panel, the note and the lesson may share
        wanted = self.extras.currentIndex() != 0 and self.isVisible()
        most = self.followed.height_for_lines(self.followed.most_lines)
        panel_out = wanted and room - most < need
        panel = need if wanted and not panel_out else 0
        softmax = (self.extras.currentWidget() is self._softmax_panel) if panel_out else None
        note = self.extras_left_out
        # A line for the note wherever something goes (the panel, or lines of the box).
        line = _one_line_height(note) + spacing
        self.followed.fit_to(room - panel)
        if panel_out or self.followed.shortened():
            self.followed.fit_to(room - line - panel)
        else:
            line = 0
        room -= (0 if self.followed.gone else self.followed.height()) + panel
        text = left_out_text(softmax, self.followed.shortened(), self.followed.gone)
        # The note keeps at least its one line: what went must be said.
        room -= _fit_whole_or_one_line(note, text, max(room, line), spacing, self.isVisible())
        # The lesson takes what the panel leaves (all of it where the panel is left out).
        room -= _fit_whole_or_one_line(self.lesson, self._lesson_text, room, spacing)
        cap = min(EXTRAS_MAX_HEIGHT, self.height() // 3, room + panel)
        self.extras.setMaximumHeight(max(need, cap, 0))
        self.extras.setVisible(wanted and not panel_out)


def _one_line_height(label: LessonLabel) -> int:
    return label.fontMetrics().height() + 8 + 2  # (the style's padding, a frame's pixels)


def _fit_whole_or_one_line(
    label: LessonLabel, text: str, room: float, spacing: int, shown: bool = True
) -> int:
    """Write `text` in `label` whole where `room` has space for it, else on one line cut at
    a word with "…" (whole in its tooltip), else not at all: the matrices come first. The
    height it takes, with the spacing."""
    if not text or not shown:
        label.hide()
        return 0
    width = max(label.parentWidget().width() if label.parentWidget() else label.width(), 1)
    label.setWordWrap(True)
    label.setText(text)
    whole = label.wrapped_height(width)
    if whole + spacing <= room:
        label.setToolTip("")
        label.fit_height(whole)
        label.show()
        return whole + spacing
    inner = width - 8 - 2 - max(label.indent(), 0)  # the padding, a pixel of slack each side
    cut = elide_words(text, label.fontMetrics(), inner)
    label.setWordWrap(False)
    label.setText(cut)
    label.setToolTip(text if cut != text else "")
    one_line = label.wrapped_height(width)
    label.fit_height(one_line)
    line = one_line + spacing
    label.setVisible(line <= room)
    return line if line <= room else 0
