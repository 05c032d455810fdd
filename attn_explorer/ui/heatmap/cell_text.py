"""The values written in a matrix's cells, and how each value is formatted.

The text is its own item, over the coloured cells, because it is laid out in device pixels
(legible at any zoom, vector text in SVG and PDF) while the cells scale with the view.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterator, Sequence

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QGlyphRun,
    QPaintEngine,
    QPainter,
    QPointFList,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsItem

from attn_explorer.text.numbers import num
from attn_explorer.ui.heatmap.glyphs import _glyphs_of

MAX_TEXT_CELLS = 32 * 32  # above this many cells, no values are written in them

# Texts of cells, or a function that makes them when they are first needed.
Texts = list[str] | Callable[[], list[str]]

# What every paint uses, made once: a QColor parsed and an enum member looked up on every
# paint of every view cost more than the comparisons they feed.
_LIGHT_INK, _DARK_INK = QColor("#111111"), QColor("#ffffff")
_RASTER = QPaintEngine.Type.Raster
_CENTRE = Qt.AlignmentFlag.AlignCenter
_UNIT = QRectF(0, 0, 1, 1)
_ORIGIN = QPointF(0, 0)

# Transforms under which a cell's centre is found by scaling and translating alone.
_SCALING = (
    QTransform.TransformationType.TxNone,
    QTransform.TransformationType.TxTranslate,
    QTransform.TransformationType.TxScale,
)


class CellTextItem(QGraphicsItem):
    """All cell values of a matrix, painted in one pass at a fixed screen size.

    Text is laid out in device pixels so it stays legible at any zoom and stays vector text in
    SVG/PDF exports. Two precisions are kept and the longest that fits the cell is used; when
    neither fits, nothing is written (big matrices).
    """

    def __init__(self, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self._rows = self._cols = 0
        self._bounds = QRectF()
        # The texts are written when first needed (see `set_cells_later`), then kept: the
        # finer precision, and the coarser (or what makes it) at their own first need.
        self._fine: list[str] = []
        self._coarse: Texts = []
        self._make: Callable[[], tuple[list[str], Texts]] | None = None
        self._has_texts = False
        # The glyph runs of the texts last drawn, their font and place, and the texts they
        # leave to drawText: kept for repaints only, so memory follows the cells on screen.
        self._runs: tuple | None = None
        self._placed: tuple[tuple, dict] = ((), {})  # see `_glyph_runs`
        self._longest: list[list[str] | None] = [None, None]  # by precision, see `_longest_of`
        self._dark: list[bool] = []
        # The glyph positions of the light and the dark values' runs (see `_filled`).
        self._positions = (QPointFList(), QPointFList())
        self.set_scale(1.0)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity, True)

    def set_scale(self, factor: float) -> None:
        """Values in 10 pt (8 pt when that does not fit) times the window's text size.

        Above the normal size, values that fit neither are written smaller, down to three
        quarters of the enlarged 8 pt (12 pt at 200 %, which still fits the scores on a
        1080p projector), but never below 10 pt, the largest size the normal size writes
        them in: a value is never written smaller than at 100 %. Four decimals come before
        two in every size (see `_choices`), so an enlarged text size never writes a value
        in fewer decimals than 100 % does.
        """
        self.font = QFont()
        self.font.setPointSizeF(10 * factor)
        self.small_font = QFont()
        self.small_font.setPointSizeF(8 * factor)
        sizes = [10 * factor, 8 * factor]
        if factor > 1:
            least = max(10.0, 6 * factor)
            sizes = sorted({p for p in (*sizes, least) if p >= least}, reverse=True)
        self._fonts = []
        for points in sizes:
            font = QFont()
            font.setPointSizeF(points)
            self._fonts.append(font)
        # Per font: its metrics, the least gap between neighbouring values (a space's width,
        # as between words, at least 3 px: any less and "0.2458 0.2559" on a pale row reads
        # as one number) and the least cell height.
        self._measures = []
        for font in self._fonts:
            metrics = QFontMetricsF(font)
            gap = max(3.0, metrics.horizontalAdvance(" "))
            self._measures.append((font, metrics, gap, metrics.height() * 0.9))
        self._least_height = min(measure[3] for measure in self._measures)
        self._font_keys = [font.key() for font in self._fonts]  # QFont.key() costs 20k
        self._measured: list[tuple[list[str], QFont, float, float]] = []
        self._runs = None
        self.update()

    def set_cells(self, fine: list[str], coarse: list[str], dark: np.ndarray, shape: tuple) -> None:
        """Row-major texts at two precisions, and which cells are dark (white text)."""
        self._set(lambda: (fine, coarse), bool(fine), dark, shape)

    def set_cells_later(
        self, make: Callable[[], tuple[list[str], Texts]], dark: np.ndarray, shape: tuple
    ) -> None:
        """As `set_cells`, the texts made by `make` when first needed: cells shorter than
        the smallest font's line write nothing, and a 64-token Q or context (1,024 cells
        3 px tall) would otherwise format 2,048 numbers on every move for no pixel. `make`
        may give the coarser texts as a function that makes them (`cell_strings` does):
        they are made only where the finer do not fit."""
        self._set(make, shape[0] * shape[1] > 0, dark, shape)

    def _set(self, make: Callable, has_texts: bool, dark: np.ndarray, shape: tuple) -> None:
        if shape != (self._rows, self._cols):  # a new shape: new bounds, for Qt to index
            self.prepareGeometryChange()
            self._rows, self._cols = shape
            self._bounds = QRectF(0, 0, self._cols, self._rows)
        self._make, self._has_texts = make, has_texts
        self._runs = None
        self._measured = []
        self._longest = [None, None]
        self._dark = dark.ravel().tolist()  # Python bools: indexed per cell on every paint
        self.update()

    @property
    def _texts(self) -> tuple[list[str], list[str]]:
        """The values at two precisions (made now if they were left for later)."""
        return self._precision(0), self._precision(1)

    def _precision(self, coarse: int) -> list[str]:
        """The finer (0) or the coarser (1) texts, made now if they were left for later."""
        if self._make is not None:
            self._fine, self._coarse = self._make()
            self._make = None
        if not coarse:
            return self._fine
        if callable(self._coarse):
            # Two decimals are written only where four do not fit (the board at 6 tokens,
            # 1500 × 940, writes four in every view), and a value formatted costs some
            # 1,000 instructions.
            self._coarse = self._coarse()
        return self._coarse

    def _longest_of(self, coarse: int) -> list[str]:
        """The longest few texts of a precision: measuring every text on every paint costs
        more than drawing them, and the longest decide whether a precision fits."""
        longest = self._longest[coarse]
        if longest is None:
            longest = self._longest[coarse] = sorted(set(self._precision(coarse)), key=len)[-3:]
        return longest

    def clear(self) -> None:
        self.set_cells([], [], np.zeros(0, bool), (0, 0))

    def boundingRect(self) -> QRectF:
        return self._bounds

    def _choices(self) -> Iterator[tuple[list[str], QFont, float, float]]:
        """In the order they are preferred, each way of writing the values: texts, font, and
        the least cell width and height it needs.

        Precision comes before size: a learner checks 0.2264 against the tutorial, so
        0.2264 in 8 pt is worth more than 0.23 in 10 pt. Each precision is tried in
        every size of `set_scale`, largest first: above the normal text size that includes
        the normal 10 pt, so four decimals that fit in 10 pt are not cut to two because the
        enlarged sizes do not fit. Measured once per set of values and sizes (a repaint on a
        hover measures nothing).
        """
        measured = self._measured
        ways = [(0, m) for m in self._measures] + [(1, m) for m in self._measures]
        for index, (coarse, (font, metrics, gap, height)) in enumerate(ways):
            if index == len(measured):  # (the coarser texts made at their first need)
                key = self._font_keys[index % len(self._font_keys)]
                widest = max(_width(key, metrics, t) for t in self._longest_of(coarse))
                measured.append((self._precision(coarse), font, widest + gap, height))
            yield measured[index]

    def written(self, cell: QRectF) -> tuple[list[str], QFont] | None:
        """The texts and the font the values are written in when a cell is `cell` in device
        pixels: the first way of `_choices` that fits; None when none does."""
        if not self._has_texts or cell.height() < self._least_height:
            return None
        for texts, font, width, height in self._choices():
            if width <= cell.width() and height <= cell.height():
                return texts, font
        return None

    def how_written(self, cell: QRectF) -> str:
        """How the values are written in cells `cell` big: "whole" (in their finer
        precision), "rounded" (two decimals, the finer did not fit), "hidden" (no way
        fits), or "" where there are no values to write (none set, or too many cells)."""
        if not self._has_texts:
            return ""
        chosen = self.written(cell)
        if chosen is None:
            return "hidden"
        fine = self._precision(0)
        return "whole" if chosen[0] is fine or chosen[0] == fine else "rounded"

    def widths_needed(self, height: float) -> tuple[float, float]:
        """For cells `height` tall: the least width in which values are written at all, and
        the least in which they are written as in a cell of any width; infinite for none.
        (The stage figure shares its room by these, on every redraw.)"""
        if not self._has_texts or height < self._least_height:
            return math.inf, math.inf
        fitting = [width for _, _, width, least in self._choices() if least <= height]
        if not fitting:
            return math.inf, math.inf
        return min(fitting), fitting[0]

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        transform = painter.transform()
        chosen = self.written(transform.mapRect(_UNIT))
        if chosen is None:
            return
        texts, font = chosen
        painter.save()
        painter.resetTransform()
        painter.setFont(font)
        light, dark = _LIGHT_INK, _DARK_INK
        left: Sequence[int] = range(len(texts))
        if (
            widget is not None
            and painter.paintEngine().type() == _RASTER
            and transform.type() in _SCALING
        ):
            # On screen: the values as glyph runs, one per ink, kept for repaints; cheaper
            # than a drawText per cell (the text of all seven views is redrawn on every
            # move).
            # Exported figures (no widget) keep drawText: real text in SVG/PDF, the file's
            # own DPI.
            left = self._draw_glyph_runs(painter, font, texts, transform, light, dark)
        cols = self._cols
        flags = _CENTRE
        for index in left:  # exports, and characters the font lacks
            text = texts[index]
            if text:
                painter.setPen(dark if self._dark[index] else light)
                painter.drawText(
                    transform.mapRect(QRectF(index % cols, index // cols, 1, 1)), flags, text
                )
        painter.restore()

    def _draw_glyph_runs(
        self,
        painter: QPainter,
        font: QFont,
        texts: list[str],
        transform: QTransform,
        light: QColor,
        dark: QColor,
    ) -> list[int]:
        """Draw the texts whose characters the font has, centred in their cells (a scaling
        `transform` maps cells to device pixels); return the indexes of the others.

        All the values of one ink go out as one glyph run: each glyph is where a run per
        value drawn at its cell's centre would put it (the same sums, centre + offset), at
        a fraction of the cost. The runs are kept for repaints (a hover, the other views'
        pass) of the same values at the same place."""
        place = (transform.m11(), transform.m22(), transform.dx(), transform.dy())
        cached = self._runs
        if cached is not None and cached[0] is texts and cached[1] == font and cached[2] == place:
            runs, left_over = cached[3], cached[4]
        else:
            runs, left_over = self._glyph_runs(font, texts, place)
            self._runs = (texts, QFont(font), place, runs, left_over)
        for colour, run in zip((light, dark), runs, strict=True):
            if run is not None:
                painter.setPen(colour)
                painter.drawGlyphRun(_ORIGIN, run)
        return left_over

    def _glyph_runs(
        self, font: QFont, texts: list[str], place: tuple[float, float, float, float]
    ) -> tuple[tuple[QGlyphRun | None, QGlyphRun | None], list[int]]:
        """The runs of the light and of the dark cells' values, and the indexes of the
        values the font cannot write."""
        glyphs = _glyphs_of(font)
        sx, sy, dx, dy = place
        baseline, cols, dark = glyphs.baseline, self._cols, self._dark
        # The glyph positions of a cell, by its index and its text's shape: a new value in
        # the same cell has the same shape nearly always ("0.1234", "0.5678"). Kept while
        # the cells stay in place, as the bytes of their x and y (see `_filled`).
        key = (place, baseline, cols)
        if self._placed[0] != key or len(self._placed[1]) > 4 * MAX_TEXT_CELLS:
            self._placed = (key, {})
        placed = self._placed[1]
        inked: tuple[list[str], list[str]] = ([], [])
        positions: tuple[list[bytes], list[bytes]] = ([], [])
        left_over = []
        for index, (text, shape) in enumerate(zip(texts, glyphs.shapes(texts), strict=True)):
            if not text:
                continue
            points = placed.get((index, shape))
            if points is None:
                shape, offsets = glyphs.offsets(text, shape)
                if offsets is None:
                    left_over.append(index)
                    continue
                row, col = divmod(index, cols)
                x = sx * (col + 0.5) + dx
                y = sy * (row + 0.5) + dy + baseline
                xy = [coordinate for offset in offsets for coordinate in (x + offset, y)]
                points = placed[index, shape] = array("d", xy).tobytes()
            ink = dark[index]
            inked[ink].append(text)
            positions[ink].append(points)
        runs = []
        for ink in (0, 1):
            run = None
            if inked[ink]:
                run = QGlyphRun()
                run.setRawFont(glyphs.raw)
                run.setGlyphIndexes(glyphs.indexes("".join(inked[ink])))
                run.setPositions(_filled(self._positions[ink], b"".join(positions[ink])))
            runs.append(run)
        return (runs[0], runs[1]), left_over


def _filled(pool: QPointFList, packed: bytes) -> QPointFList:
    """`pool`, holding the points whose x and y are the doubles of `packed`.

    They are copied into the list's own memory: a Python list of QPointFs is converted
    point by point on its way to Qt (some 550 instructions a point, and a seed move at 6
    tokens draws some 800 glyphs). The list changes length by the few points that differ
    from its last use; a glyph run given it shares its memory, which Qt copies before the
    next write (`data()` detaches a shared list)."""
    size, count = len(pool), len(packed) // _POINT_BYTES
    for _ in range(size, count):
        pool.append(_ORIGIN)
    for _ in range(count, size):
        pool.pop_back()
    memory = pool.data()
    memory[:] = packed
    return pool


_POINT_BYTES = 2 * array("d").itemsize
_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")
_widths: dict[tuple[str, str], float] = {}  # by font and text with its digits as zeros
_tabular: dict[str, bool] = {}  # by font: its digits measure alike, beside anything


def _width(key: str, metrics: QFontMetricsF, text: str) -> float:
    """`metrics.horizontalAdvance(text)`, measured once per shape of text: new values come
    with every move, but in a font whose digits are all as wide, beside each other and beside
    the other characters of a value, "0.1234" and "0.5678" measure alike (Qt shapes the text
    for each measure, 14 µs at 8 pt). `key`: the font's `QFont.key()`."""
    tabular = _tabular.get(key)
    if tabular is None:
        digits, others = "0123456789", ".-−e+ "
        width = metrics.horizontalAdvance("0")
        pairs = [a + b for a in digits for b in digits + others] + [
            b + a for a in digits for b in others
        ]
        tabular = _tabular[key] = all(
            metrics.horizontalAdvance(d) == width for d in digits
        ) and all(
            metrics.horizontalAdvance(pair)
            == metrics.horizontalAdvance(pair.translate(_DIGITS_AS_ZERO))
            for pair in pairs
        )
    if not tabular:
        return metrics.horizontalAdvance(text)
    shape = (key, text.translate(_DIGITS_AS_ZERO))
    width = _widths.get(shape)
    if width is None:
        if len(_widths) > 4096:
            _widths.clear()
        width = _widths[shape] = metrics.horizontalAdvance(shape[1])
    return width


