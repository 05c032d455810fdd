"""The colour maps of the four kinds of matrix, and the colour bar that shows one.

The maps live here, beside the bar, because the bar and the cells must colour alike: both
take their colours from `CMAPS`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QLinearGradient,
    QPainter,
    QPen,
    QPixmap,
    QTransform,
)
from PySide6.QtWidgets import QGraphicsItem, QGraphicsWidget, QSizePolicy

from attn_explorer.text.i18n import N_
from attn_explorer.ui.heatmap.containers import set_attributes
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
    "mask": (N_("0 visible"), N_("1 hidden")),
    "keep": (N_("0 dropped"), N_("1 kept")),
}


_PREMULTIPLIED = QImage.Format.Format_ARGB32_Premultiplied
_IDENTITY = QTransform()


class ColorBar(pg.GraphicsWidget):
    """A colour scale with labelled ticks, painted in one pass.

    pyqtgraph's ColorBarItem is a whole plot (view box, four axes, a pixmap) whose axes
    recompute their ticks in Python whenever the range moves: milliseconds per matrix per
    slider move. This bar paints bands and a handful of labels; as bands of colour rather
    than a bitmap it stays vector in SVG and PDF.
    """

    # Qt's own bounds and shape: the item has no transform, so pyqtgraph's (its geometry
    # mapped from the parent) are the same rectangle, computed in Python on every repaint.
    boundingRect = QGraphicsWidget.boundingRect
    shape = QGraphicsWidget.shape

    BAR_PX = 10  # any wider takes room the cells need for their values at 1024 px
    BANDS = 64
    PICTURES = 8  # pictures kept per bar (see `_paint_into_cache`): 90 kB each at 1500x940

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
        self._widths: dict[tuple, float] = {}  # see `_width_for`
        self._pictures: dict[tuple, QImage] = {}  # see `_paint_into_cache`, oldest first
        self._colours: tuple[int, ...] = ()  # the bands' colours: part of a picture's key
        self.revision = 0  # counts the changes of what the bar draws (see MatrixPlot)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self.set_colormap(cmap)
        self._set_font(text_size.points(1.0, follow_text_size))
        self.set_levels(0.0, 1.0)
        if follow_text_size:
            text_size.changed.connect(self._text_size_changed)

    def _set_font(self, factor: float) -> None:
        self.font = QFont()
        self.font.setPointSizeF(8.5 * factor)
        metrics = QFontMetricsF(self.font)
        self._line = metrics.height()
        self.digit = metrics.horizontalAdvance("0")  # how much one more digit widens it
        self._font_key = self.font.key()  # asked on every move; QFont.key() costs 20k

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
        self._colours = tuple(colour.rgb() for colour in self._colors)
        self.revision += 1
        self.update()

    def set_levels(
        self, lo: float, hi: float, labels: Sequence[str] | None = None, over: bool = False
    ) -> None:
        """The range and its ticks: five evenly spaced values, or `labels` at lo and hi.

        `over`: some values lie above `hi` (weights scaled to a percentile) and share its
        colour; the top label says "≥" so that the darkest cells are not read as equal to it.
        """
        set_attributes(self, levels=(lo, hi), _labels=labels, over=over)
        tip = ""
        if labels is not None:
            texts = self._category_texts(labels, self.compact)
            ticks = list(zip((lo, hi), texts, strict=True))
            if self.compact:
                tip = " · ".join(_tr(label) for label in labels)
        else:
            # np.linspace(lo, hi, 5)'s values, by its own sums, at a tenth of its cost.
            step = (hi - lo) / 4
            values = [lo + i * step for i in range(4)] + [hi]
            ticks = [(float(v), f"{v:.3g}") for v in values]
            if over:
                ticks[-1] = (hi, "≥" + ticks[-1][1])
                tip = _tr(
                    "The colour scale ends at {0:.3g}, rounded up from the 99.5th percentile "
                    "of the weights: the few larger ones share its top colour. Hover over a "
                    "cell for its value."
                ).format(hi)
        set_attributes(self, ticks=ticks)
        if tip != self.toolTip():  # an unchanged tooltip still costs an event per move
            self.setToolTip(tip)
        width = self._width_for(text for _, text in ticks)
        # Grow, never shrink: a width that followed every label would re-lay out the whole
        # figure on each slider move.
        if width > self.minimumWidth():
            self.setMinimumWidth(width)
            self.setMaximumWidth(width)
        set_attributes(self, revision=self.revision + 1)
        self.update()

    def _width_for(self, texts: Iterator[str]) -> float:
        # The usual scales (±0.5, ±1, 0..0.6) come back move after move: measured once per
        # set of labels and font.
        key = (tuple(texts), self._font_key)
        width = self._widths.get(key)
        if width is None:
            metrics = QFontMetricsF(self.font)
            widest = max(metrics.horizontalAdvance(text) for text in key[0])
            width = self.BAR_PX + 8 + widest + 2  # the plot's own margin follows
            if len(self._widths) > 256:
                self._widths.clear()
            self._widths[key] = width
        return width

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
        if (
            widget is None
            and self.cacheMode() == QGraphicsItem.CacheMode.DeviceCoordinateCache
            and isinstance(painter.device(), QPixmap)
            and self._paint_into_cache(painter)
        ):
            return
        self._draw(painter)

    def _paint_into_cache(self, painter: QPainter) -> bool:
        """Paint Qt's cache of the bar (a transparent pixmap) with a picture kept from an
        earlier paint of the same bar, labels and place; False where it cannot.

        The levels change on most seed moves, and come back: a matrix's scale is one of a
        few round numbers (levels.nice_ceiling), and each new one made Qt paint the bar
        again, its gradient and five labels (0.5 M instructions). Painted once into a
        transparent image like Qt's pixmap, with the same transform and hints, a picture
        copied into that pixmap gives its very pixels.
        """
        device = painter.device()
        if painter.hasClipping() or device.devicePixelRatio() != 1:
            return False  # a part of the cache, or a high-DPI one: painted as it is
        t = painter.worldTransform()
        hints = painter.renderHints()
        key = (
            (t.m11(), t.m12(), t.m21(), t.m22(), t.dx(), t.dy()),
            (device.width(), device.height(), int(hints.value)),
            self.rect().getRect(),
            (self._line, self._font_key, self._colours, self.levels, tuple(self.ticks)),
        )
        picture = self._pictures.pop(key, None)
        if picture is None:
            picture = QImage(device.width(), device.height(), _PREMULTIPLIED)
            picture.fill(0)
            own = QPainter(picture)
            own.setRenderHints(own.renderHints(), False)
            own.setRenderHints(hints, True)
            own.setWorldTransform(t)
            self._draw(own)
            own.end()
            if len(self._pictures) >= self.PICTURES:
                del self._pictures[next(iter(self._pictures))]
        self._pictures[key] = picture
        painter.save()
        painter.setWorldTransform(_IDENTITY)
        # Onto Qt's transparent pixmap: the same pixels as painting over it, as a copy.
        painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
        painter.drawImage(0, 0, picture)
        painter.restore()
        return True

    def _draw(self, painter: QPainter) -> None:
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
        # Labels end at the bar's own edge (drawText clips to its rectangle): new, wider
        # labels are painted once before the layout widens the bar, and their ends painted
        # past it would stay on screen, as the view repaints only the bar's own rectangle.
        room = max(self.rect().right() - bar.right() - 6, 0)
        for value, text in self.ticks:
            y = bar.bottom() - (value - lo) / span * bar.height()
            painter.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y))
            painter.drawText(QRectF(bar.right() + 6, y - line / 2, room, line), align, text)
        painter.restore()
