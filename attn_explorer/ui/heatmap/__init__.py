"""A labelled matrix heatmap: image, token tick labels, colour bar, cell values, hatched masks.

`MatrixPlot` is a graphics item (not a widget), so the same object draws on screen, inside the
step-through and into exported SVG/PDF/PNG figures: exported figures are the screen's own
drawing code. Everything heavy is created once; `set_matrix` updates in place and only re-sets
tick labels when the labels changed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QT_TR_NOOP, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QGlyphRun,
    QImage,
    QKeyEvent,
    QLinearGradient,
    QPaintEngine,
    QPainter,
    QPen,
    QRawFont,
    QTextCursor,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsView,
    QGraphicsWidget,
    QSizePolicy,
)

from attn_explorer.engine.config import FLOAT32_MAX
from attn_explorer.text.explain import label_token, num
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.text_size import text_size

# ColorBrewer RdBu (reversed: negative blue, positive red) and Blues: print and project well,
# and stay readable for the common colour-vision deficiencies.
SIGNED_CMAP = pg.ColorMap(
    np.linspace(0, 1, 7),
    ["#2166ac", "#67a9cf", "#d1e5f0", "#f7f7f7", "#fddbc7", "#ef8a62", "#b2182b"],
    name="diverging",
)
WEIGHTS_CMAP = pg.ColorMap(
    np.linspace(0, 1, 5), ["#f7fbff", "#c6dbef", "#6baed6", "#2171b5", "#08306b"], name="weights"
)
MASK_CMAP = pg.ColorMap([0, 1], ["#f7f7f7", "#969696"], name="mask")
KEEP_CMAP = pg.ColorMap([0, 1], ["#737373", "#f7f7f7"], name="keep")
CMAPS = {"signed": SIGNED_CMAP, "weights": WEIGHTS_CMAP, "mask": MASK_CMAP, "keep": KEEP_CMAP}

# Colour-bar ends of the 0/1 arrays, translated where a colour bar writes them.
CATEGORY_LABELS = {
    "mask": (QT_TR_NOOP("0 visible"), QT_TR_NOOP("1 hidden")),
    "keep": (QT_TR_NOOP("0 dropped"), QT_TR_NOOP("1 kept")),
}

HIGHLIGHT = QColor("#ff8c00")
MAX_TEXT_CELLS = 32 * 32  # above this many cells, no values are written in them
LABEL_PX = 15  # minimum pixels per tick label before labels are thinned out


def display_token(token: str, limit: int = 14) -> str:
    """A token as a tick label: control characters made visible, names longer than `limit`
    characters shortened."""
    shown = label_token(token)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


NICE_STEPS = (1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0)


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 (× a power of 10) not below `value`.

    Colour scales end on round numbers, so a slider move that changes the data a little
    leaves the scale (and the colour bar's ticks) as they were: steadier for the eye, and
    the bar need not be redrawn.
    """
    if not value > 0 or not math.isfinite(value):
        return 1.0
    power = 10.0 ** math.floor(math.log10(value))
    return next(step * power for step in NICE_STEPS if step * power >= value * (1 - 1e-9))


