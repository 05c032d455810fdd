"""Edit → Check my numbers…: the learner types or pastes what they computed by hand, for one
array or several, and sees each cell's verdict in the grid and listed, the first real slip
first, with its exact value, its derivation and the likely slip.

Beside the window, not modal: the matrices stay in view while the numbers are compared.
What is typed is kept per array and head while the dialog lives (switching arrays, closing
and reopening it, a cell that is no number: nothing is lost). Every array with numbers is
checked together, in the computation's order, so a cell that only follows from an earlier
slip says so (`attn_explorer.engine.check`).
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.engine.check import CHECKABLE, CheckResult, Given, check
from attn_explorer.engine.trace import Trace
from attn_explorer.io.grid_input import InputError, grid_texts, parse_cell
from attn_explorer.text import check_words as words
from attn_explorer.text.i18n import ngettext
from attn_explorer.ui.check.grid import SYMBOLS, CheckGrid
from attn_explorer.ui.i18n import tr as _tr

CELL_ROLE = Qt.ItemDataRole.UserRole  # (array, row, col) of a listed cell
OPEN_SIZE = (760, 620)
MOST_LISTED = 200  # cells written out in the list; each is a derivation of several lines


class CheckDialog(QDialog):
    """`set_trace` gives it the computation on screen; `checked` carries each check's result
    (None when the numbers were cleared) for whatever draws it on the matrices."""

    checked = Signal(object)

    def __init__(self, trace: Trace | None, head: int = 0, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlag(Qt.WindowType.WindowContextHelpButtonHint, False)
        self.trace = trace
        self.head = head
        self.array = "weights"
        self.typed: dict[tuple[str, int], list[list[str]]] = {}
        self.result: CheckResult | None = None
        self.bad: dict[tuple[str, int, int], str] = {}

        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.array_box = QComboBox()
        self.array_label = QLabel()
        self.array_label.setBuddy(self.array_box)
        self.head_box = QComboBox()
        self.head_label = QLabel()
        self.head_label.setBuddy(self.head_box)
        self.grid = CheckGrid()
        self.grid.pasted.connect(self.paste_text)
        self.message = QLabel()
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #b00020;")
        self.listing = QListWidget()
        self.listing.setWordWrap(True)
        self.listing.setSpacing(3)
        self.listing.setAlternatingRowColors(True)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.listing.itemActivated.connect(self._go_to)
        self.listing.itemClicked.connect(self._go_to)
        self.paste_button = QPushButton()
        self.paste_button.clicked.connect(self._paste_clipboard)
        self.clear_button = QPushButton()
        self.clear_button.clicked.connect(self.clear)
        self.check_button = QPushButton()
        self.check_button.setDefault(True)
        self.check_button.clicked.connect(self.run_check)
        self.close_button = QPushButton()
        self.close_button.clicked.connect(self.close)

        choose = QHBoxLayout()
        choose.addWidget(self.array_label)
        choose.addWidget(self.array_box, 1)
        choose.addWidget(self.head_label)
        choose.addWidget(self.head_box)
        buttons = QHBoxLayout()
        for button in (self.paste_button, self.clear_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.check_button)
        buttons.addWidget(self.close_button)
        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.grid)
        top_layout.addWidget(self.legend)
        top_layout.addWidget(self.message)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(top)
        splitter.addWidget(self.listing)
        splitter.setStretchFactor(0, 2)
        splitter.setStretchFactor(1, 3)  # the sentences need the room more than a 6 × 6 grid
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addLayout(choose)
        layout.addWidget(splitter, 1)
        layout.addLayout(buttons)
        self.array_box.currentIndexChanged.connect(self._array_chosen)
        self.head_box.currentIndexChanged.connect(self._head_chosen)
        self.resize(*OPEN_SIZE)
        self.retranslate()

    # ------------------------------------------------------------------ words
    def retranslate(self) -> None:
        self.setWindowTitle(_tr("Check my numbers"))
        self.intro.setText(
            _tr(
                "Type or paste the numbers you computed by hand, some cells or all: a block "
                "from a spreadsheet or a printed tensor fills the grid. Blank cells are not "
                "checked. The arrays you fill are checked together, in the order of the "
                "computation, so a cell that only follows from an earlier slip says so."
            )
        )
        # What each symbol in the grid says, so that it reads without its colour.
        self.legend.setText(
            "   ".join(
                f"{SYMBOLS[verdict]} {words.verdict_name(verdict)}"
                for verdict in ("right", "follows", "wrong", "missing")
            )
            + "   ? "
            + _tr("not a number")
        )
        self.array_label.setText(_tr("&Array:"))
        self.head_label.setText(_tr("&Head:"))
        self.paste_button.setText(_tr("&Paste"))
        self.clear_button.setText(_tr("C&lear"))
        self.check_button.setText(_tr("&Check"))
        self.close_button.setText(_tr("Close"))
        self._fill_boxes()
        if self.result is not None:
            self.run_check()

    def _fill_boxes(self) -> None:
        trace = self.trace
        self.array_box.blockSignals(True)
        self.head_box.blockSignals(True)
        self.array_box.clear()
        self.head_box.clear()
        if trace is not None:
            for name in CHECKABLE:
                if name in trace:
                    self.array_box.addItem(words.array_name(trace.config, name), name)
            if self.array_box.findData(self.array) < 0:
                self.array = "weights"
            self.array_box.setCurrentIndex(max(self.array_box.findData(self.array), 0))
            for h in range(trace.heads):
                self.head_box.addItem(str(h + 1))
            self.head = min(self.head, trace.heads - 1)
            self.head_box.setCurrentIndex(self.head)
        many = trace is not None and trace.heads > 1
        self.head_box.setVisible(many)
        self.head_label.setVisible(many)
        self.array_box.blockSignals(False)
        self.head_box.blockSignals(False)
        self._show_grid()

    # ------------------------------------------------------------------ the grid
    def _key(self, name: str | None = None) -> tuple[str, int]:
        name = name or self.array
        per_head = self.trace is not None and self.trace.info(name).per_head
        return name, self.head if per_head else 0

    def _keep(self) -> None:
        if self.grid.rowCount():
            self.typed[self._key()] = self.grid.texts()

    def _show_grid(self) -> None:
        trace = self.trace
        self.grid.clearContents()
        if trace is None:
            self.grid.setRowCount(0)
            return
        info = trace.info(self.array)
        rows = trace.axis_labels(info.rows, _tr)
        self.grid.set_shape(rows, trace.axis_labels(info.cols, _tr))
        self.grid.set_texts(self.typed.get(self._key(), []))
        self._mark_grid()

    def _array_chosen(self, index: int) -> None:
        if index < 0:
            return
        self._keep()
        self.array = self.array_box.itemData(index)
        self._show_grid()

    def _head_chosen(self, index: int) -> None:
        if index < 0:
            return
        self._keep()
        self.head = index
        self._show_grid()
        if self.result is not None:
            self.run_check()

    def set_trace(self, trace: Trace | None, head: int | None = None) -> None:
        """The computation on screen changed: the grids follow its shapes, and a check shown
        is made again against it."""
        self._keep()
        self.trace = trace
        if head is not None:
            self.head = head
        shown, self.result = self.result, None  # its cells may lie outside the new arrays
        self._fill_boxes()
        if shown is not None:
            self.run_check()

    def follow(self, trace: Trace) -> None:
        """The window shows a new computation: followed while the dialog is open (it is
        brought up to date when opened again)."""
        if self.isVisible():
            self.set_trace(trace)  # on the head chosen here

    def follow_language(self, _code: str) -> None:
        self.retranslate()

    def paste_text(self, text: str) -> None:
        """A pasted block or printout, from the current cell (from the first, when it is the
        whole array); a first row or column of tokens is left out."""
        if self.trace is None:
            return
        labels = self.trace.axis_labels(self.trace.info(self.array).cols, _tr)
        try:
            cells = grid_texts(text, labels)
        except InputError as error:
            self.message.setText(str(error))
            return
        self.grid.paste_block(cells)
        self.message.clear()

    def _paste_clipboard(self) -> None:
        from PySide6.QtGui import QGuiApplication

        self.paste_text(QGuiApplication.clipboard().text())

    def clear(self) -> None:
        """Empty the array shown; its verdicts go with its numbers."""
        self.typed.pop(self._key(), None)
        self._show_grid()
        self.grid.set_texts([[""] * self.grid.columnCount() for _ in range(self.grid.rowCount())])
        if self.result is not None:
            self.run_check()

    # ------------------------------------------------------------------ the check
    def _given(self) -> dict[str, Given]:
        """Every array with numbers typed, for the head shown; a cell that is no number is
        kept in `bad` with what is wrong with it and left out."""
        self._keep()
        self.bad = {}
        given: dict[str, Given] = {}
        for name in CHECKABLE:
            if self.trace is None or name not in self.trace:
                continue
            texts = self.typed.get(self._key(name))
            if not texts or not any(cell.strip() for row in texts for cell in row):
                continue
            # As far as the array reaches now: tokens may have gone since it was typed.
            info = self.trace.info(name)
            n_rows, n_cols = self.trace.matrix(name, self.head if info.per_head else 0).shape
            texts = [(row + [""] * n_cols)[:n_cols] for row in texts[:n_rows]]
            texts += [[""] * n_cols for _ in range(n_rows - len(texts))]
            rows = []
            for r, row in enumerate(texts):
                cells = []
                for c, text in enumerate(row):
                    try:
                        cells.append(parse_cell(text))
                    except InputError as error:
                        self.bad[(name, r, c)] = str(error)
                        cells.append(None)
                rows.append(cells)
            given[name] = Given.from_rows(rows)
        return given

    def run_check(self) -> CheckResult | None:
        if self.trace is None:
            return None
        given = self._given()
        self.result = check(self.trace, given, self.head) if given else None
        self._mark_grid()
        self._list()
        self.checked.emit(self.result)
        return self.result

    def _mark_grid(self) -> None:
        self.grid.clear_marks()
        if self.trace is None:
            return
        if self.result is not None:
            trace, result = self.trace, self.result
            for cell in result.of(self.array):
                tip = partial(words.describe, trace, result, cell)
                self.grid.mark(cell.row, cell.col, cell.verdict, tip)
        for (name, r, c), reason in self.bad.items():
            if name == self.array and r < self.grid.rowCount() and c < self.grid.columnCount():
                self.grid.mark(r, c, "bad", partial(str, reason))

    def _list(self) -> None:
        self.listing.clear()
        trace, result = self.trace, self.result
        if self.bad:
            self.message.setText(
                ngettext(
                    "{count} cell is not a number: it is marked ? and left out of the check.",
                    "{count} cells are not numbers: they are marked ? and left out of the check.",
                    len(self.bad),
                ).format(count=len(self.bad))
            )
        else:
            self.message.clear()
        if trace is None or result is None:
            if not self.bad:
                self.listing.addItem(_tr("Type or paste some numbers, then Check."))
            return
        for line in (
            words.summary(result),
            words.first_slip(trace, result),
            *words.follow_rows(trace, result),
        ):
            self.listing.addItem(line)
        cells = words.listed(result)
        for cell in cells[:MOST_LISTED]:
            text = f"{SYMBOLS[cell.verdict]} {words.describe(trace, result, cell)}"
            item = QListWidgetItem(text)
            item.setData(CELL_ROLE, (cell.array, cell.row, cell.col))
            self.listing.addItem(item)
        if len(cells) > MOST_LISTED:  # a whole pasted 256 × 256 array: the first slips matter
            more = len(cells) - MOST_LISTED
            self.listing.addItem(
                ngettext(
                    "… and {count} more cell, marked in the grid.",
                    "… and {count} more cells, marked in the grid.",
                    more,
                ).format(count=more)
            )

    def _go_to(self, item: QListWidgetItem) -> None:
        where = item.data(CELL_ROLE)
        if not where:
            return
        name, row, col = where
        index = self.array_box.findData(name)
        if index >= 0:
            self.array_box.setCurrentIndex(index)
        self.grid.setCurrentCell(row, col)

    def choose_array(self, name: str) -> None:
        index = self.array_box.findData(name)
        if index >= 0:
            self.array_box.setCurrentIndex(index)