def cell_strings(
    matrix: np.ndarray, kind: str, hidden: np.ndarray | None, blank: str
) -> tuple[list[str], Callable[[], list[str]]]:
    """The values of `matrix` as written in its cells, in the finer way, and a function that
    writes them in the coarser (called only where the finer do not fit): 0 and 1 for masks,
    `blank` in hidden cells."""
    flat = matrix.ravel()
    where = [] if hidden is None else np.flatnonzero(hidden.ravel()).tolist()
    if kind in ("mask", "keep"):
        fine = ["1" if v else "0" for v in flat.tolist()]
        _blank(fine, where, blank)
        return fine, lambda: fine
    numbers, size, usual = _numbers(flat)
    fine = _fine_texts(numbers, size, usual)
    _blank(fine, where, blank)

    def coarse() -> list[str]:
        texts = _coarse_texts(numbers, usual)
        _blank(texts, where, blank)
        return texts

    return fine, coarse


def _blank(texts: list[str], where: list[int], blank: str) -> None:
    for i in where:
        texts[i] = blank


def _cell_texts(values: np.ndarray) -> tuple[list[str], list[str]]:
    """Each value as `_fine` and as `_coarse` write it."""
    numbers, size, usual = _numbers(values)
    return _fine_texts(numbers, size, usual), _coarse_texts(numbers, usual)