def levels_for(kind: str, values: np.ndarray) -> tuple[float, float]:
    """Colour levels: symmetric around 0 for signed values, 0..top for weights, 0..1 for masks.

    `values` may hold NaN (masked cells), never infinities.
    """
    if kind in ("mask", "keep"):
        return 0.0, 1.0
    if kind == "weights":
        # The 99.5th percentile, not the maximum: one weight of 1.0 (the first row of a causal
        # mask) would otherwise wash out every other cell of a long sequence. Below 200 values
        # there is no 0.5 % to leave out: the percentile falls between the two largest, and the
        # largest (a weight doubled by dropout, 1.03) was drawn beyond the bar's end.
        sample = values.ravel()[:: max(1, values.size // 65536)]  # a percentile of ≤ 64k values
        finite = sample[~np.isnan(sample)]
        if finite.size >= 200:
            top = _percentile(finite, 99.5)
        else:
            top = float(finite.max()) if finite.size else 1.0
        return 0.0, min(nice_ceiling(top), 1.0) if top <= 1 else nice_ceiling(top)
    biggest = float(np.fmax.reduce(np.abs(values), axis=None)) if values.size else 1.0
    if math.isnan(biggest):  # every cell masked
        biggest = 1.0
    top = nice_ceiling(biggest)
    return -top, top


def _percentile(values: np.ndarray, q: float) -> float:
    """`np.percentile(values, q)` (linear interpolation) from one partial sort: numpy's own
    costs ten times more on the few dozen weights of a small matrix, on every move."""
    position = (values.size - 1) * q / 100
    below = math.floor(position)
    above = min(below + 1, values.size - 1)
    part = np.partition(values, (below, above))
    low, high = float(part[below]), float(part[above])
    return low + (high - low) * (position - below)


DISPLAY_MAX = 512  # cells per side drawn; a 1024-token matrix is pooled 2 × 2 for the screen


def _same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    if a is None or b is None:
        return a is b
    return a is b or (a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b))


def display_grid(values: np.ndarray, kind: str, limit: int = DISPLAY_MAX) -> np.ndarray:
    """The matrix at screen resolution: blocks of cells pooled when it has more than `limit`
    rows or columns (a view is a few hundred pixels tall anyway).

    Weights and masks keep each block's largest value, so one strong attention weight still
    shows; signed values take the block mean. A block with a masked (NaN) cell is masked.
    """
    rows, cols = values.shape
    fr, fc = math.ceil(rows / limit), math.ceil(cols / limit)
    if fr == fc == 1:
        return values
    pad_rows, pad_cols = -rows % fr, -cols % fc
    padded = (
        np.pad(values, ((0, pad_rows), (0, pad_cols)), mode="edge")
        if pad_rows or pad_cols
        else values
    )
    # Strided slices combined pairwise: twenty times faster than reducing a 4-D reshape.
    slices = [padded[i::fr, j::fc] for i in range(fr) for j in range(fc)]
    if kind == "signed":
        return sum(slices[1:], slices[0].copy()) / len(slices)
    out = slices[0].copy()
    for other in slices[1:]:
        np.maximum(out, other, out=out)
    return out


@dataclass(frozen=True)
class CellHover:
    """The cell under the mouse, and where the mouse is on screen (for a tooltip)."""

    row: int
    col: int
    screen_pos: QPointF


class CellTextItem(QGraphicsItem):
    """All cell values of a matrix, painted in one pass at a fixed screen size.

    Text is laid out in device pixels so it stays legible at any zoom and stays vector text in
    SVG/PDF exports. Two precisions are kept and the longest that fits the cell is used; when
    neither fits, nothing is written (big matrices).
    """

    def __init__(self, parent: QGraphicsItem | None = None) -> None:
        super().__init__(parent)
        self._rows = self._cols = 0
        self._texts: tuple[list[str], list[str]] = ([], [])
        # The glyph runs of the texts last drawn, and their font: kept for repaints only, so
        # memory follows the cells on screen.
        self._runs: tuple[list[str], QFont, list[QGlyphRun | None]] | None = None
        self._longest: tuple[list[str], list[str]] = ([], [])
        self._dark: list[bool] = []
        self.set_scale(1.0)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresParentOpacity, True)

    def set_scale(self, factor: float) -> None:
        """Values in 10 pt (8 pt when that does not fit) times the window's text size.

        Above the normal size, values that fit neither are written smaller, down to three
        quarters of the enlarged 8 pt (12 pt at 200 %: at 200 % on a 1080p projector the
        scores showed no numbers, while 12 pt ones fitted), but never below 10 pt, the
        largest size the normal size writes them in: a value is never written smaller than
        at 100 %. Four decimals come before two in every size (see `_choices`). At 150 %
        the queries were written 0.43 in 15 pt beside keys written 0.3669 in 12 pt, though
        0.4306 fitted in 10 pt; at 1366 × 768 the scores 0.90 in 9 pt, which 100 % wrote
        in 10 pt.
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
        # as between words: with 3 px, "0.2458 0.2559" on a pale row read as one number) and
        # the least cell height.
        self._measures = []
        for font in self._fonts:
            metrics = QFontMetricsF(font)
            gap = max(3.0, metrics.horizontalAdvance(" "))
            self._measures.append((font, metrics, gap, metrics.height() * 0.9))
        self._measured: list[tuple[list[str], QFont, float, float]] = []
        self._runs = None
        self.update()

    def set_cells(self, fine: list[str], coarse: list[str], dark: np.ndarray, shape: tuple) -> None:
        """Row-major texts at two precisions, and which cells are dark (white text)."""
        self.prepareGeometryChange()
        self._rows, self._cols = shape
        self._texts = (fine, coarse)
        self._runs = None
        self._measured = []
        # Measuring every text on every paint costs more than drawing them; the longest few
        # strings decide whether a precision fits.
        self._longest = tuple(sorted(set(t), key=len)[-3:] for t in (fine, coarse))
        self._dark = dark.ravel().tolist()  # Python bools: indexed per cell on every paint
        self.update()

    def clear(self) -> None:
        self.set_cells([], [], np.zeros(0, bool), (0, 0))

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self._cols, self._rows)

    def _choices(self) -> Iterator[tuple[list[str], QFont, float, float]]:
        """In the order they are preferred, each way of writing the values: texts, font, and
        the least cell width and height it needs.

        Precision comes before size: a learner checks 0.2264 against the tutorial, and the
        weights read 0.23 in 10 pt where 0.2264 fitted in 8 pt. Each precision is tried in
        every size of `set_scale`, largest first: above the normal text size that includes
        the normal 10 pt, so four decimals that fit in 10 pt are not cut to two because the
        enlarged sizes do not fit. Measured once per set of values and sizes (a repaint on a
        hover measures nothing).
        """
        fine, coarse = self._texts
        long_fine, long_coarse = self._longest
        ways = [(fine, long_fine, m) for m in self._measures]
        ways += [(coarse, long_coarse, m) for m in self._measures]
        measured = self._measured
        for index, (texts, longest, (font, metrics, gap, height)) in enumerate(ways):
            if index == len(measured):
                widest = max(metrics.horizontalAdvance(t) for t in longest)
                measured.append((texts, font, widest + gap, height))
            yield measured[index]

    def written(self, cell: QRectF) -> tuple[list[str], QFont] | None:
        """The texts and the font the values are written in when a cell is `cell` in device
        pixels: the first way of `_choices` that fits; None when none does."""
        if not self._texts[0]:
            return None
        for texts, font, width, height in self._choices():
            if width <= cell.width() and height <= cell.height():
                return texts, font
        return None

    def how_written(self, cell: QRectF) -> str:
        """How the values are written in cells `cell` big: "whole" (in their finer
        precision), "rounded" (two decimals, the finer did not fit), "hidden" (no way
        fits), or "" where there are no values to write (none set, or too many cells)."""
        fine, coarse = self._texts
        if not fine:
            return ""
        chosen = self.written(cell)
        if chosen is None:
            return "hidden"
        return "rounded" if chosen[0] is coarse and coarse != fine else "whole"

    def widths_needed(self, height: float) -> tuple[float, float]:
        """For cells `height` tall: the least width in which values are written at all, and
        the least in which they are written as in a cell of any width; infinite for none.
        (The stage figure shares its room by these, on every redraw.)"""
        if not self._texts[0]:
            return math.inf, math.inf
        fitting = [width for _, _, width, least in self._choices() if least <= height]
        if not fitting:
            return math.inf, math.inf
        return min(fitting), fitting[0]

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        transform = painter.transform()
        chosen = self.written(transform.mapRect(QRectF(0, 0, 1, 1)))
        if chosen is None:
            return
        texts, font = chosen
        painter.save()
        painter.resetTransform()
        painter.setFont(font)
        light, dark = QColor("#111111"), QColor("#ffffff")
        left: Sequence[int] = range(len(texts))
        if (
            widget is not None
            and painter.paintEngine().type() == QPaintEngine.Type.Raster
            and transform.type() in _SCALING
        ):
            # On screen: each value as a glyph run, built from a template and kept for
            # repaints; cheaper than a drawText per cell (the text of all seven views is
            # redrawn on every move).
            # Exported figures (no widget) keep drawText: real text in SVG/PDF, the file's
            # own DPI.
            left = self._draw_glyph_runs(painter, font, texts, transform, light, dark)
        cols = self._cols
        flags = Qt.AlignmentFlag.AlignCenter
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
        `transform` maps cells to device pixels); return the indexes of the others."""
        cached = self._runs
        if cached is not None and cached[0] is texts and cached[1] == font:
            runs = cached[2]  # a repaint (hover, resize) of the values already shown
        else:
            glyphs = _glyphs_of(font)
            runs = [glyphs.run(text) if text else None for text in texts]
            self._runs = (texts, QFont(font), runs)
        sx, sy, dx, dy = transform.m11(), transform.m22(), transform.dx(), transform.dy()
        cols = self._cols
        batches: tuple[list, list] = ([], [])  # (centre, run) of light and of dark cells
        left_over = []
        for index, (text, run) in enumerate(zip(texts, runs, strict=True)):
            if not text:
                continue
            if run is None:
                left_over.append(index)
                continue
            row, col = divmod(index, cols)
            centre = QPointF(sx * (col + 0.5) + dx, sy * (row + 0.5) + dy)
            batches[self._dark[index]].append((centre, run))
        for colour, batch in zip((light, dark), batches, strict=True):
            if batch:
                painter.setPen(colour)
                for centre, run in batch:
                    painter.drawGlyphRun(centre, run)
        return left_over


_SCALING = (
    QTransform.TransformationType.TxNone,
    QTransform.TransformationType.TxTranslate,
    QTransform.TransformationType.TxScale,
)


class _Glyphs:
    """Glyph index and advance of each character, and glyph runs of cell values, for one font.

    Four-decimal values are new on every move, but their glyph positions are not: digits share
    one advance, so "0.1234" and "0.5678" differ only in glyph indexes. A value's run is a copy
    of the template for its advances with its glyphs set, a third of the cost of building it.
    """

    MAX_TEMPLATES = 1024  # distinct advance sequences; a few dozen in practice

    def __init__(self, font: QFont) -> None:
        self.raw = QRawFont.fromFont(font)
        self._known: dict[str, tuple[int, float] | None] = {}
        self._templates: dict[tuple[float, ...], QGlyphRun] = {}  # by glyph advances
        self._baseline = (self.raw.ascent() - self.raw.descent()) / 2

    def run(self, text: str) -> QGlyphRun | None:
        """`text` as a glyph run centred on (0, 0), or None if the font lacks a character."""
        shaped = self.of(text)
        if not shaped:
            return None
        glyphs, advances = zip(*shaped, strict=True)
        run = QGlyphRun(self._template(advances))
        run.setGlyphIndexes(glyphs)
        return run

    def _template(self, advances: tuple[float, ...]) -> QGlyphRun:
        template = self._templates.get(advances)
        if template is None:
            x = -sum(advances) / 2
            positions = []
            for advance in advances:
                positions.append(QPointF(x, self._baseline))
                x += advance
            template = QGlyphRun()
            template.setRawFont(self.raw)
            template.setPositions(positions)
            if len(self._templates) >= self.MAX_TEMPLATES:
                self._templates.clear()
            self._templates[advances] = template
        return template

    def of(self, text: str) -> list[tuple[int, float]] | None:
        """The glyphs of `text`, or None if the font lacks one (Qt then picks a fallback font)."""
        known = self._known
        for char in text:
            if char not in known:
                known[char] = self._glyph(char)
        shaped = [known[char] for char in text]
        return None if None in shaped else shaped

    def _glyph(self, char: str) -> tuple[int, float] | None:
        indexes = self.raw.glyphIndexesForString(char)
        if len(indexes) == 1 and indexes[0] != 0:
            return indexes[0], self.raw.advancesForGlyphIndexes(indexes)[0].x()
        return None


