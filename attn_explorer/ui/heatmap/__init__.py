"""A labelled matrix heatmap: image, token tick labels, colour bar, cell values, hatched masks.

`MatrixPlot` is a graphics item (not a widget), so the same object draws on screen, inside the
step-through and into exported SVG/PDF/PNG figures: exported figures are the screen's own
drawing code. Everything heavy is created once; `set_matrix` updates in place and only re-sets
tick labels when the labels changed.

What lives where (each module imports only those above it):

- `levels`: colour levels (`levels_for`) and the screen-resolution grid (`display_grid`);
  numbers only, no Qt.
- `glyphs`: glyph runs of cell values, cached per font.
- `cell_text`: `CellTextItem`, the values written in the cells, and how they are formatted.
- `colorbar`: the colour maps (`CMAPS`, `CATEGORY_LABELS`) and `ColorBar`.
- `hatching`: `HatchItem`, the background hatched across masked cells.
- `outline`: `OutlineItem` and the followed row's colour `HIGHLIGHT`.
- `cell_image`: `CellImage`, the coloured cells and the mouse over them (`CellHover`).
- `labels`: `display_token` and `ShrinkingLabel`, the title that shrinks, then cuts.
- `axis`: `TokenAxis`, the column labels upright or slanted, and `left_to_right`.
- `plot`: `MatrixPlot`, one matrix made of all the above.
- `view`: `MatrixView`, a widget showing one `MatrixPlot`, with keyboard moves.

This package re-exports the names the rest of the application and the tests import.
"""

from attn_explorer.ui.heatmap.axis import left_to_right
from attn_explorer.ui.heatmap.cell_image import CellHover
from attn_explorer.ui.heatmap.cell_text import CellTextItem, _cell_texts, _coarse
from attn_explorer.ui.heatmap.colorbar import CATEGORY_LABELS, CMAPS, ColorBar
from attn_explorer.ui.heatmap.glyphs import _Glyphs, _glyphs_of
from attn_explorer.ui.heatmap.labels import ShrinkingLabel, display_token
from attn_explorer.ui.heatmap.levels import _percentile, display_grid, levels_for
from attn_explorer.ui.heatmap.outline import HIGHLIGHT
from attn_explorer.ui.heatmap.plot import MatrixPlot
from attn_explorer.ui.heatmap.view import MatrixView

__all__ = [
    "CATEGORY_LABELS",
    "CMAPS",
    "HIGHLIGHT",
    "CellHover",
    "CellTextItem",
    "ColorBar",
    "MatrixPlot",
    "MatrixView",
    "ShrinkingLabel",
    "_Glyphs",
    "_cell_texts",
    "_coarse",
    "_glyphs_of",
    "_percentile",
    "display_grid",
    "display_token",
    "left_to_right",
    "levels_for",
]
