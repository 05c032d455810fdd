"""A built figure laid out offscreen and painted into PNG, SVG or PDF bytes, written
atomically.

A figure is laid out in a GraphicsView that is never shown, at its logical size, then painted
onto the target device: a QImage whose device pixel ratio is the requested scale (so text and
lines are drawn sharp at 2× and 4×, not enlarged), a QSvgGenerator, or a QPdfWriter (one page
per figure). In SVG and PDF, heatmap cells are vector rectangles.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRect, QRectF, QSize, QSizeF
from PySide6.QtGui import (
    QColor,
    QFontInfo,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
)
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication

from attn_explorer.engine import Trace
from attn_explorer.io import atomic
from attn_explorer.io.errors import shown_path
from attn_explorer.text.i18n import _
from attn_explorer.ui.export.build import build_figure
from attn_explorer.ui.export.fonts import figure_font
from attn_explorer.ui.export.spec import (
    PNG_SCALES,
    FigureError,
    FigureSpec,
    FigureTooSmallError,
    check_size,
    figure_title,
    format_of,
)
from attn_explorer.ui.heatmap.containers import discard

DPI = 96  # logical pixels per inch: a figure of 960 px is 10 inches wide in a PDF


class Canvas:
    """A never-shown view that lays a figure out at a given logical size."""

    def __init__(self, figure: pg.GraphicsLayout, size: tuple[int, int]) -> None:
        self.size = size
        with figure_font():  # laid out in the font it is painted in
            self.view = pg.GraphicsView(background="w")
            self.view.setCentralItem(figure)
            self.view.resize(*size)
            self.view.setRange(QRectF(0, 0, *size), padding=0)
            # Layouts, axis sizes and tick thinning settle over a few event-loop passes.
            for _pass in range(4):
                QApplication.processEvents()
                figure.layout.activate()
        self.scene = self.view.scene()
        # Matrices, axes and colour bars have a smallest size; below it the figure would be
        # cut off at the canvas edge (the seven matrices need about 580 px of width).
        laid_out = figure.geometry().size()
        if laid_out.width() > size[0] + 0.5 or laid_out.height() > size[1] + 0.5:
            self.close()
            needed = (
                max(size[0], math.ceil(laid_out.width())),
                max(size[1], math.ceil(laid_out.height())),
            )
            raise FigureTooSmallError(needed, size)

    def paint(self, painter: QPainter) -> None:
        """The figure on white, in every format: the scene paints no background of its own,
        and an SVG without one shows black or checkered in viewers where the PNG is white."""
        area = QRectF(0, 0, *self.size)
        painter.fillRect(area, QColor("white"))
        self.scene.render(painter, area, area)

    def close(self) -> None:
        self.view.setCentralItem(None)
        self.view.deleteLater()


def _check_writable(path: Path) -> None:
    """Fail before painting, with the system's reason, where the file cannot be written.

    The figure is painted into memory and written last (see `_write`): a folder that cannot
    take it is said before the seconds of painting, not after.
    """
    atomic.check_writable(path)  # an OSError goes to the caller, who says it in its language


def _write(path: Path, data: QByteArray | bytes) -> Path:
    """Write a painted figure: atomically, and with the system's reason on failure.

    Not Qt's writers to a file: they say nothing when the disk fills (an SVG or PDF cut short
    is reported written) or only "could not write", and they write in place, so a failure
    would leave half a figure where the earlier one was.
    """
    return atomic.write_bytes(path, bytes(data))


def _set_dpi(image: QImage, dpi: float) -> None:
    image.setDotsPerMeterX(round(dpi / 0.0254))
    image.setDotsPerMeterY(round(dpi / 0.0254))


def render_png(
    figure: pg.GraphicsLayout, path: Path, size: tuple[int, int], scale: int = 1
) -> Path:
    """Write the figure as a PNG of `size` logical pixels drawn at `scale` (1, 2 or 4)."""
    if scale not in PNG_SCALES:
        raise FigureError(_("PNG scale must be 1, 2 or 4, not {0}").format(scale))
    width, height = check_size(size, scale)
    _check_writable(path)
    image = QImage(width * scale, height * scale, QImage.Format.Format_ARGB32)
    if image.isNull():
        raise FigureError(
            _("not enough memory for a {0}×{1} PNG").format(width * scale, height * scale)
        )
    with figure_font():
        canvas = Canvas(figure, (width, height))
        image.setDevicePixelRatio(scale)
        # Paint at the screen's 96 dpi (fonts size by the device's dpi, and the pixel ratio
        # already doubles them), then record the true resolution so the PNG prints at its
        # logical size.
        _set_dpi(image, DPI)
        image.fill(0xFFFFFFFF)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
        canvas.paint(painter)
        painter.end()
        canvas.close()
    _set_dpi(image, DPI * scale)
    data = encoded(image, "png")
    if data is None:
        raise FigureError(_("could not encode the PNG for {0}").format(shown_path(path)))
    return _write(path, data)


def encoded(image: QImage, fmt: str) -> bytes | None:
    """The image as a `fmt` file's bytes, made in memory to be written atomically (None
    where Qt cannot encode it)."""
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    saved = image.save(buffer, fmt)
    buffer.close()
    return bytes(data) if saved else None


def render_svg(
    figure: pg.GraphicsLayout, path: Path, size: tuple[int, int], title: str = ""
) -> Path:
    """Write the figure as an SVG of `size` pixels, its cells and text as vectors."""
    width, height = check_size(size)
    _check_writable(path)
    with figure_font():
        canvas = Canvas(figure, (width, height))
        data = QByteArray()
        buffer = QBuffer(data)
        generator = QSvgGenerator()
        generator.setOutputDevice(buffer)
        generator.setSize(QSize(width, height))
        generator.setViewBox(QRect(0, 0, width, height))
        generator.setResolution(DPI)
        generator.setTitle(title or _("attn_explorer figure"))
        generator.setDescription(_("Made by attn_explorer"))
        painter = QPainter()
        if not painter.begin(generator):
            canvas.close()
            raise FigureError(_("could not write {0}").format(shown_path(path)))
        canvas.paint(painter)
        painter.end()
        canvas.close()
        text = _name_fonts_for_browsers(bytes(data).decode("utf-8"))
    return _write(path, text.encode("utf-8"))


def _name_fonts_for_browsers(text: str) -> str:
    """Qt writes its font alias ("Sans Serif") where an item's font names no family, which
    browsers read as an unknown family and replace by a serif default; name the real family
    (the figure's, see `fonts`) and a generic fallback instead."""
    resolved = QFontInfo(QApplication.font()).family()

    def family(match: re.Match) -> str:
        name = match.group(1)
        names = [resolved] if name in ("Sans Serif", "SansSerif", "") else [name]
        return f'font-family="{", ".join(dict.fromkeys([*names, "sans-serif"]))}"'

    return re.sub(r'font-family="([^"]*)"', family, text)


def render_pdf(
    figures: Sequence[pg.GraphicsLayout], path: Path, size: tuple[int, int], title: str = ""
) -> Path:
    """One page per figure, each page exactly the figure's size (at 96 px per inch)."""
    width, height = check_size(size)
    _check_writable(path)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(DPI)
    writer.setTitle(title or _("attn_explorer figure"))
    writer.setCreator("attn_explorer")
    page = QPageSize(QSizeF(width / DPI, height / DPI), QPageSize.Unit.Inch, "figure")
    writer.setPageLayout(QPageLayout(page, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    # Every page laid out before the file is begun: a figure that does not fit the size is
    # refused without leaving an empty or half-written PDF behind.
    with figure_font():
        canvases: list[Canvas] = []
        try:
            for figure in figures:
                canvases.append(Canvas(figure, (width, height)))
        except FigureError:
            for canvas in canvases:
                canvas.close()
            raise
        painter = QPainter()
        if not painter.begin(writer):
            for canvas in canvases:
                canvas.close()
            raise FigureError(_("could not write {0}").format(shown_path(path)))
        for index, canvas in enumerate(canvases):
            if index:
                writer.newPage()
            canvas.paint(painter)
            canvas.close()
        painter.end()
    del writer  # finishes the document in the buffer
    buffer.close()
    return _write(path, data)


def export_figure(
    trace: Trace,
    spec: FigureSpec,
    path: str | Path,
    fmt: str | None = None,
    scale: int = 1,
    size: tuple[int, int] | None = None,
) -> Path:
    """Write one figure; the format comes from `fmt` or the file extension."""
    return write_figure(
        lambda vector: build_figure(trace, spec, vector=vector),
        path,
        fmt,
        size or spec.default_size(trace),
        scale,
        lambda: figure_title(trace, spec),
    )


def write_figure(
    build: Callable[[bool], pg.GraphicsLayout],
    path: str | Path,
    fmt: str | None,
    size: tuple[int, int],
    scale: int = 1,
    title: Callable[[], str] = str,
    keep: bool = False,
) -> Path:
    """Build a figure (`build(vector)`: its cells as vectors for SVG and PDF) and write it as
    PNG, SVG or PDF, from `fmt` or the extension: every figure file's one last step. `title()`
    (the file's metadata) is asked once the figure is built, which refuses what cannot be.
    The figure is deleted once written (see `discard`) unless `keep`: `build` lent it."""
    path = Path(path)
    chosen = format_of(path, fmt)
    with figure_font():  # one change of the application's font, for building and painting
        figure = build(chosen != "png")
        try:
            if chosen == "png":
                return render_png(figure, path, size, scale)
            name = title()
            if chosen == "svg":
                return render_svg(figure, path, size, name)
            return render_pdf([figure], path, size, name)
        finally:
            if not keep:
                discard(figure)