_glyph_cache: dict[str, _Glyphs] = {}


def _glyphs_of(font: QFont) -> _Glyphs:
    key = font.key()
    if key not in _glyph_cache:
        _glyph_cache[key] = _Glyphs(font)
    return _glyph_cache[key]


class ColorBar(pg.GraphicsWidget):
    """A colour scale with labelled ticks, painted in one pass.

    pyqtgraph's ColorBarItem is a whole plot (view box, four axes, a pixmap) whose axes
    recompute their ticks in Python whenever the range moves: milliseconds per matrix per
    slider move. This bar paints bands and a handful of labels; as bands of colour rather
    than a bitmap it stays vector in SVG and PDF.
    """

    BAR_PX = 10  # 12 took from cells that had no room for their values at 1024 px
    BANDS = 64

    def __init__(self, cmap: pg.ColorMap = SIGNED_CMAP, follow_text_size: bool = True) -> None:
        super().__init__()
        self.ticks: list[tuple[float, str]] = []
        self.levels = (0.0, 1.0)
        self.over = False
        self._labels: Sequence[str] | None = None
        # Category labels written as their values alone ("0", "1"), their words in the
        # tooltip: where the bar's "1 hidden" would take the room a matrix's column labels
        # need (see MatrixPlot._refresh_ticks).
        self.compact = False
        self._gradient: tuple[QRectF, QBrush] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self.set_colormap(cmap)
        self._set_font(text_size.points(1.0, follow_text_size))
        self.set_levels(0.0, 1.0)
        if follow_text_size:
            text_size.changed.connect(self._text_size_changed)

    def _set_font(self, factor: float) -> None:
        self.font = QFont()
        self.font.setPointSizeF(8.5 * factor)
        self._line = QFontMetricsF(self.font).height()

    def _text_size_changed(self) -> None:
        self._set_font(text_size.factor)
        self.fit_labels()

    def fit_labels(self) -> None:
        """As wide as the labels shown, narrower too (`set_levels` only grows it): in a new
        text size, or for a bar reused for another array, whose labels were wider
        ("1 hidden")."""
        self.setMinimumWidth(0)
        self.set_levels(*self.levels, self._labels, self.over)

    def set_colormap(self, cmap: pg.ColorMap) -> None:
        lut = cmap.getLookupTable(nPts=self.BANDS, alpha=False)
        self._colors = [QColor(int(r), int(g), int(b)) for r, g, b in lut]
        self._gradient = None
        self.update()

    def set_levels(
        self, lo: float, hi: float, labels: Sequence[str] | None = None, over: bool = False
    ) -> None:
        """The range and its ticks: five evenly spaced values, or `labels` at lo and hi.

        `over`: some values lie above `hi` (weights scaled to a percentile) and share its
        colour; the top label says "≥" so that the darkest cells are not read as equal to it.
        """
        self.levels = (lo, hi)
        self._labels = labels
        self.over = over
        tip = ""
        if labels is not None:
            texts = self._category_texts(labels, self.compact)
            self.ticks = list(zip((lo, hi), texts, strict=True))
            if self.compact:
                tip = " · ".join(_tr(label) for label in labels)
        else:
            self.ticks = [(float(v), f"{v:.3g}") for v in np.linspace(lo, hi, 5)]
            if over:
                self.ticks[-1] = (hi, "≥" + self.ticks[-1][1])
                tip = _tr(
                    "The colour scale ends at {0:.3g}, rounded up from the 99.5th percentile "
                    "of the weights: the few larger ones share its top colour. Hover over a "
                    "cell for its value."
                ).format(hi)
        if tip != self.toolTip():  # an unchanged tooltip still costs an event per move
            self.setToolTip(tip)
        width = self._width_for(text for _, text in self.ticks)
        # Grow, never shrink: a width that followed every label would re-lay out the whole
        # figure on each slider move.
        if width > self.minimumWidth():
            self.setMinimumWidth(width)
            self.setMaximumWidth(width)
        self.update()

    def _width_for(self, texts: Iterator[str]) -> float:
        metrics = QFontMetricsF(self.font)
        widest = max(metrics.horizontalAdvance(text) for text in texts)
        return self.BAR_PX + 8 + widest + 2  # the plot's own margin follows

    @staticmethod
    def _category_texts(labels: Sequence[str], compact: bool) -> tuple[str, str]:
        """The two ends' labels: whole ("0 visible"), or their first word ("0")."""
        texts = (_tr(labels[0]), _tr(labels[1]))
        return tuple(t.split(" ", 1)[0] for t in texts) if compact else texts

    def whole_width(self) -> float:
        """The bar's width with its labels whole (not compact)."""
        if self._labels is None:
            return self._width_for(text for _, text in self.ticks)
        return self._width_for(iter(self._category_texts(self._labels, False)))

    def compact_saving(self) -> float:
        """How much narrower the bar is with its category labels compact: 0 for a bar of
        numbers, whose labels are their own values already."""
        if self._labels is None:
            return 0.0
        short = self._width_for(iter(self._category_texts(self._labels, True)))
        return max(self.whole_width() - short, 0.0)

    def set_compact(self, on: bool) -> None:
        """Category labels as their values alone (the words in the tooltip), or whole."""
        if on != self.compact:
            self.compact = on
            self.fit_labels()

    def bar_rect(self) -> QRectF:
        rect, line = self.rect(), self._line
        return QRectF(2, rect.top() + line / 2, self.BAR_PX, max(rect.height() - line, 1))

    def _bands(self, bar: QRectF) -> QBrush:
        """The colour map as a gradient of hard-edged bands, low values at the bottom.

        One gradient fill instead of a rectangle per band: the bar repaints on every slider
        move (its labels change), and it stays vector in SVG and PDF. Qt merges stops at equal
        positions, so each band ends a hair before the next begins.
        """
        if self._gradient is None or self._gradient[0] != bar:
            gradient = QLinearGradient(bar.left(), bar.bottom(), bar.left(), bar.top())
            stops = []
            bands = len(self._colors)
            for i, color in enumerate(self._colors):
                end = (i + 1) / bands if i == bands - 1 else (i + 1) / bands - 1e-6
                stops += [(i / bands, color), (end, color)]
            gradient.setStops(stops)
            self._gradient = (QRectF(bar), QBrush(gradient))
        return self._gradient[1]

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        bar = self.bar_rect()
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        painter.fillRect(bar, self._bands(bar))
        painter.setPen(QPen(QColor("#555555"), 0))
        painter.drawRect(bar)
        painter.setFont(self.font)
        painter.setPen(QColor("#222222"))
        lo, hi = self.levels
        span = hi - lo if hi != lo else 1.0
        line = self._line
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        # Labels end at the bar's own edge (drawText clips to its rectangle). Painted past it,
        # as when new, wider labels are painted once before the layout widens the bar, their
        # ends stay on screen: the view repaints only the bar's own rectangle.
        room = max(self.rect().right() - bar.right() - 6, 0)
        for value, text in self.ticks:
            y = bar.bottom() - (value - lo) / span * bar.height()
            painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y))
            painter.drawText(QRectF(bar.right() + 6, y - line / 2, room, line), align, text)
        painter.restore()


