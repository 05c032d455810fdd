"""A real model's head importance drawn: a layer × head grid shaded by each head's importance,
and the most important heads as sorted bars, titled with what was measured.

One builder serves the window (shown in a GraphicsLayoutWidget) and the files (laid out and
written by `ui.export.render.write_figure`), so the figure is what the window shows.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtGui import QFont, QFontMetrics

from attn_explorer.lens.grid import HIGH, LOW
from attn_explorer.lens.importance import Importance, column_names, describe, headline
from attn_explorer.ui.export.build import _caption, _title
from attn_explorer.ui.export.fonts import figure_font
from attn_explorer.ui.export.render import write_figure
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.steps.stage_figure import EXPORT_MARGIN

BARS = 16  # the most important heads drawn as bars
NUMBERS_UP_TO = 64  # cells: a grid this small writes each head's number in its cell
BAR_COLOUR = "#3b6ea8"
CAPTION_WIDTH = 140  # characters a caption line holds


def _shades(values: np.ndarray) -> np.ndarray:
    """(layers, heads) → (layers, heads, 3) colours, white for 0 to deep blue for the largest."""
    top = float(np.nanmax(values)) if values.size else 0.0
    level = np.clip(np.nan_to_num(values) / top, 0, 1) if top > 0 else np.zeros_like(values)
    return (LOW + (HIGH - LOW) * level[..., None]).astype(np.uint8)


def _axes(plot: pg.PlotItem) -> None:
    plot.setMenuEnabled(False)
    plot.setMouseEnabled(False, False)
    plot.hideButtons()


def draw_grid(plot: pg.PlotItem, result: Importance) -> None:
    """Layers down, heads across, each cell shaded by its importance (the first measure)."""
    plot.clear()
    _axes(plot)
    plot.showAxis("top")
    plot.hideAxis("bottom")
    image = pg.ImageItem(_shades(result.primary), axisOrder="row-major")
    plot.addItem(image)
    view = plot.getViewBox()
    view.invertY(True)
    view.setAspectLocked(True)
    plot.getAxis("top").setTicks(
        [[(h + 0.5, _tr("H{number}").format(number=h + 1)) for h in range(result.heads)]]
    )
    plot.getAxis("left").setTicks(
        [[(lay + 0.5, _tr("L{number}").format(number=lay + 1)) for lay in range(result.layers)]]
    )
    if result.layers * result.heads <= NUMBERS_UP_TO:
        top = float(np.nanmax(result.primary)) or 1.0
        for layer in range(result.layers):
            for head in range(result.heads):
                value = float(result.primary[layer, head])
                colour = "w" if value > 0.55 * top else "k"
                text = pg.TextItem(f"{value:.3f}", color=colour, anchor=(0.5, 0.5))
                font = QFont()
                font.setPointSizeF(8)
                text.setFont(font)
                text.setPos(head + 0.5, layer + 0.5)
                plot.addItem(text)
    plot.setTitle(_tr("Every layer × head"))
    view.autoRange(padding=0.02)


def draw_bars(plot: pg.PlotItem, result: Importance, count: int = BARS) -> None:
    """The `count` most important heads, the most important on top."""
    plot.clear()
    _axes(plot)
    ranking = result.ranking()[:count]
    shown = len(ranking)
    heights = np.arange(shown)[::-1]
    widths = np.nan_to_num([row[2] for row in ranking])
    plot.addItem(
        pg.BarGraphItem(x0=0, y=heights, height=0.7, width=widths, brush=BAR_COLOUR, pen=None)
    )
    ticks = [
        (int(y), _tr("L{layer} H{head}").format(layer=row[0] + 1, head=row[1] + 1))
        for y, row in zip(heights, ranking, strict=True)
    ]
    left = plot.getAxis("left")
    left.setTicks([ticks])
    # "L12 H12" is wider than an axis's default text room, which would leave the bars unnamed.
    left.setWidth(QFontMetrics(left.font()).horizontalAdvance("L88 H88") + 16)
    plot.getAxis("bottom").setLabel(column_names(result.measure)[0])
    plot.setTitle(_tr("The {count} most important heads").format(count=shown))
    plot.setYRange(-0.5, shown - 0.5, padding=0.02)
    plot.setXRange(0, max(float(widths.max()) if shown else 1.0, 1e-9), padding=0.05)


def build_importance_figure(result: Importance, vector: bool = False) -> pg.GraphicsLayout:
    """Title (what was measured), the grid and the bars side by side, the headline beneath."""
    with figure_font():
        figure = pg.GraphicsLayout()
        figure.setContentsMargins(EXPORT_MARGIN, EXPORT_MARGIN, EXPORT_MARGIN, EXPORT_MARGIN)
        title = _tr("<b>Head importance in {model}</b>").format(model=result.model)
        figure.addItem(_title(title), 0, 0, 1, 2)
        figure.grid_plot = pg.PlotItem()
        figure.bars_plot = pg.PlotItem()
        figure.addItem(figure.grid_plot, 1, 0)
        figure.addItem(figure.bars_plot, 1, 1)
        draw_grid(figure.grid_plot, result)
        draw_bars(figure.bars_plot, result)
        # The caption is cut at the figure's edge, not wrapped: its lines wrapped here.
        figure.caption = [*textwrap.wrap(describe(result), CAPTION_WIDTH), headline(result)]
        figure.addItem(_caption(figure.caption), 2, 0, 1, 2)
        return figure


def figure_size(result: Importance) -> tuple[int, int]:
    """Wide enough for the grid's heads and the bars, tall enough for its layers."""
    height = max(520, 200 + 34 * max(result.layers, min(BARS, result.layers * result.heads)))
    return (max(1100, 600 + 48 * result.heads), min(height, 1400))


def export_importance_figure(
    result: Importance, path: str | Path, fmt: str | None = None, scale: int = 1
) -> Path:
    """Write the importance figure as PNG, SVG or PDF (from `fmt` or the extension)."""
    return write_figure(
        lambda vector: build_importance_figure(result, vector),
        path,
        fmt,
        figure_size(result),
        scale,
        lambda: _tr("Head importance in {model}").format(model=result.model),
    )