def _numbers(values: np.ndarray) -> tuple[list[float], np.ndarray, bool]:
    """`values` as Python floats, their sizes, and whether the matrix is the usual one
    (every value finite and below 1000 in size), which is written in one format a
    precision: half the cost of deciding value by value on every move."""
    size = np.abs(values)
    usual = bool(values.size) and bool(np.isfinite(values).all()) and bool(size.max() < 1000)
    return values.tolist(), size, usual


def _formatted(form: str, numbers: list[float]) -> list[str]:
    """Each of `numbers` in the %-format `form` (one that writes no line break), in one
    formatting of them all: a sixth fewer instructions than an f-string each."""
    return ("\n".join([form] * len(numbers)) % tuple(numbers)).split("\n")


def _fine_texts(numbers: list[float], size: np.ndarray, usual: bool) -> list[str]:
    """`numbers` as `_fine` writes them (`size`, `usual`: see `_numbers`). In the usual
    matrix only the values under 1e-4 (a few in a random Q, written "6e-05") are decided
    one by one."""
    if not usual:
        return [_fine(v) for v in numbers]
    fine = _formatted("%.4f", numbers)
    for i in np.flatnonzero((size < 1e-4) & (size != 0)).tolist():
        fine[i] = _fine(numbers[i])
    return fine


def _coarse_texts(numbers: list[float], usual: bool) -> list[str]:
    """`numbers` as `_coarse` writes them (`usual`: see `_numbers`)."""
    return _formatted("%.2f", numbers) if usual else [_coarse(v) for v in numbers]


def _fine(value: float) -> str:
    """As `num` writes it, but a value under 1e-4 in one significant digit ("6e-05"): as
    `num` writes it ("6.038e-05") it would be the widest text of its matrix, and a matrix
    is written in the precision its widest text fits, so one tiny weight of a saturated
    softmax would cut all the others to two decimals. The hover still gives all four
    digits."""
    text = num(value)
    return f"{value:.0e}" if "e-" in text else text


def _coarse(value: float) -> str:
    if not math.isfinite(value):
        return num(value)
    if abs(value) >= 1000:
        return f"{value:.1e}"
    return f"{value:.2f}"