class HatchItem(QGraphicsRectItem):
    """The matrix background: light grey, with diagonal lines across the masked cells.

    Masked cells are transparent in the image, so this shows through them. Lines are drawn
    one by one, only inside runs of masked cells, at a fixed screen spacing and phase (so the
    pattern is continuous from row to row): a pattern brush blurs in SVG renderers, a clip
    region costs tens of microseconds per line, and lines under visible cells would peek out
    at their anti-aliased edges.
    """

    SPACING_PX = 7

    def __init__(self) -> None:
        super().__init__()
        self.device_pen = False  # a plain pen, not a cosmetic one (see OutlineItem)
        self.runs: list[QRectF] = []  # masked cells, as one rectangle per run within a row
        self._hidden: np.ndarray | None = None
        self.setPen(QPen(Qt.PenStyle.NoPen))
        self.setBrush(QBrush(QColor("#e8e8e8")))

    @property
    def hatched(self) -> bool:
        return bool(self.runs)

    RUNS_MAX = 128  # the hatching of a long sequence is laid out on at most 128 × 128 blocks

    def set_hidden(self, hidden: np.ndarray | None) -> None:
        if hidden is None and self._hidden is None:
            return
        if hidden is not None and self._hidden is not None and np.array_equal(hidden, self._hidden):
            return
        self._hidden = hidden
        self.runs = []
        if hidden is not None:
            # Blocks with any masked cell are hatched: a superset of the masked cells is
            # enough, the opaque visible cells cover the rest.
            blocks = display_grid(hidden, "mask", self.RUNS_MAX)
            fr, fc = hidden.shape[0] / blocks.shape[0], hidden.shape[1] / blocks.shape[1]
            for r, row in enumerate(blocks):
                edges = np.flatnonzero(np.diff(np.concatenate(([0], row.astype(np.int8), [0]))))
                for c0, c1 in zip(edges[::2], edges[1::2], strict=True):
                    self.runs.append(QRectF(c0 * fc, r * fr, (c1 - c0) * fc, fr))
        self.update()

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        painter.fillRect(self.rect(), self.brush())
        if not self.runs:
            return
        transform = painter.transform()
        painter.save()
        painter.resetTransform()
        pen = QPen(QColor("#9a9a9a"), 1)
        pen.setCosmetic(not self.device_pen)
        painter.setPen(pen)
        step = self.SPACING_PX
        for run in self.runs:
            # Each run gets its own lines, cut to it by hand (SVG ignores clipping). The item
            # is cached on screen, so this runs when the mask changes, not on every move.
            self._lines(painter, transform.mapRect(run), step)
        painter.restore()

    @staticmethod
    def _lines(painter: QPainter, area: QRectF, step: float) -> None:
        """Lines x + y = k·step (rising at 45°, the same phase everywhere) within `area`."""
        left, right, top, bottom = area.left(), area.right(), area.top(), area.bottom()
        k = math.ceil((left + top) / step)
        while k * step <= right + bottom:
            c = k * step
            x0, x1 = max(left, c - bottom), min(right, c - top)
            if x0 < x1:
                painter.drawLine(QPointF(x0, c - x0), QPointF(x1, c - x1))
            k += 1


class OutlineItem(QGraphicsRectItem):
    """A rectangle outlined in a pen of a fixed width in pixels, at any zoom: the followed
    query's box, the hovered cell's.

    On screen the pen is cosmetic. With `device_pen` (exported figures) the outline is drawn
    in the device's own coordinates with a plain pen of that width instead: Qt writes a
    cosmetic pen into SVG as vector-effect="non-scaling-stroke" under the cells' scale (a
    cell is one unit, some 100 px), and renderers that ignore it (ImageMagick 6, librsvg
    2.54, slide software) drew the 3 px outline 300 px wide, an orange blob over the matrix;
    and a PNG at 2× drew it 3 pixels thick, half as thick as at 1×.
    """

    device_pen = False

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        if not self.device_pen:
            super().paint(painter, option, widget)
            return
        rect = painter.transform().mapRect(self.rect())
        pen = QPen(self.pen())
        pen.setCosmetic(False)
        painter.save()
        painter.resetTransform()
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(rect)
        painter.restore()


class CellImage(QGraphicsItem):
    """The coloured cells: one premultiplied ARGB bitmap drawn over the matrix's cell rect.

    It also reports the cell under the mouse and clicks on cells (pyqtgraph's scene calls
    `hoverEvent` / `mouseClickEvent` on any item that has them). pyqtgraph's ImageItem would
    map levels and convert formats on every paint; the colours are already computed once per
    update, so this item only blits. With `vector_cells` on (SVG and PDF export) it paints one
    rectangle per cell instead: viewers smooth an upscaled 6×6 bitmap into a blur.
    """

    VECTOR_LIMIT = 128 * 128  # beyond this many cells a bitmap is the better file

    def __init__(self, owner: MatrixPlot) -> None:
        super().__init__()
        self._owner = owner
        self.vector_cells = False
        self.image: np.ndarray | None = None  # (h, w) uint32 premultiplied ARGB, 0 where masked
        self._qimage: QImage | None = None
        self._rect = QRectF()
        self.setAcceptHoverEvents(True)

    def set_cells(self, argb: np.ndarray, rect: QRectF) -> None:
        """Show `argb` (h, w) uint32 premultiplied ARGB (the raster engine's own format, drawn
        without conversion), stretched over `rect` in cell units (h, w may be pooled)."""
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = rect
        argb = np.ascontiguousarray(argb, dtype=np.uint32)
        self.image = argb
        height, width = argb.shape
        premultiplied = QImage.Format.Format_ARGB32_Premultiplied
        self._qimage = QImage(argb.data, width, height, 4 * width, premultiplied)
        self.update()

    def clear(self) -> None:
        self.image = None
        self._qimage = None
        self.update()

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(self, painter: QPainter, option: object, widget: object = None) -> None:
        if self._qimage is None:
            return
        if not self.vector_cells or self.image.size > self.VECTOR_LIMIT:
            # Cells are blocks: nearest-neighbour scaling, sharper and cheaper than smoothing.
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
            painter.drawImage(self._rect, self._qimage)
            return
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        rows, cols = self.image.shape
        cell_w, cell_h = self._rect.width() / cols, self._rect.height() / rows
        for r in range(rows):
            for c in range(cols):
                word = int(self.image[r, c])
                if word >> 24:  # not transparent
                    red, green, blue = (word >> 16) & 0xFF, (word >> 8) & 0xFF, word & 0xFF
                    # A hair of overlap keeps viewers from drawing seams between cells.
                    w = cell_w * (1.02 if c < cols - 1 else 1.0)
                    h = cell_h * (1.02 if r < rows - 1 else 1.0)
                    rect = QRectF(c * cell_w, r * cell_h, w, h)
                    painter.fillRect(rect, QColor(red, green, blue))
        painter.restore()

    def _cell(self, pos: QPointF) -> tuple[int, int] | None:
        matrix = self._owner.matrix
        if self.image is None or matrix is None:
            return None
        row, col = math.floor(pos.y()), math.floor(pos.x())
        rows, cols = matrix.shape
        return (row, col) if 0 <= row < rows and 0 <= col < cols else None

    def hoverEvent(self, ev: object) -> None:
        cell = None if ev.isExit() else self._cell(ev.pos())
        self._owner._hover(cell, None if ev.isExit() else ev.screenPos())

    def mouseClickEvent(self, ev: object) -> None:
        cell = self._cell(ev.pos())
        if cell is not None and ev.button() == Qt.MouseButton.LeftButton:
            ev.accept()
            self._owner.cellClicked.emit(*cell)


