"""Help → Lessons: the tutorials' sections, each with the numbers it prints, and a way into
the example that reproduces it.

A tree of tutorials and their sections on the left; on the right what the chosen section
prints, with the tutorial's own names for it, so the learner knows which numbers to look for
once the example is open. Open (Enter, a double-click) asks the window for the section's
example on the stage the section is about (`lessonChosen`) and steps aside: on a 1024 × 768
projector the window needs the whole screen. Help → Lessons again finds the dialog on the
section it was left on.
"""

from __future__ import annotations

import html
import math

from PySide6.QtCore import QEvent, QRect, Qt, Signal
from PySide6.QtGui import QFont, QShowEvent, QTextDocument
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPushButton,
    QSplitter,
    QStyle,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.engine import PRESETS, step_keys
from attn_explorer.text import i18n
from attn_explorer.text.examples import example_text
from attn_explorer.text.i18n import ngettext
from attn_explorer.text.lessons import (
    TUTORIALS,
    Printed,
    Section,
    Tutorial,
    exact_rows,
    rows,
    sections,
)
from attn_explorer.text.lessons import follows as find_follows
from attn_explorer.text.lessons import slips as find_slips
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.steps.stage_tabs import STAGE_LABEL

# Where an item of the tree points: (tutorial, section) indices; section -1 for a tutorial.
ROLE = Qt.ItemDataRole.UserRole
SLIP_COLOUR = "#b00020"
SLIP_STYLE = f"color: {SLIP_COLOUR}; text-decoration: underline;"
# The size the dialog opens at, within the screen: the tree's longest section titles and a
# 6 × 6 matrix of the numbers beside them, on a 1024 × 768 projector with room to spare.
OPEN_SIZE = (900, 600)
TREE_LEAST = 240  # the tree keeps room for a number and the start of its title


def section_label(section: Section) -> str:
    """How the tree names a section: its number, its title, which part of it."""
    text = _tr(section.title)
    if section.number:
        text = f"{section.number} {text}"
    if section.part:
        text = f"{text} — {_tr(section.part)}"
    return text


def matrix_text(cells: list[list[str]], marked: set[tuple[int, int]] = frozenset()) -> str:
    """Rows of numbers as PyTorch prints them, columns aligned, as HTML for a <pre>: the
    cells of `marked` stand out (a tutorial's slips)."""
    widths = [max(len(row[c]) for row in cells) for c in range(len(cells[0]))]
    lines = []
    for r, row in enumerate(cells):
        shown = []
        for c, cell in enumerate(row):
            text = html.escape(cell.rjust(widths[c]))
            if (r, c) in marked:
                text = f'<span style="{SLIP_STYLE}">{text}</span>'
            shown.append(text)
        lines.append("[" + ", ".join(shown) + "]")
    return "\n".join(lines)


