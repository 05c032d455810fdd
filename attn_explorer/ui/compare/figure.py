"""The figure `attn-explorer export --compare` writes: one array of A, of B and B − A side by
side, titled with what B changes, and the summary's line about that array beneath."""

from __future__ import annotations

from pathlib import Path

import pyqtgraph as pg

from attn_explorer.engine.compare import Comparison
from attn_explorer.text.compare import array_sentence, first_stage_sentence, settings_sentence
from attn_explorer.ui.compare.diff_plot import show_diff
from attn_explorer.ui.export.build import _caption, _title
from attn_explorer.ui.export.fonts import figure_font
from attn_explorer.ui.export.render import write_figure
from attn_explorer.ui.export.spec import COMPARE_SIZE
from attn_explorer.ui.heatmap import MatrixPlot
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.trace_plots import show_array
from attn_explorer.ui.steps.stage_figure import EXPORT_MARGIN, EXPORT_TITLE_POINTS


def _plot() -> MatrixPlot:
    return MatrixPlot(title_points=EXPORT_TITLE_POINTS, follow_text_size=False)


def build_compare_figure(
    comparison: Comparison, name: str, head: int, vector: bool = False
) -> pg.GraphicsLayout:
    """A, B and B − A of array `name` (one head), not yet laid out; a side that lacks the
    array, or a difference not computed, says so in its title."""
    with figure_font():
        figure = pg.GraphicsLayout()
        margin = EXPORT_MARGIN
        figure.setContentsMargins(margin, margin, margin, margin)
        figure.addItem(_title(f"<b>{settings_sentence(comparison)}</b>"), 0, 0, 1, 3)
        plots = []
        for column, (side, trace) in enumerate((("A", comparison.a), ("B", comparison.b))):
            plot = _plot()
            figure.addItem(plot, 1, column)
            if name in trace:
                shown = min(head, trace.heads - 1)
                show_array(plot, trace, name, shown)
                plot.set_title(_tr("<b>{0}</b> · {1}").format(side, plot.title.text))
            else:
                plot.set_title(_tr("<b>{0}</b> · not computed").format(side))
            plots.append(plot)
        plot = _plot()
        figure.addItem(plot, 1, 2)
        show_diff(plot, comparison, name, head)
        plots.append(plot)
        for plot in plots:
            plot.image.vector_cells = vector
            plot.set_caching(False)
            plot.set_device_pens(True)
            plot.cells.set_scale(1.0)
        lines = [first_stage_sentence(comparison), array_sentence(comparison, comparison[name])]
        figure.addItem(_caption(lines), 2, 0, 1, 3)
        figure.plots = plots
        figure.caption = lines
        return figure


def export_compare_figure(
    comparison: Comparison,
    name: str,
    head: int,
    path: str | Path,
    fmt: str | None = None,
    scale: int = 1,
    size: tuple[int, int] | None = None,
) -> Path:
    """Write the figure of A, B and B − A as PNG, SVG or PDF (from `fmt` or the extension)."""
    return write_figure(
        lambda vector: build_compare_figure(comparison, name, head, vector=vector),
        path,
        fmt,
        size or COMPARE_SIZE,
        scale,
        lambda: settings_sentence(comparison),
    )
