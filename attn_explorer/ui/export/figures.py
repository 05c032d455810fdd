"""Figures for slides, notes and papers: PNG at 1×/2×/4×, SVG and PDF, drawn by the same
graphics items as the screen.

The one name to import figure export by (the window, the command line, the tests); the work is
done in five modules:

- `spec`: what a figure shows (`FigureSpec`), whether it fits the trace and the size, and the
  errors said to the user;
- `build`: the figure's graphics layout and its caption;
- `render`: the layout laid out offscreen and painted into a PNG, SVG or PDF file;
- `stages`: every stage of the step-through at once, in one PDF or a folder of files;
- `fonts`: the shipped font every figure is drawn in, so a Vietnamese figure shows every
  letter on any machine.
"""

from attn_explorer.ui.export.build import MATRIX_VIEWS, build_figure, figure_caption
from attn_explorer.ui.export.render import (
    DPI,
    Canvas,
    encoded,
    export_figure,
    render_pdf,
    render_png,
    render_svg,
)
from attn_explorer.ui.export.spec import (
    FIGURE_FORMATS,
    MAX_PNG_PIXELS,
    PNG_SCALES,
    FigureError,
    FigureSpec,
    FigureTooSmallError,
    check_size,
    check_spec,
    draws_head,
    figure_title,
    format_of,
    outlines_query,
)
from attn_explorer.ui.export.stages import (
    any_stage_file_names,
    export_all_stages,
    stage_file_names,
)

_Stage = Canvas  # the name the layout tests lay a figure out by

__all__ = [
    "DPI",
    "FIGURE_FORMATS",
    "MATRIX_VIEWS",
    "MAX_PNG_PIXELS",
    "PNG_SCALES",
    "Canvas",
    "FigureError",
    "FigureSpec",
    "FigureTooSmallError",
    "_Stage",
    "any_stage_file_names",
    "build_figure",
    "check_size",
    "check_spec",
    "draws_head",
    "encoded",
    "export_all_stages",
    "export_figure",
    "figure_caption",
    "figure_title",
    "format_of",
    "outlines_query",
    "render_pdf",
    "render_png",
    "render_svg",
    "stage_file_names",
]
