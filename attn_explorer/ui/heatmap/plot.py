"""One matrix as a graphics item: title, token axes, colour bar, cells, values, hatching.

`MatrixPlot` is a graphics item (not a widget), so the same object draws on screen, inside the
step-through and into exported SVG/PDF/PNG figures: exported figures are the screen's own
drawing code. Everything heavy is created once; `set_matrix` updates in place and only re-sets
tick labels when the labels changed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPen
from PySide6.QtWidgets import QGraphicsItem, QSizePolicy

from attn_explorer.engine.config import FLOAT32_MAX
from attn_explorer.ui.heatmap.axis import RowAxis, TokenAxis, _slanted_fits, _widest, left_to_right
from attn_explorer.ui.heatmap.cell_image import CellHover, CellImage
from attn_explorer.ui.heatmap.cell_text import MAX_TEXT_CELLS, CellTextItem, cell_strings
from attn_explorer.ui.heatmap.colorbar import CATEGORY_LABELS, CMAPS, ColorBar
from attn_explorer.ui.heatmap.containers import Layout, draw_nothing, set_attributes
from attn_explorer.ui.heatmap.hatching import HatchItem
from attn_explorer.ui.heatmap.labels import ShrinkingLabel, display_token
from attn_explorer.ui.heatmap.levels import _same, display_grid, levels_for
from attn_explorer.ui.heatmap.outline import HIGHLIGHT, OutlineItem
from attn_explorer.ui.text_size import text_size

LABEL_PX = 15  # minimum pixels per tick label before labels are thinned out


class MatrixPlot(Layout):
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
        axes = {"top": self.top_axis, "left": RowAxis("left")}
        # The axes write tokens, never a unit: pyqtgraph would otherwise write each one's
        # (hidden, empty) unit label again on every change of its range, hundreds of times
        # while a window lays itself out.
        for axis in axes.values():
            axis.autoSIPrefix = False
        # No context menu, decided at construction: disabling it afterwards deletes a built
        # menu, 45 ms a plot at startup.
        self.plot: pg.PlotItem = self.addPlot(row=1, col=0, axisItems=axes, enableMenu=False)
        for side in ("bottom", "right"):  # made by the plot, and hidden
            self.plot.getAxis(side).autoSIPrefix = False
        self.plot.hideButtons()
        self.plot.showAxis("top")
        self.plot.hideAxis("bottom")
        self.view: pg.ViewBox = self.plot.getViewBox()
        draw_nothing(self, self.plot, self.view)  # no border, no background
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
        self._levels: tuple[float, float, bool] | None = None  # the colour bar's, as set
        self._hidden_given: np.ndarray | None = None
        self._hidden_pooled: np.ndarray | None = None  # the hidden cells at screen resolution
        self.kind = self.name = ""  # kind: no colour map yet
        self.levels: tuple[float, float] = (0.0, 1.0)  # the colour scale of the cells shown
        self._lut, self._dark_lut = np.zeros(256, np.uint32), np.zeros(256, bool)
        self._row_labels: tuple[str, ...] = ()
        self._col_labels: tuple[str, ...] = ()
        self._tick_state: tuple | None = None
        self._label_widths: tuple = (None, 0.0, 0.0)  # (labels and font measured, rows, columns)
        self._shown_ticks: tuple[list[str], list[str]] = ([], [])
        self._highlight: int | None = None
        self._neg_inf_text = self.over = False  # over: see ColorBar.set_levels
        # A row of matrices (MatrixRow) may leave the row labels to the matrix on the left,
        # and the colour bar to the one on the right, where they would say the same.
        self.row_labels_shown, self.colorbar_shown = True, colorbar
        # Counts the changes that set_matrix, set_title, set_highlight, clear and a new text
        # size make: a view that paints several plots at once (OnePaintPass) repaints those
        # whose count moved. New tick labels do not count: they re-lay out the plot, which
        # OnePaintPass notices through layout_key(). `frame_revision` counts those drawn
        # around the cells (title, tick labels, colour map, bar shown): see OnePaintPass.
        self.revision = self.frame_revision = 0
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
        self.revision, self.frame_revision = self.revision + 1, self.frame_revision + 1
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
        """Outlines and hatching in plain device-pixel pens, not cosmetic ones: exported
        figures, drawn alike by SVG renderers and PNG scales (see OutlineItem)."""
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
            self.revision, self.frame_revision = self.revision + 1, self.frame_revision + 1

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
        self.revision, self.frame_revision = self.revision + 1, self.frame_revision + 1

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
            self.revision, self.frame_revision = self.revision + 1, self.frame_revision + 1

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
        # The same mask as before (every seed move): its pooled picture and hatching stand.
        same_hidden = _same(hidden, self._hidden_given)
        if (
            request == self._request
            and self.matrix is not None
            and same_hidden
            and _same(matrix, self.matrix)
        ):
            return  # unchanged (the mask on a seed move): no update, no repaint
        shown = hidden if hidden is not None and hidden.any() else None
        set_attributes(self, revision=self.revision + 1, _request=request, _hidden_given=hidden)
        set_attributes(self, matrix=matrix, hidden=shown, name=name)
        values = matrix.astype(np.float32, copy=False)
        # Everything below runs at screen resolution: a 1024-token matrix is pooled first.
        display = display_grid(values, kind, infinite=shown is not None)
        pooled = display is not values
        hidden_display = shown
        pooled_hidden = None
        if pooled and shown is not None:
            kept = self._hidden_pooled
            same = same_hidden and kept is not None
            pooled_hidden = kept if same else display_grid(shown, "mask")
            hidden_display = pooled_hidden
        masked = hidden_display if hidden_display is not None else False
        has_nan = hidden_display is not None or not np.isfinite(display).all()
        if has_nan:
            display = np.where(masked, np.nan, display)
            display[~np.isfinite(display)] = np.nan  # masked (NaN) cells: hatched, not coloured
        if levels is None:
            source = display
            if pooled and kind == "signed" and not has_nan:
                # Block means would hide the extremes; with every cell finite and shown they
                # are the matrix's largest and smallest (a tenth of pooling the sizes).
                source = np.array([np.max(values), np.min(values)])
            elif pooled and kind == "signed":
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
            # Which colours take white text: decided once per colour, not once per cell.
            luminance = (0.299 * lut[:, 0] + 0.587 * lut[:, 1] + 0.114 * lut[:, 2]) / 255
            self._dark_lut = luminance < 0.5
            if self.colorbar is not None:
                self.colorbar.set_colormap(CMAPS[kind])
            self.kind = kind
            self._levels = None
            self.frame_revision += 1
        # One LUT lookup colours the cells (BGRA, masked cells transparent over the hatching)
        # and tells the cell text which background it sits on.
        span = hi - lo if hi > lo else 1.0
        nan = np.isnan(display) if has_nan else None
        scale = 255.0 / span
        if scale > FLOAT32_MAX or max(abs(lo), abs(hi)) > FLOAT32_MAX / 2:
            # float32 cannot hold the factor of a span below 1e-36 (scores of embeddings near
            # 1e-20), nor a level beyond its range or a span above it (embeddings of ±3e38,
            # levels ±4e38): float64 holds them, and every cell gets its own colour.
            display = display.astype(np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            # Within these levels an overflow is a cell far beyond one end of the scale (the
            # levels given, shared with other matrices): ±inf, clipped to that end's colour,
            # which is the cell's colour. A NaN cell's index is left as the cast makes it:
            # its colour and its ink are both overwritten below.
            index = display - lo  # clipped as np.clip does, without its Python wrappers:
            np.maximum(np.multiply(index, scale, out=index), 0, out=index)
            index = np.minimum(index, 255, out=index).astype(np.uint8)
        argb = np.take(self._lut, index)  # (h, w) uint32 = BGRA bytes on little-endian
        if has_nan:
            argb[nan] = 0  # premultiplied transparent
        frame = QRectF(0, 0, matrix.shape[1], matrix.shape[0])
        self.image.set_cells(argb, frame, not has_nan)
        # Weights are scaled to a percentile: the largest may lie beyond the bar's end.
        over = kind == "weights" and bool(np.fmax.reduce(display, axis=None) > hi)
        bar, scale = self.colorbar, (lo, hi, over)
        if bar is not None and scale != self._levels:
            bar.set_levels(lo, hi, CATEGORY_LABELS.get(kind), over)
        set_attributes(self, levels=(lo, hi), over=over, _levels=scale)
        set_attributes(self, _hidden_pooled=pooled_hidden, _neg_inf_text=neg_inf_text)
        hatch = self._hatch
        if frame != hatch.rect():
            hatch.setRect(frame)
            self.view.setRange(frame, padding=0)
        if not (same_hidden and hidden is not None):  # else hatched as it is already
            hatch.set_hidden(shown)
        self._update_cells(argb, index, nan)
        self.set_labels(tuple(rows), tuple(cols))
        self.set_highlight(self._highlight)

    def clear(self) -> None:
        """Show nothing, and let go of every array shown (they may be views of a whole trace)."""
        self.revision, self.frame_revision = self.revision + 1, self.frame_revision + 1
        self.matrix = None
        self.hidden = self._hidden_given = self._hidden_pooled = None
        self._request = None
        self.shown = None
        self.image.clear()
        self.cells.clear()
        self.set_labels((), ())

    def _update_cells(self, argb: np.ndarray, index: np.ndarray, nan: np.ndarray | None) -> None:
        """The values to write, and which cells are dark enough for white text (`argb`: the
        cells' colours as drawn, `index` their places on the colour map, `nan` the cells left
        uncoloured; text only goes in matrices too small to be pooled)."""
        matrix = self.matrix
        # A long thin matrix (1 × 600) has few cells yet is pooled: one text per drawn cell
        # would not exist, and the shades would not line up with the values.
        if matrix.size > MAX_TEXT_CELLS or argb.shape != matrix.shape:
            self.cells.clear()
            return
        blank = "−∞" if self._neg_inf_text else ""
        kind, hidden = self.kind, self.hidden
        dark = np.take(self._dark_lut, index)
        if nan is not None:
            # A transparent cell (hidden, or not a finite number) shows the white page.
            dark[nan] = False
        self.cells.set_cells_later(
            lambda: cell_strings(matrix, kind, hidden, blank), dark, matrix.shape
        )

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
        # A labelled row at least a line tall, or at large text sizes neighbouring labels
        # run into each other ("journey" into "starts").
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
            # at 1024 px) that width would thin its six tokens to three. The bar is
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
        self.frame_revision += 1
        left_ticks = [
            (i + 0.5, display_token(t)) for i, t in enumerate(rows) if i % row_stride == 0
        ]
        if not shown:
            left_ticks, widest_row = [], -6.0  # an axis of no width
        top_ticks = [(i + 0.5, display_token(t)) for i, t in enumerate(cols) if i % col_stride == 0]
        left = self.plot.getAxis("left")
        left.setTicks([left_ticks])
        # The axes make room for every label, not only the ones shown: sized to the shown
        # ones, a thinning that follows the view's size would change that size, which would
        # change the thinning back, and the views would never settle.
        # pyqtgraph silently drops labels that do not fit.
        left.setWidth(widest_row + 6)
        self.top_axis.set_labels(top_ticks, angle, widest_col - 6)
        self._shown_ticks = ([t for _, t in left_ticks], [t for _, t in top_ticks])

    def _column_labels(self, cell_width: float, widest: float, line: float) -> tuple[int, int]:
        """The column labels' angle and stride for cells `cell_width` wide: horizontal
        where the widest fits, slanted where the last stays above the matrix, else upright
        one line apart. Upright, a label's line (ascent and descent) is wider than its ink
        by the font's leading: labels a line apart do not touch. (At 1.1 lines apart the
        six tokens of the mask at 1024 px, 14.7 px apart, would be thinned to three.)"""
        cols = self._col_labels
        if widest <= cell_width:
            return 0, 1
        if cell_width >= 1.5 * line and _slanted_fits(cols[-1], cell_width, self.axis_font):
            return 45, 1
        return 90, max(1, math.ceil(line / max(cell_width, 1e-6)))

    # ------------------------------------------------------------------ highlight & hover
    def set_highlight(self, row: int | None) -> None:
        """Outline one row (the followed query), or none."""
        set_attributes(self, _highlight=row)
        matrix, box = self.matrix, self._row_box
        if matrix is None or row is None or not 0 <= row < matrix.shape[0]:
            if box.isVisible():
                box.setVisible(False)
                self.revision += 1
            return
        rect = QRectF(0, row, matrix.shape[1], 1)
        if rect != box.rect() or not box.isVisible():
            box.setRect(rect)
            box.setVisible(True)
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
        # Not sceneBoundingRect: that asks pyqtgraph's Python bounds (the same, 0.5 px wider).
        return self.view.mapRectToScene(self.view.rect()).getRect()

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