class LessonsDialog(QDialog):
    """The tutorials' sections and their printed numbers; `lessonChosen(preset, stage)` asks
    for a section's example, `stage` a step-through stage key or None for the Matrices tab."""

    lessonChosen = Signal(str, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tree = QTreeWidget()
        self.tree.setColumnCount(1)
        self.tree.setHeaderHidden(True)
        self.tree.setUniformRowHeights(True)
        self.details = QTextBrowser()
        self.details.setOpenLinks(False)
        # The numbers read left to right in any language, as the matrices do.
        self.details.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.tree)
        self.splitter.addWidget(self.details)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 9)
        self.splitter.setStretchFactor(1, 11)
        self.buttons = QDialogButtonBox()
        self.open_button = QPushButton()
        self.open_button.setDefault(True)  # Enter in the tree opens the section chosen
        self.buttons.addButton(self.open_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.buttons.accepted.connect(self.open_chosen)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.splitter, 1)
        layout.addWidget(self.buttons)

        for t, tutorial in enumerate(TUTORIALS):
            top = QTreeWidgetItem()
            top.setData(0, ROLE, (t, -1))
            for s in range(len(tutorial.sections)):
                child = QTreeWidgetItem()
                child.setData(0, ROLE, (t, s))
                top.addChild(child)
            self.tree.addTopLevelItem(top)
            top.setExpanded(True)
        self.tree.currentItemChanged.connect(self._show_current)
        self.tree.itemDoubleClicked.connect(self._double_clicked)
        self._language = ""
        self._write()
        self.tree.setCurrentItem(self.tree.topLevelItem(0).child(0))
        self.tree.setFocus()
        self._size_to_screen()

    # ------------------------------------------------------------------ what is chosen
    def chosen(self) -> tuple[Tutorial, Section | None]:
        """The tutorial of the current item and its section (None on a tutorial's row)."""
        item = self.tree.currentItem() or self.tree.topLevelItem(0)
        t, s = item.data(0, ROLE)
        tutorial = TUTORIALS[t]
        return tutorial, (tutorial.sections[s] if s >= 0 else None)

    def item_for(self, number: str, part: str = "", tutorial: int = 0) -> QTreeWidgetItem:
        """The tree's row of section `number` (and `part`) of tutorial `tutorial`."""
        top = self.tree.topLevelItem(tutorial)
        for s, section in enumerate(TUTORIALS[tutorial].sections):
            if section.number == number and (not part or section.part == part):
                return top.child(s)
        raise KeyError(number)

    def choose(self, number: str, part: str = "", tutorial: int = 0) -> None:
        self.tree.setCurrentItem(self.item_for(number, part, tutorial))

    def open_chosen(self) -> None:
        """Ask the window for the chosen section's example, and step aside."""
        _tutorial, section = self.chosen()
        if section is None:
            return
        self.lessonChosen.emit(section.preset, section.stage)
        self.accept()

    def _double_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        if item.parent() is not None:  # a tutorial's row only folds and unfolds
            self.open_chosen()

    # ------------------------------------------------------------------ words
    def showEvent(self, event: QShowEvent) -> None:
        if self._language != i18n.language():  # the language changed while it was hidden
            self._write()
        super().showEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange and self._language != i18n.language():
            self._write()
        elif event.type() == QEvent.Type.FontChange:  # a new text size while it is open
            self._split(self.splitter.width())

    def _write(self) -> None:
        """Every word of the dialog in the current language."""
        self._language = i18n.language()
        self.setWindowTitle(_tr("Lessons"))
        self.open_button.setText(_tr("&Open"))
        self.open_button.setToolTip(
            _tr("Open the section's example in the window (Enter, or a double-click)")
        )
        self.tree.setToolTip(
            _tr("The tutorials and their sections that an example reproduces: ↑ ↓ to choose")
        )
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for t, tutorial in enumerate(TUTORIALS):
            top = self.tree.topLevelItem(t)
            top.setText(0, _tr(tutorial.title))
            top.setToolTip(0, _tr(tutorial.title))
            top.setFont(0, bold)
            for s, section in enumerate(tutorial.sections):
                child = top.child(s)
                child.setText(0, section_label(section))
                # Whole where the column cuts a long title, and what the section shows.
                child.setToolTip(0, section_label(section) + "\n\n" + _tr(section.note))
        self._show_current()

    def _show_current(self, *_args: object) -> None:
        tutorial, section = self.chosen()
        self.open_button.setEnabled(section is not None)
        if section is None:
            self.details.setHtml(self._tutorial_html(tutorial))
        else:
            self.details.setHtml(self._section_html(tutorial, section))

    def _tutorial_html(self, tutorial: Tutorial) -> str:
        items = "".join(f"<li>{html.escape(section_label(s))}</li>" for s in tutorial.sections)
        choose = _tr("Choose a section to see the numbers it prints, then Open.")
        return (
            f"<h3>{html.escape(_tr(tutorial.title))}</h3>"
            f"<p>{html.escape(choose)}</p><ul>{items}</ul>"
        )

    def _section_html(self, tutorial: Tutorial, section: Section) -> str:
        parts = [
            f"<h3>{html.escape(section_label(section))}</h3>",
            f'<p style="color: #555555;">{html.escape(_tr(tutorial.title))}</p>',
            f"<p>{html.escape(_tr(section.note))}</p>",
            f"<p><b>{self._opens(section)}</b></p>",
        ]
        if section.printed:
            heading = _tr("What the tutorial prints here")
            parts.append(f"<h4>{html.escape(heading)}</h4>")
            parts += [self._printed_html(printed) for printed in section.printed]
        else:
            none = _tr("The tutorial prints no numbers here.")
            parts.append(f"<p><i>{html.escape(none)}</i></p>")
        return "".join(parts)

    def _opens(self, section: Section) -> str:
        """Which example the section opens, and where: two lines, an example's title may
        have quotes of its own (“I am happy”)."""
        example = _tr("Example: {example}").format(example=example_text(section.preset).title)
        if section.stage is None:
            where = _tr("Opens on the Matrices tab.")
        else:
            number = step_keys(PRESETS[section.preset].config).index(section.stage) + 1
            where = _tr("Opens on the Step through tab, stage {number} “{stage}”.").format(
                number=number, stage=_tr(STAGE_LABEL[section.stage])
            )
        return f"{html.escape(example)}<br>{html.escape(where)}"

    def _printed_html(self, printed: Printed) -> str:
        head = f"<p><code>{html.escape(printed.code)}</code>: {html.escape(_tr(printed.what))}</p>"
        exact = f"<pre>{matrix_text(exact_rows(printed))}</pre>"
        if printed.written is None:
            return head + exact
        slips = find_slips(printed)
        written = [[str(cell) for cell in row] for row in rows(printed.written)]
        wrote = _tr("The tutorial writes:")
        computed = _tr("The exact values, as the window computes them:")
        parts = [
            head,
            f"<p>{html.escape(wrote)}</p>",
            f"<pre>{matrix_text(written, slips)}</pre>",
            f"<p>{html.escape(computed)}</p>",
            exact,
        ]
        if slips:
            said = ngettext(
                "{count} number written differs from the exact value at the tutorial's own "
                "precision (underlined).",
                "{count} numbers written differ from the exact values at the tutorial's own "
                "precision (underlined).",
                len(slips),
            ).format(count=len(slips))
            parts.append(f'<p style="color: {SLIP_COLOUR};">{html.escape(said)}</p>')
        follow = find_follows(printed)
        if follow:  # wrong, but done right from its own earlier numbers: "Check my numbers"
            said = ngettext(
                "{count} number differs from the exact value only because the tutorial's own "
                "earlier numbers did: it is done right from them.",
                "{count} numbers differ from the exact values only because the tutorial's own "
                "earlier numbers did: they are done right from them.",
                len(follow),
            ).format(count=len(follow))
            parts.append(f"<p>{html.escape(said)}</p>")
        return "".join(parts)

    # ------------------------------------------------------------------ size
    def _size_to_screen(self) -> None:
        screen = self.screen()
        self.fit_to(screen.availableGeometry() if screen else QRect(0, 0, 1024, 768))

    def fit_to(self, room: QRect) -> None:
        """Open at OPEN_SIZE, or smaller on a screen of `room` that leaves less."""
        width = min(OPEN_SIZE[0], room.width() - 40)
        height = min(OPEN_SIZE[1], room.height() - 80)
        self.resize(width, height)
        margins = self.layout().contentsMargins()
        self._split(width - margins.left() - margins.right())

    def _split(self, width: int) -> None:
        """Share the splitter's `width` out: the tree gets the larger share (its long titles
        are cut), unless the widest row of numbers needs more beside it: numbers are what
        the dialog is for, and a row that scrolls sideways hides its last columns (a 6 × 6
        matrix at 150 % text)."""
        width -= self.splitter.handleWidth()
        numbers = self._numbers_width()
        tree = max(min(width * 9 // 20, width - numbers), min(TREE_LEAST, width // 2))
        self.splitter.setSizes([tree, width - tree])

    def _numbers_width(self) -> int:
        """The width the details need for the longest row any section prints, unscrolled."""
        longest = max(
            (
                line
                for printed in (p for _t, s in sections() for p in s.printed)
                for line in matrix_text(exact_rows(printed)).splitlines()
            ),
            key=len,
        )
        document = QTextDocument()
        document.setDefaultFont(self.details.font())
        document.setHtml(f"<pre>{longest}</pre>")
        scroll = self.details.style().pixelMetric(
            QStyle.PixelMetric.PM_ScrollBarExtent, None, self.details
        )
        return math.ceil(document.size().width()) + 2 * self.details.frameWidth() + scroll + 2
