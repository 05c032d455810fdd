"""Every stage of the step-through at once: one multi-page PDF, or a folder of numbered PNG
or SVG files (01-embeddings.png … 10-out_proj.png), all written or none.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from attn_explorer.engine import STEP_KEYS, Trace, step_keys
from attn_explorer.engine.steps import MASK_FIRST_KEYS
from attn_explorer.text.i18n import _
from attn_explorer.text.summaries import config_summary
from attn_explorer.ui.export.build import build_figure
from attn_explorer.ui.export.fonts import figure_font
from attn_explorer.ui.export.render import Canvas, render_pdf, write_figure
from attn_explorer.ui.export.spec import (
    FIGURE_FORMATS,
    FigureError,
    FigureSpec,
    FigureTooSmallError,
    figure_title,
)
from attn_explorer.ui.heatmap.containers import discard

if TYPE_CHECKING:
    import pyqtgraph as pg


def stage_file_names(fmt: str, keys: tuple[str, ...] = STEP_KEYS) -> list[str]:
    """The files a folder of stages holds: 01-embeddings.png … 10-out_proj.png, numbered in
    the order of `keys` (04-mask.png, 05-scale.png where the raw scores are masked first)."""
    return [f"{number:02d}-{key}.{fmt}" for number, key in enumerate(keys, start=1)]


def any_stage_file_names(fmt: str) -> list[str]:
    """The files a folder of stages may hold, in either order of the mask and the scale."""
    names = stage_file_names(fmt)
    return names + [n for n in stage_file_names(fmt, MASK_FIRST_KEYS) if n not in names]


def export_all_stages(
    trace: Trace,
    path: str | Path,
    fmt: str = "pdf",
    head: int = 0,
    query: int | None = 1,
    scale: int = 1,
    size: tuple[int, int] | None = None,
) -> list[Path]:
    """Every stage: one multi-page PDF at `path`, or a folder `path` of PNG or SVG files."""
    path = Path(path)
    fmt = fmt.lower()
    if fmt not in FIGURE_FORMATS:
        raise FigureError(_("figure format must be png, svg or pdf, not {0}").format(repr(fmt)))
    specs = [FigureSpec("stage", key, head, query) for key in step_keys(trace.config)]
    size = size or specs[0].default_size(trace)
    figures = _Figures(trace, specs, vector=fmt != "png")
    with figure_font():  # one change of the application's font for the ten figures
        try:
            if fmt == "pdf":
                title = _("Attention, step by step · {0}").format(config_summary(trace.config))
                return [render_pdf([figures[i] for i in range(len(specs))], path, size, title)]
            return _stage_files(trace, specs, figures, path, fmt, scale, size)
        except FigureTooSmallError as small:
            # The first stage that does not fit is not the only one: advise a size all fit in.
            needed = _size_for_all(figures, small.needed)
            raise FigureTooSmallError(needed, size, stages=True) from None
        finally:
            for index in range(len(figures)):
                figures.release(index)


class _Figures:
    """Each stage's figure, built when first asked for and kept for the export: building a
    stage costs several times laying it out, and a refused size lays every stage out again
    (two or three times) to advise a size they all fit in. A stage written to its file is let
    go (`release`), so a folder of stages holds one figure at a time, as a PDF cannot."""

    def __init__(self, trace: Trace, specs: list[FigureSpec], vector: bool) -> None:
        self.trace, self.specs, self.vector = trace, specs, vector
        self.built: dict[int, pg.GraphicsLayout] = {}

    def __len__(self) -> int:
        return len(self.specs)

    def __getitem__(self, index: int) -> pg.GraphicsLayout:
        if index not in self.built:
            self.built[index] = build_figure(self.trace, self.specs[index], vector=self.vector)
        return self.built[index]

    def release(self, index: int) -> None:
        figure = self.built.pop(index, None)
        if figure is not None:
            discard(figure)


def _stage_files(
    trace: Trace,
    specs: list[FigureSpec],
    figures: _Figures,
    path: Path,
    fmt: str,
    scale: int,
    size: tuple[int, int],
) -> list[Path]:
    """Write every stage under a temporary name, then rename them all: a stage refused
    half-way (a size too small) leaves the folder as it was, earlier stage files included.
    Stage files of the other order of mask and scale are replaced too (removed), as the
    export dialog's question said they would be."""
    created = not path.exists()
    path.mkdir(exist_ok=True)  # not its parents: a mistyped path would leave a trail of folders
    names = stage_file_names(fmt, step_keys(trace.config))
    temporary = [path / f".{name}.{secrets.token_hex(4)}.partial" for name in names]
    try:
        for index, (spec, temp, name) in enumerate(zip(specs, temporary, names, strict=True)):
            try:
                write_figure(
                    lambda _vector, index=index: figures[index],
                    temp,
                    fmt,
                    size,
                    scale,
                    lambda spec=spec: figure_title(trace, spec),
                    keep=True,
                )
            except OSError as error:
                if str(error.filename) == str(temp):  # say the file the user asked for
                    error.filename = str(path / name)
                raise
            figures.release(index)
    except BaseException:
        for temp in temporary:
            temp.unlink(missing_ok=True)
        if created and not any(path.iterdir()):
            path.rmdir()
        raise
    written = [path / name for name in names]
    for temp, final in zip(temporary, written, strict=True):
        os.replace(temp, final)
    # The other order of mask and scale numbers two stages otherwise (04-scale, 05-mask):
    # left in place, a folder exported again in this order would hold both orders' figures.
    for name in any_stage_file_names(fmt):
        if name not in names:
            (path / name).unlink(missing_ok=True)
    return written


def _size_for_all(figures: _Figures, size: tuple[int, int]) -> tuple[int, int]:
    """The least size every stage's figure is laid out in (a few passes: a stage given more
    height may want a different width)."""
    for _pass in range(3):
        grown = size
        for index in range(len(figures)):
            try:
                Canvas(figures[index], grown).close()
            except FigureTooSmallError as small:
                grown = (max(grown[0], small.needed[0]), max(grown[1], small.needed[1]))
        if grown == size:
            break
        size = grown
    return size