class ShrinkingLabel(pg.LabelItem):
    """A label that does not force its text width on the layout: with many matrices side by
    side a long title is written smaller, down to `LEAST_SCALE`, then cut, instead of pushing
    the last matrix off the figure. Cut at its own edge: a stage's "Query weights W_q · head 1
    3×1" ran into "Key weights W_k". Cut without shrinking first, "Masked scores · head 1 6×6"
    read "… head 1 6×" at 1366 px, a shape that is not the matrix's."""

    LEAST_SCALE = 0.75

    def __init__(self, *args: object, **kwargs: object) -> None:
        self._cut = False  # words left out of the text shown (see `_cut_to`)
        super().__init__(*args, **kwargs)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape, True)

    def setText(self, text: str, **args: object) -> None:
        self._cut = False
        super().setText(text, **args)

    def updateMin(self) -> None:
        # The text's own height, not its shrunk one: a row that followed the shrinking
        # would re-lay out the figure, resize the label and shrink it again.
        bounds = self.item.boundingRect()
        self.setMinimumWidth(0)
        self.setMinimumHeight(bounds.height())
        self._sizeHint = {
            Qt.SizeHint.MinimumSize: (0, bounds.height()),
            Qt.SizeHint.PreferredSize: (bounds.width(), bounds.height()),
            Qt.SizeHint.MaximumSize: (-1, -1),
            Qt.SizeHint.MinimumDescent: (0, 0),
        }
        self.updateGeometry()

    def resizeEvent(self, ev: object) -> None:
        if self._cut:  # the whole text again, measured afresh
            self._cut = False
            self.item.document().undo()
            self.item.setToolTip("")
        natural = self.item.boundingRect().width()
        room = self.rect().width()
        scale = 1.0 if natural <= room else max(self.LEAST_SCALE, room / natural)
        if scale != self.item.scale():
            self.item.setScale(scale)
        if natural * scale > room + 0.5:
            self._cut_to(room / scale)
        super().resizeEvent(ev)
        # Centred, a title wider than its room lost both ends ("cores ω = Q·Kᵀ · … · seed"):
        # it keeps its beginning, the matrix's name, and loses its end instead.
        left = self.item.mapToParent(self.item.boundingRect().topLeft()).x()
        if left < 0 or (self._cut and left > 0):  # a cut title starts at the left as well
            self.item.moveBy(-left, 0)

    def _cut_to(self, width: float) -> None:
        """Leave out the text's last words until it fits `width` (unscaled pixels), and end
        it with "…", whole in its tooltip: cut at the label's edge, a stage's "· seed 123"
        read "· seed", a shape "6×6" read "6×"."""
        document = self.item.document()
        plain = document.toPlainText()
        # After a word, not after a separator ("· …"): the ends of the words that may stay.
        ends = [
            m.start()
            for m in re.finditer(r" ", plain)
            if plain[: m.start()].rsplit(" ", 1)[-1] not in ("", "·", "→", "|", "—", "-")
        ]
        self.item.setToolTip(plain)
        self._cut = True
        for end in reversed(ends):
            cursor = QTextCursor(document)
            cursor.beginEditBlock()  # one step, which `resizeEvent` undoes
            cursor.setPosition(end)
            cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            cursor.insertText(" …")
            cursor.endEditBlock()
            if self.item.boundingRect().width() <= width or end == ends[0]:
                return
            document.undo()
        self._cut = False  # a single word: cut at the edge, as before
        self.item.setToolTip("")


class TokenAxis(pg.AxisItem):
    """The column axis: token labels horizontal when they fit, else slanted or vertical.

    pyqtgraph's axis only writes horizontal text, which forces thinning the moment a word is
    wider than its column; slanting keeps every label of a tutorial-sized matrix readable.
    """

    def __init__(self, orientation: str = "top") -> None:
        super().__init__(orientation)
        self.labels: list[tuple[float, str]] = []
        self.angle = 0
        self._overhang = 0.0  # how far slanted labels reach right of the axis (pixels)

    def set_labels(
        self, labels: list[tuple[float, str]], angle: int, widest: float | None = None
    ) -> None:
        """`widest`: the width to make room for, when it is not the widest shown label's."""
        self.labels, self.angle = labels, angle
        metrics = QFontMetricsF(self.font())
        if widest is None:
            widest = max((metrics.horizontalAdvance(t) for _, t in labels), default=0)
        if angle == 0:
            height = metrics.height() + 6
        else:
            radians = math.radians(angle)
            height = widest * math.sin(radians) + metrics.height() * math.cos(radians) + 8
        self.setHeight(min(int(height), 140))
        overhang = widest * math.cos(math.radians(angle)) + metrics.height() if angle else 0
        if overhang != self._overhang:
            self.prepareGeometryChange()  # before boundingRect() changes, as Qt requires
            self._overhang = overhang
        self.picture = None
        self.update()

    def boundingRect(self) -> QRectF:
        # A slanted label leans right, past the last column: without this its end was cut
        # off ("ste" for "step") wherever only the axis's own rectangle was repainted.
        return super().boundingRect().adjusted(0, 0, self._overhang, 0)

    def drawPicture(
        self, p: QPainter, axisSpec: object, tickSpecs: object, textSpecs: object
    ) -> None:
        view = self.linkedView()
        if view is None or not self.labels:
            return
        p.setRenderHint(QPainter.RenderHint.TextAntialiasing, True)
        p.setFont(self.font())
        p.setPen(self.textPen())
        metrics = QFontMetricsF(self.font())
        bottom = self.boundingRect().bottom() - 3
        for position, text in self.labels:
            x = self.mapFromScene(view.mapViewToScene(QPointF(position, 0))).x()
            width = metrics.horizontalAdvance(text)
            if self.angle == 0:
                p.drawText(
                    QRectF(
                        x - width / 2 - 2, bottom - metrics.height(), width + 4, metrics.height()
                    ),
                    Qt.AlignmentFlag.AlignCenter,
                    text,
                )
                continue
            p.save()
            p.translate(x, bottom)
            p.rotate(-self.angle)
            p.drawText(
                QRectF(0, -metrics.height() / 2, width + 4, metrics.height()),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                text,
            )
            p.restore()


def left_to_right(item: QGraphicsItem) -> None:
    """Lay `item` and every graphics widget in it out left to right, in every language: a
    matrix's columns are 1, 2, 3, its row labels on its left, its colour bar on its right.

    Set on each one: pyqtgraph builds a plot's axes before the plot has a parent, so they
    took the application's right-to-left direction and kept it (row labels on the right).
    """
    if isinstance(item, QGraphicsWidget):
        item.setLayoutDirection(Qt.LayoutDirection.LeftToRight)
    for child in item.childItems():
        left_to_right(child)


