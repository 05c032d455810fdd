"""Worksheets on paper: each exercise's sheets (`text.worksheet.Sheet`) drawn into one PDF,
A4 or Letter, its answer key from a page of its own.

Drawn with QPainter on a QPdfWriter in the shipped DejaVu font (`fonts.figure_family`), so the
Vietnamese letters and the formulas' symbols print on any machine. The blocks flow down the
page and onto the next; a table never splits, and one that cannot fit a page (too many columns
across, too many rows down) is refused before anything is written, naming the array, never
drawn with its numbers cut at the margin. The file is painted in memory and written
atomically, as the figures are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPageLayout, QPageSize, QPainter, QPdfWriter

from attn_explorer.io import atomic
from attn_explorer.text.i18n import _
from attn_explorer.text.worksheet import Block, Line, Sheet, Table
from attn_explorer.ui.export.fonts import figure_family

PAPERS = {"a4": QPageSize.PageSizeId.A4, "letter": QPageSize.PageSizeId.Letter}
PAPER_NAMES = {"a4": "A4", "letter": "Letter"}
RESOLUTION = 600  # device units per inch: fine enough for hairlines and exact placement
MARGIN_MM = 15.0
GAP_MM = 2.0  # between blocks
# A grid to fill must take handwriting: 4 decimals and a sign, in a cell as wide and tall
# as these; a printed table's cells are as wide as their widest number.
WRITE_CELL_MM = (17.0, 8.0)
PRINTED_ROW_MM = 5.0
PAD_MM = 1.5
# (point size, bold) of each style of line; tables are drawn at TABLE_PT.
STYLES = {
    "title": (14.0, True),
    "heading": (11.5, True),
    "subheading": (9.5, True),
    "body": (9.5, False),
    "formula": (9.5, False),
    "worked": (8.0, False),
    "note": (8.5, False),
    "command": (8.5, True),
    "name": (10.0, False),
}
TABLE_PT = 8.5
FOOTER_PT = 7.5


class WorksheetTooLargeError(ValueError):
    """A table of the worksheet does not fit the page; the message names it and says why."""


def _mm(value: float) -> float:
    return value / 25.4 * RESOLUTION


@dataclass
class _Fonts:
    family: str

    def font(self, size: float, bold: bool = False) -> QFont:
        font = QFont(self.family)
        font.setPointSizeF(size)
        font.setBold(bold)
        return font


class _Layout:
    """Measures blocks on the writer and draws them page after page."""

    def __init__(self, writer: QPdfWriter, paper: str, family: str) -> None:
        self.writer = writer
        self.paper = paper
        self.fonts = _Fonts(family)
        rect = writer.pageLayout().paintRectPixels(RESOLUTION)
        self.width = rect.width() - 2 * _mm(MARGIN_MM)
        self.left = _mm(MARGIN_MM)
        self.top = _mm(MARGIN_MM)
        self.bottom = rect.height() - _mm(MARGIN_MM) - _mm(6)  # the footer's line below
        self.page_height = rect.height()
        self.painter: QPainter | None = None
        self.y = self.top
        self.footer = ""
        self.first_page = True

    def metrics(self, font: QFont) -> QFontMetricsF:
        return QFontMetricsF(font, self.writer)

    # ------------------------------------------------------------------ measuring
    def line_height(self, line: Line) -> float:
        size, bold = STYLES[line.style]
        font = self.fonts.font(size, bold)
        if line.style == "name":
            return self.metrics(font).height() * 2
        flags = int(Qt.TextFlag.TextWordWrap)
        box = self.metrics(font).boundingRect(QRectF(0, 0, self.width, 1e7), flags, line.text)
        return box.height()

    def table_geometry(self, table: Table) -> tuple[float, float, float, float]:
        """(label width, cell width, row height, total height) of `table`, or
        WorksheetTooLargeError where it cannot fit the page."""
        title_font = self.fonts.font(STYLES["subheading"][0], True)
        font = self.fonts.font(TABLE_PT)
        fm = self.metrics(font)
        pad = _mm(PAD_MM)
        label = max(fm.horizontalAdvance(t) for t in table.rows) + 2 * pad
        texts = list(table.cols)
        if table.cells is not None:
            texts += [c for row in table.cells for c in row]
        widest = max((fm.horizontalAdvance(t) for t in texts), default=0) + 2 * pad
        if table.blank:
            cell = max(widest, _mm(WRITE_CELL_MM[0]))
            row = _mm(WRITE_CELL_MM[1])
        else:
            cell = max(widest, _mm(11))
            row = max(_mm(PRINTED_ROW_MM), fm.height() + pad)
        columns = len(table.cols)
        if label + columns * cell > self.width:
            fitting = max(int((self.width - label) // cell), 0)
            raise WorksheetTooLargeError(
                _(
                    "{array} has {columns} columns: its grid does not fit across the page "
                    "({paper}), which takes {fitting}; use fewer tokens or a narrower head"
                ).format(
                    array=table.title,
                    columns=columns,
                    paper=PAPER_NAMES[self.paper],
                    fitting=fitting,
                )
            )
        title = self.metrics(title_font).height() + pad
        height = title + row * (len(table.rows) + 1)
        if height > self.bottom - self.top:
            raise WorksheetTooLargeError(
                _(
                    "{array} has {rows} rows: its grid does not fit down the page ({paper}); "
                    "use fewer tokens"
                ).format(array=table.title, rows=len(table.rows), paper=PAPER_NAMES[self.paper])
            )
        return label, cell, row, height

    def height(self, block: Block) -> float:
        if isinstance(block, Table):
            return self.table_geometry(block)[3]
        return self.line_height(block)

    # ------------------------------------------------------------------ drawing
    def new_page(self, footer: str) -> None:
        if self.painter is None:
            self.painter = QPainter()
            if not self.painter.begin(self.writer):
                raise OSError(_("the PDF writer could not start"))
        elif not self.first_page:
            self.writer.newPage()
        self.first_page = False
        self.y = self.top
        self.footer = footer
        self._draw_footer()

    def _draw_footer(self) -> None:
        painter = self.painter
        painter.setFont(self.fonts.font(FOOTER_PT))
        painter.setPen(QColor("#555555"))
        box = QRectF(self.left, self.bottom + _mm(2), self.width, _mm(6))
        painter.drawText(box, int(Qt.AlignmentFlag.AlignLeft), f"attn_explorer · {self.footer}")
        painter.setPen(QColor("black"))

    def place_all(self, blocks: Sequence[Block]) -> None:
        """Each block in turn; a heading is kept with the block it heads."""
        for index, block in enumerate(blocks):
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            heads = isinstance(block, Line) and block.style in ("heading", "subheading")
            self.place(block, following if heads else None)

    def place(self, block: Block, keep_with: Block | None = None) -> None:
        height = self.height(block)
        needed = height
        if keep_with is not None:
            needed += _mm(GAP_MM) + self.height(keep_with)
            if needed > self.bottom - self.top:  # the two never fit one page together
                needed = height
        if self.y + needed > self.bottom and self.y > self.top:
            self.new_page(self.footer)
        if isinstance(block, Table):
            self._draw_table(block)
        else:
            self._draw_line(block, height)
        self.y += height + _mm(GAP_MM)

    def _draw_line(self, line: Line, height: float) -> None:
        painter = self.painter
        size, bold = STYLES[line.style]
        painter.setFont(self.fonts.font(size, bold))
        box = QRectF(self.left, self.y, self.width, height)
        if line.style == "name":
            text_width = self.metrics(painter.font()).horizontalAdvance(line.text + " ")
            painter.drawText(box, int(Qt.AlignmentFlag.AlignLeft), line.text)
            base = self.y + self.metrics(painter.font()).height()
            painter.drawLine(
                int(self.left + text_width), int(base), int(self.left + self.width / 2), int(base)
            )
            return
        if line.style == "heading":
            painter.setPen(QColor("#1f4e79"))
        painter.drawText(box, int(Qt.TextFlag.TextWordWrap), line.text)
        painter.setPen(QColor("black"))

    def _draw_table(self, table: Table) -> None:
        painter = self.painter
        label, cell, row, _height = self.table_geometry(table)
        pad = _mm(PAD_MM)
        title_font = self.fonts.font(STYLES["subheading"][0], True)
        painter.setFont(title_font)
        title_height = self.metrics(title_font).height() + pad
        painter.drawText(
            QRectF(self.left, self.y, self.width, title_height),
            int(Qt.AlignmentFlag.AlignLeft),
            table.title,
        )
        top = self.y + title_height
        painter.setFont(self.fonts.font(TABLE_PT))
        right = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        centre = int(Qt.AlignmentFlag.AlignCenter)
        # Column labels, then each row: its label and its cells, left to right, so that the
        # PDF's text reads back row by row.
        for j, text in enumerate(table.cols):
            box = QRectF(self.left + label + j * cell, top, cell, row)
            painter.drawText(box.adjusted(pad, 0, -pad, 0), centre, text)
        grey = QColor("#999999")
        for i, text in enumerate(table.rows):
            y = top + (i + 1) * row
            painter.drawText(
                QRectF(self.left, y, label, row).adjusted(pad, 0, -pad, 0),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                text,
            )
            for j in range(len(table.cols)):
                box = QRectF(self.left + label + j * cell, y, cell, row)
                painter.setPen(grey)
                painter.drawRect(box)
                painter.setPen(QColor("black"))
                if table.cells is not None:
                    painter.drawText(box.adjusted(pad, 0, -pad, 0), right, table.cells[i][j])

    def finish(self) -> None:
        if self.painter is not None:
            self.painter.end()


def _writer(buffer: QBuffer, paper: str) -> QPdfWriter:
    writer = QPdfWriter(buffer)
    writer.setResolution(RESOLUTION)
    writer.setTitle(_("Attention worksheet"))
    writer.setCreator("attn_explorer")
    writer.setPageLayout(
        QPageLayout(
            QPageSize(PAPERS[paper]), QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)
        )
    )
    return writer


def check_fits(sheets: Sequence[Sheet], paper: str = "a4") -> None:
    """Raise WorksheetTooLargeError where a table of `sheets` cannot fit a `paper` page."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    layout = _Layout(_writer(buffer, paper), paper, figure_family())
    for sheet in sheets:
        for block in (*sheet.exercise, *sheet.key):
            layout.height(block)


def worksheet_pdf(sheets: Sequence[Sheet], paper: str = "a4") -> bytes:
    """The PDF of `sheets`, each exercise from a new page and its key from another."""
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    check_fits(sheets, paper)  # refused before a page is begun
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = _writer(buffer, paper)
    layout = _Layout(writer, paper, figure_family())
    try:
        for sheet in sheets:
            layout.new_page(sheet.footer)
            layout.place_all(sheet.exercise)
            layout.new_page(sheet.key_footer)
            layout.place_all(sheet.key)
    finally:
        layout.finish()
    del writer  # finishes the document in the buffer
    buffer.close()
    return bytes(data)


def write_worksheet(sheets: Sequence[Sheet], path: Path, paper: str = "a4") -> Path:
    """Write the worksheets' PDF to `path`, atomically; OSError says why it could not."""
    atomic.check_writable(path)
    return atomic.write_bytes(path, worksheet_pdf(sheets, paper))