class MatrixPlot(pg.GraphicsLayout):
    """One matrix: title, token-labelled axes, colour bar, values, masked cells hatched."""

    cellHovered = Signal(object)  # CellHover, or None when the mouse leaves
    cellClicked = Signal(int, int)

    def __init__(
        self, *, colorbar: bool = True, title_points: float = 11, follow_text_size: bool = True
    ) -> None:
        """`follow_text_size`: on screen, text follows the window's text size (View menu);
        exported figures pass False and keep their own."""
        super().__init__()
        self.setContentsMargins(4, 2, 4, 2)
        self.layout.setHorizontalSpacing(4)
        self.layout.setVerticalSpacing(0)
        self._title_points = title_points
        self._title_size = f"{text_size.points(title_points, follow_text_size):g}pt"
        self.title = ShrinkingLabel("", size=self._title_size)
        self.addItem(self.title, row=0, col=0, colspan=2)
        self.top_axis = TokenAxis("top")
        # No context menu, decided at construction: disabling it afterwards deletes a built
        # menu, 45 ms a plot at startup.
        self.plot: pg.PlotItem = self.addPlot(
            row=1, col=0, axisItems={"top": self.top_axis}, enableMenu=False
        )
        self.plot.hideButtons()
        self.plot.showAxis("top")
        self.plot.hideAxis("bottom")
        self.view: pg.ViewBox = self.plot.getViewBox()
        self.view.setMouseEnabled(False, False)
        self.view.invertY(True)
        self.view.setDefaultPadding(0)
        for side in ("left", "top"):
            axis = self.plot.getAxis(side)
            axis.setStyle(tickLength=0, autoExpandTextSpace=True, tickTextOffset=4)
            axis.setPen(pg.mkPen(None))
            axis.setTextPen(pg.mkPen("#222222"))
        self._hatch = HatchItem()
        self.image = CellImage(self)
        self.cells = CellTextItem()
        self._row_box = OutlineItem()
        pen = QPen(HIGHLIGHT, 3)
        pen.setCosmetic(True)
        self._row_box.setPen(pen)
        self._row_box.setVisible(False)
        self._hover_box = OutlineItem()
        hover_pen = QPen(QColor("#111111"), 2)
        hover_pen.setCosmetic(True)
        self._hover_box.setPen(hover_pen)
        self._hover_box.setVisible(False)
        for z, item in enumerate(
            (self._hatch, self.image, self.cells, self._row_box, self._hover_box)
        ):
            item.setZValue(z)
            self.plot.addItem(item)
        self.colorbar: ColorBar | None = None
        if colorbar:
            self.colorbar = ColorBar(follow_text_size=follow_text_size)
            self.addItem(self.colorbar, row=1, col=1)
        self._set_fonts(text_size.points(1.0, follow_text_size))
        self.set_caching(True)
        self.matrix: np.ndarray | None = None  # exactly what is displayed
        self.shown: object = None  # set by the owner: which trace array this plot shows
        self.hidden: np.ndarray | None = None
        self._request: tuple | None = None
        self._hidden_given: np.ndarray | None = None
        self.kind = ""  # no colour map yet
        self.levels: tuple[float, float] = (0.0, 1.0)  # the colour scale of the cells shown
        self._lut = np.zeros(256, np.uint32)
        self._levels: tuple[float, float, bool] | None = None
        self.over = False  # values beyond the colour scale's top (see ColorBar.set_levels)
        self.name = ""
        self._row_labels: tuple[str, ...] = ()
        self._col_labels: tuple[str, ...] = ()
        self._tick_state: tuple | None = None
        self._label_widths: tuple = (None, 0.0, 0.0)  # (labels and font measured, rows, columns)
        self._shown_ticks: tuple[list[str], list[str]] = ([], [])
        self._highlight: int | None = None
        self._neg_inf_text = False
        # A row of matrices (MatrixRow) may leave the row labels to the matrix on the left,
        # and the colour bar to the one on the right, where they would say the same.
        self.row_labels_shown = True
        self.colorbar_shown = colorbar
        # Counts the changes that set_matrix, set_title, set_highlight, clear and a new text
        # size make: a view that paints several plots at once (OnePaintPass) repaints those
        # whose count moved. New tick labels do not count: they re-lay out the plot, which
        # OnePaintPass notices through layout_key().
        self.revision = 0
        self.view.sigResized.connect(self._refresh_ticks)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        if follow_text_size:
            text_size.changed.connect(self._text_size_changed)
        left_to_right(self)

    def _set_fonts(self, factor: float) -> None:
        """Axis labels in the application's unscaled size times `factor`, set explicitly: an
        exported figure must not take the window's text size through the default font."""
        self.axis_font = QFont()
        self.axis_font.setPointSizeF(text_size.base_points() * factor)
        left = self.plot.getAxis("left")
        left.setStyle(tickFont=self.axis_font)
        left.setFont(self.axis_font)
        self.top_axis.setFont(self.axis_font)
        self.cells.set_scale(factor)

    def _text_size_changed(self) -> None:
        factor = text_size.factor
        self._set_fonts(factor)
        self._title_size = f"{self._title_points * factor:g}pt"
        self.title.setText(self.title.text, size=self._title_size)
        self._tick_state = None
        self._refresh_ticks()
        self.revision += 1
        self.update()

    def set_caching(self, on: bool) -> None:
        """Keep the axes, title and colour bar as cached pixmaps between repaints.

        A slider move changes the image; without a cache every axis of every matrix is
        painted again around it. Figures for SVG and PDF turn caching off: a cached item
        would be written as a bitmap.
        """
        mode = (
            QGraphicsItem.CacheMode.DeviceCoordinateCache if on else QGraphicsItem.CacheMode.NoCache
        )
        # The title's text is a child item, which its label's cache does not hold.
        items = [self.title, self.title.item, self._hatch]
        items += [self.plot.getAxis(side) for side in ("left", "top")]
        if self.colorbar is not None:
            items.append(self.colorbar)
        for item in items:
            item.setCacheMode(mode)

    def set_device_pens(self, on: bool) -> None:
        """Draw the outlines and the hatching with plain pens in device pixels rather than
        cosmetic ones: for exported figures, which SVG renderers and PNG scales must draw
        alike (see OutlineItem). The window keeps its cosmetic pens."""
        for item in (self._row_box, self._hover_box, self._hatch):
            if item.device_pen != on:
                item.device_pen = on
                item.update()

    def show_row_labels(self, on: bool) -> None:
        """Write the row labels, or not: for a matrix beside one that writes the very same
        labels on the very same rows (see MatrixRow)."""
        if on != self.row_labels_shown:
            self.row_labels_shown = on
            self._tick_state = None
            self._refresh_ticks()
            self.revision += 1

    def show_colorbar(self, on: bool) -> None:
        """Show the colour bar, or leave its room to the cells: for a matrix beside one on
        the very same colour scale, whose bar is shown (see MatrixRow)."""
        bar = self.colorbar
        if bar is None or on == self.colorbar_shown:
            return
        self.colorbar_shown = on
        if on:
            bar.setVisible(True)
            self.layout.addItem(bar, 1, 1)
        else:
            self.layout.removeItem(bar)  # a hidden item keeps its room in a graphics layout
            bar.setVisible(False)
        self.revision += 1

    @property
    def labels(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The tokens of the rows and of the columns, as the axes label them."""
        return self._row_labels, self._col_labels

    @property
    def chosen_levels(self) -> tuple[float, float] | None:
        """The colour scale the owner chose for the matrix (one for several matrices), or
        None where the matrix takes its own from its values."""
        return self._request[3] if self._request is not None else None

    # ------------------------------------------------------------------ content
    def set_title(self, html: str) -> None:
        if html != self.title.text:  # setting a label re-lays out the whole figure
            self.title.setText(html, size=self._title_size)
            self.revision += 1

    def set_matrix(
        self,
        matrix: np.ndarray,
        *,
        kind: str = "signed",
        rows: Sequence[str] = (),
        cols: Sequence[str] = (),
        hidden: np.ndarray | None = None,
        name: str = "",
        levels: tuple[float, float] | None = None,
        neg_inf_text: bool = False,
    ) -> None:
        """Show `matrix` (2-D). Cells where `hidden` is True are hatched, not coloured.

        `neg_inf_text` writes "−∞" in hidden cells (masked scores); otherwise they stay blank.
        """
        request = (kind, tuple(rows), tuple(cols), levels, neg_inf_text, name)
        if (
            request == self._request
            and self.matrix is not None
            and _same(matrix, self.matrix)
            and _same(hidden, self._hidden_given)
        ):
            return  # unchanged (the mask on a seed move): no update, no repaint
        self.revision += 1
        self._request, self._hidden_given = request, hidden
        self.matrix = matrix
        self.hidden = hidden if hidden is not None and hidden.any() else None
        self.name = name
        values = matrix.astype(np.float32, copy=False)
        # Everything below runs at screen resolution: a 1024-token matrix is pooled first.
        display = display_grid(values, kind)
        pooled = display is not values
        hidden_display = self.hidden
        if pooled and self.hidden is not None:
            hidden_display = display_grid(self.hidden, "mask")
        masked = hidden_display if hidden_display is not None else False
        has_nan = hidden_display is not None or not np.isfinite(display).all()
        if has_nan:
            display = np.where(masked, np.nan, display)
            display[~np.isfinite(display)] = np.nan  # masked (NaN) cells: hatched, not coloured
        if levels is None:
            source = display
            if pooled and kind == "signed":  # block means would hide the extremes
                source = display_grid(np.abs(values), "weights")
                source[~np.isfinite(source) | masked] = np.nan
            levels = levels_for(kind, source)
        lo, hi = levels
        # Only what changed is touched: re-setting a colour map, a colour-bar range or the view
        # range would make pyqtgraph rebuild axes and re-lay out the figure on every move.
        if kind != self.kind:
            lut = CMAPS[kind].getLookupTable(nPts=256, alpha=False).astype(np.uint32)
            # Each colour packed as one 32-bit ARGB word: a single gather colours the cells.
            self._lut = (0xFF << 24) | (lut[:, 0] << 16) | (lut[:, 1] << 8) | lut[:, 2]
            if self.colorbar is not None:
                self.colorbar.set_colormap(CMAPS[kind])
            self.kind = kind
            self._levels = None
        # One LUT lookup colours the cells (BGRA, masked cells transparent over the hatching)
        # and tells the cell text which background it sits on.
        span = hi - lo if hi > lo else 1.0
        nan = np.isnan(display) if has_nan else None
        index = (np.where(nan, lo, display) if has_nan else display) - lo
        scale = 255.0 / span
        if scale > FLOAT32_MAX:  # a span below 1e-36 (scores of embeddings near 1e-20):
            # in float32 the factor was infinite, and every cell above the lowest took the
            # top colour, with numpy's overflow warnings on the console.
            index = index.astype(np.float64)
        np.multiply(index, scale, out=index)
        index = np.clip(index, 0, 255, out=index).astype(np.uint8)
        argb = self._lut[index]  # (h, w) uint32 = BGRA bytes on little-endian machines
        if has_nan:
            argb[nan] = 0  # premultiplied transparent
        self.image.set_cells(argb, QRectF(0, 0, matrix.shape[1], matrix.shape[0]))
        self.levels = (lo, hi)
        # Weights are scaled to a percentile: the largest may lie beyond the bar's end.
        self.over = kind == "weights" and bool(np.fmax.reduce(display, axis=None) > hi)
        if self.colorbar is not None and (lo, hi, self.over) != self._levels:
            self.colorbar.set_levels(lo, hi, CATEGORY_LABELS.get(kind), self.over)
        self._levels = (lo, hi, self.over)
        n_rows, n_cols = matrix.shape
        frame = QRectF(0, 0, n_cols, n_rows)
        if frame != self._hatch.rect():
            self._hatch.setRect(frame)
            self.view.setRange(frame, padding=0)
        self._hatch.set_hidden(self.hidden)
        self._neg_inf_text = neg_inf_text
        self._update_cells(argb)
        self.set_labels(tuple(rows), tuple(cols))
        self.set_highlight(self._highlight)

    def clear(self) -> None:
        """Show nothing, and let go of every array shown (they may be views of a whole trace)."""
        self.revision += 1
        self.matrix = None
        self.hidden = self._hidden_given = None
        self._request = None
        self.shown = None
        self.image.clear()
        self.cells.clear()
        self.set_labels((), ())

    def _update_cells(self, argb: np.ndarray) -> None:
        """The values to write, and which cells are dark enough for white text (`argb`: the
        cells' colours as drawn; text only goes in matrices too small to be pooled)."""
        matrix = self.matrix
        # A long thin matrix (1 × 600) has few cells yet is pooled: one text per drawn cell
        # would not exist, and the shades would not line up with the values.
        if matrix.size > MAX_TEXT_CELLS or argb.shape != matrix.shape:
            self.cells.clear()
            return
        flat = matrix.ravel()
        if self.kind in ("mask", "keep"):
            fine = ["1" if v else "0" for v in flat]
            coarse = fine
        else:
            fine, coarse = _cell_texts(flat)
        if self.hidden is not None:
            hidden = self.hidden.ravel()
            blank = "−∞" if self._neg_inf_text else ""
            fine = [blank if h else t for t, h in zip(fine, hidden, strict=True)]
            coarse = [blank if h else t for t, h in zip(coarse, hidden, strict=True)]
        argb = argb.ravel()
        red, green, blue = (argb >> 16) & 0xFF, (argb >> 8) & 0xFF, argb & 0xFF
        luminance = (0.299 * red + 0.587 * green + 0.114 * blue) / 255
        # A transparent cell (hidden, or not a finite number) shows the white page.
        dark = (luminance < 0.5) & (argb != 0)
        self.cells.set_cells(fine, coarse, dark, matrix.shape)

    # ------------------------------------------------------------------ labels
    def set_labels(self, rows: tuple[str, ...], cols: tuple[str, ...]) -> None:
        if rows == self._row_labels and cols == self._col_labels:
            return
        self._row_labels, self._col_labels = rows, cols
        self._tick_state = None
        self._refresh_ticks()

    def _stride(self, count: int, pixels: float, least: float = LABEL_PX) -> int:
        if count == 0 or pixels <= 0:
            return 1
        return max(1, math.ceil(max(LABEL_PX, least) / (pixels / count)))

    def _refresh_ticks(self) -> None:
        """Tick labels, thinned to every k-th token when the cells are too small to label all."""
        size = self.view.size()
        rows, cols = self._row_labels, self._col_labels
        cell_width = size.width() / max(len(cols), 1)
        font = self.axis_font
        line = QFontMetricsF(font).height()
        # A labelled row at least a line tall: at 200 % rows of 15-30 px ran "journey" into
        # "starts".
        row_stride = self._stride(len(rows), size.height(), line)
        # Measured once per label set and font: a window resize refreshes every view often,
        # and a 4096-token table has 4096 labels per axis.
        measured = (rows, cols, font.key())
        if self._label_widths[0] != measured:
            self._label_widths = (measured, _widest(rows, font), _widest(cols, font))
        _, widest_row, widest_col = self._label_widths
        bar = self.colorbar
        saving = bar.compact_saving() if bar is not None and self.colorbar_shown else 0.0
        if saving and cols:
            # The mask's bar writes "1 hidden" and "0 visible": in a narrow view (the mask
            # at 1024 px) that width left its six tokens thinned to three. The bar is
            # written "1" and "0" (the words in its tooltip, the title says "True =
            # hidden") where that lets every column be labelled, and only there. Decided
            # from the width the cells would have beside the whole labels, from the bar's
            # width as laid out: the same before and after the re-layout it causes.
            whole = size.width() + bar.width() - bar.whole_width()
            compact = (
                self._column_labels(whole / len(cols), widest_col, line)[1] > 1
                and self._column_labels((whole + saving) / len(cols), widest_col, line)[1] == 1
            )
            if compact != bar.compact:
                bar.set_compact(compact)  # may re-lay out the plot, and label it, at once
                self._tick_state = None
                self._refresh_ticks()
                return
        angle, col_stride = self._column_labels(cell_width, widest_col, line)
        shown = self.row_labels_shown
        state = (rows, cols, row_stride, col_stride, angle, shown)
        if state == self._tick_state:
            return
        self._tick_state = state
        left_ticks = [
            (i + 0.5, display_token(t)) for i, t in enumerate(rows) if i % row_stride == 0
        ]
        if not shown:
            left_ticks, widest_row = [], -6.0  # an axis of no width
        top_ticks = [(i + 0.5, display_token(t)) for i, t in enumerate(cols) if i % col_stride == 0]
        left = self.plot.getAxis("left")
        left.setTicks([left_ticks])
        # The axes make room for every label, not only the ones shown: sized to the shown
        # ones, a thinning that follows the view's size changed that size, which changed the
        # thinning back (two views of a 1024-token table traded 8 px forever after an edit).
        # pyqtgraph silently drops labels that do not fit.
        left.setWidth(widest_row + 6)
        self.top_axis.set_labels(top_ticks, angle, widest_col - 6)
        self._shown_ticks = ([t for _, t in left_ticks], [t for _, t in top_ticks])

    def _column_labels(self, cell_width: float, widest: float, line: float) -> tuple[int, int]:
        """The column labels' angle and stride for cells `cell_width` wide: horizontal
        where the widest fits, slanted where the last stays above the matrix, else upright
        one line apart. Upright, a label's line (ascent and descent) is wider than its ink
        by the font's leading: labels a line apart do not touch. (With 1.1 lines, the
        six tokens of the mask at 1024 px, 14.7 px apart, were thinned to three.)"""
        cols = self._col_labels
        if widest <= cell_width:
            return 0, 1
        if cell_width >= 1.5 * line and _slanted_fits(cols[-1], cell_width, self.axis_font):
            return 45, 1
        return 90, max(1, math.ceil(line / max(cell_width, 1e-6)))

    # ------------------------------------------------------------------ highlight & hover
    def set_highlight(self, row: int | None) -> None:
        """Outline one row (the followed query), or none."""
        self._highlight = row
        if self.matrix is None or row is None or not 0 <= row < self.matrix.shape[0]:
            if self._row_box.isVisible():
                self._row_box.setVisible(False)
                self.revision += 1
            return
        rect = QRectF(0, row, self.matrix.shape[1], 1)
        if rect != self._row_box.rect() or not self._row_box.isVisible():
            self._row_box.setRect(rect)
            self._row_box.setVisible(True)
            self.revision += 1

    def _hover(self, cell: tuple[int, int] | None, screen_pos: QPointF | None) -> None:
        if cell is None:
            self._hover_box.setVisible(False)
            self.cellHovered.emit(None)
            return
        row, col = cell
        self._hover_box.setRect(QRectF(col, row, 1, 1))
        self._hover_box.setVisible(True)
        self.cellHovered.emit(CellHover(row, col, screen_pos))

    def settle_layout(self) -> None:
        """Carry out a pending re-layout now rather than on a later turn of the event loop."""
        for _ in range(3):  # a re-layout can resize the cells' box, which re-labels the axes
            if self.layout.isActivated():
                return
            self.layout.activate()

    def layout_key(self) -> tuple:
        """Where the matrix sits: a re-layout (new labels, title or colour-bar width) moves or
        resizes the cells' box, so it changes when one happened."""
        return self.view.sceneBoundingRect().getRect()

    def values_written(self) -> str:
        """How the cells' values are written at the plot's size on screen (see
        `CellTextItem.how_written`)."""
        if self.matrix is None:
            return ""
        rows, cols = self.matrix.shape
        size = self.view.size()
        return self.cells.how_written(QRectF(0, 0, size.width() / cols, size.height() / rows))

    @property
    def tick_labels(self) -> tuple[list[str], list[str]]:
        """The row and column labels currently drawn (for tests and level-of-detail checks)."""
        return self._shown_ticks


def _cell_texts(values: np.ndarray) -> tuple[list[str], list[str]]:
    """Each value as `_fine` and as `_coarse` write it.

    The usual matrix (finite, every value zero or between 1e-4 and 1000 in size) takes one
    format per precision, half the cost of deciding value by value on every move.
    """
    numbers = values.tolist()
    size = np.abs(values)
    if np.isfinite(values).all() and ((size >= 1e-4) | (size == 0)).all() and size.max() < 1000:
        return [f"{v:.4f}" for v in numbers], [f"{v:.2f}" for v in numbers]
    return [_fine(v) for v in numbers], [_coarse(v) for v in numbers]


def _fine(value: float) -> str:
    """As `num` writes it, but a value under 1e-4 in one significant digit ("6e-05"): as
    `num` writes it ("6.038e-05") it was the widest text of its matrix, and a matrix is
    written in the precision its widest text fits, so one tiny weight of a saturated softmax
    cut all the others to two decimals. The hover still gives all four digits."""
    text = num(value)
    return f"{value:.0e}" if "e-" in text else text


def _coarse(value: float) -> str:
    if not math.isfinite(value):
        return num(value)
    if abs(value) >= 1000:
        return f"{value:.1e}"
    return f"{value:.2f}"


def _slanted_fits(last: str, cell_width: float, font: QFont) -> bool:
    """Whether the last column's label, slanted at 45°, stays above the matrix: it leans right
    from its cell's centre, and what passes the matrix's right edge would be cut off."""
    reach = QFontMetricsF(font).horizontalAdvance(display_token(last)) * math.cos(math.pi / 4)
    return reach <= cell_width / 2 + 6


def _widest(labels: Sequence[str], font: QFont) -> float:
    metrics = QFontMetricsF(font)
    return max((metrics.horizontalAdvance(display_token(t)) for t in labels), default=0) + 6


class MatrixView(pg.GraphicsView):
    """A widget showing one MatrixPlot."""

    # Whole-view repaints: the board paints several views in one pass (paint_pass.py), and
    # with Qt's minimal updates a view painted by such a pass and changed later without one
    # repainted only part of what moved, leaving old row labels on screen.
    UPDATE_MODE = QGraphicsView.ViewportUpdateMode.FullViewportUpdate

    def __init__(self, parent: object = None, **plot_options: object) -> None:
        super().__init__(parent, background="w")
        self.setLayoutDirection(Qt.LayoutDirection.LeftToRight)  # its painter's: "-0.15"
        self.plot = MatrixPlot(**plot_options)
        self.setCentralItem(self.plot)
        self.setViewportUpdateMode(self.UPDATE_MODE)
        self.setMinimumSize(140, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.key_cell: tuple[int, int] | None = None  # the keyboard's cell, while focused

    # The keyboard does what the mouse does: arrows move over the cells as hovering does
    # (outline, explanation), Enter or Space clicks (follows the cell's query). Without it a
    # keyboard user could not follow a query nor read how a cell was computed.
    _MOVES: ClassVar[dict[Qt.Key, tuple[int, int]]] = {
        Qt.Key.Key_Up: (-1, 0),
        Qt.Key.Key_Down: (1, 0),
        Qt.Key.Key_Left: (0, -1),
        Qt.Key.Key_Right: (0, 1),
    }

    def keyPressEvent(self, event: QKeyEvent) -> None:
        plot, key = self.plot, event.key()
        plain = not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        if plot.matrix is None or not plain:
            super().keyPressEvent(event)
            return
        rows, cols = plot.matrix.shape
        if self.key_cell is not None:  # the matrix may have shrunk since (an undo, d_out)
            self.key_cell = (min(self.key_cell[0], rows - 1), min(self.key_cell[1], cols - 1))
        if key in self._MOVES:
            if self.key_cell is None:  # the first press shows where the cursor starts
                followed = plot._highlight
                row = followed if followed is not None and 0 <= followed < rows else 0
                self.key_cell = (row, 0)
            else:
                step_row, step_col = self._MOVES[key]
                row, col = self.key_cell
                self.key_cell = (
                    min(max(row + step_row, 0), rows - 1),
                    min(max(col + step_col, 0), cols - 1),
                )
            row, col = self.key_cell
            centre = plot.view.mapViewToScene(QPointF(col + 0.5, row + 0.5))
            on_screen = self.viewport().mapToGlobal(self.mapFromScene(centre))
            plot._hover(self.key_cell, QPointF(on_screen))
        elif key in (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space) and self.key_cell:
            plot.cellClicked.emit(*self.key_cell)
        else:
            super().keyPressEvent(event)

    @staticmethod
    def key_rows() -> list[tuple[str, str]]:
        """What keyPressEvent answers to, for Help > Keyboard Shortcuts."""
        return [
            (_tr("Move over the cells: outline one and explain it"), "↑ ↓ ← →"),
            (_tr("Follow the query of that cell's row"), _tr("Enter, Space")),
        ]

    def focusOutEvent(self, event: object) -> None:
        if self.key_cell is not None:
            self.key_cell = None
            self.plot._hover(None, None)
        super().focusOutEvent(event)
