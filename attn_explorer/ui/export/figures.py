"""Figures for slides, notes and papers: PNG at 1×/2×/4×, SVG and PDF, drawn by the same
graphics items as the screen.

A figure is built offscreen (a GraphicsView that is never shown), laid out at its logical size,
then painted onto the target device: a QImage whose device pixel ratio is the requested scale
(so text and lines are drawn sharp at 2× and 4×, not enlarged), a QSvgGenerator, or a
QPdfWriter (one page per figure). In SVG and PDF, heatmap cells are vector rectangles.
"""

from __future__ import annotations

import html
import math
import os
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRect, QRectF, QSize, QSizeF
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontInfo,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
)
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QApplication

from attn_explorer.engine import ARRAY_INFO, STEP_KEYS, Trace, step_keys
from attn_explorer.engine.steps import MASK_FIRST_KEYS
from attn_explorer.io import atomic
from attn_explorer.io.errors import shown_path
from attn_explorer.text.explain import quote_token
from attn_explorer.text.summaries import config_summary
from attn_explorer.ui.heatmap import (
    CATEGORY_LABELS,
    CMAPS,
    HIGHLIGHT,
    ColorBar,
    MatrixPlot,
    ShrinkingLabel,
)
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.matrices.trace_plots import (
    head_note,
    kind_of,
    same_quantity,
    shared_levels,
    show_array,
)
from attn_explorer.ui.steps.stage_figure import (
    EXPORT_MARGIN,
    EXPORT_TITLE_POINTS,
    MatrixRow,
    StageFigure,
)
from attn_explorer.ui.steps.worked_lines import followed_text, matrices_text
from attn_explorer.ui.text_size import text_size

FIGURE_FORMATS = ("png", "svg", "pdf")
PNG_SCALES = (1, 2, 4)
DPI = 96  # logical pixels per inch: a figure of 960 px is 10 inches wide in a PDF
MATRIX_VIEWS = ("scores", "mask", "weights", "queries", "keys", "values", "context")


class FigureError(ValueError):
    """A figure that cannot be made (bad name, format or size); the message is for the user."""


@dataclass(frozen=True)
class FigureSpec:
    """What to draw.

    kind "array": one array of the trace (`name`), for one head or, with head None, all heads
    side by side; kind "matrices": the main window's seven matrices for one head, with the
    scores and weights its boxes chose; kind "stage": one stage of the step-through (`name` is
    the stage key).
    """

    kind: str
    name: str = ""
    head: int | None = 0
    query: int | None = 1
    scores: str = "masked_scores"
    weights: str = "weights"

    def default_size(self, trace: Trace) -> tuple[int, int]:
        if self.kind == "stage":  # taller with the followed query's worked lines below
            return (1400, 820) if self.query is None else (1400, 920)
        if self.kind == "matrices":  # the same, and a caption below (see figure_caption)
            return (1500, 1000) if self.query is None else (1500, 1060)
        if self.head is None and ARRAY_INFO[self.name].per_head and trace.heads > 1:
            columns = math.ceil(math.sqrt(trace.heads))
            rows = math.ceil(trace.heads / columns)
            return min(480 * columns + 80, 2400), min(440 * rows + 60, 2400)
        return 820, 700


def check_spec(trace: Trace, spec: FigureSpec) -> None:
    """Raise FigureError for a spec that does not fit the trace."""
    if spec.kind == "stage":
        if spec.name not in STEP_KEYS:
            raise FigureError(f"unknown stage {spec.name!r}; stages: {', '.join(STEP_KEYS)}")
    elif spec.kind == "array":
        if spec.name not in trace.arrays:
            known = ", ".join(trace.names)
            raise FigureError(f"this configuration has no array {spec.name!r}; it has: {known}")
    elif spec.kind == "matrices":
        for name in (spec.scores, spec.weights):
            if name not in trace.arrays:
                raise FigureError(f"this configuration has no array {name!r}")
    else:
        raise FigureError(f"unknown figure kind {spec.kind!r}")
    if spec.head is not None and not 0 <= spec.head < trace.heads:
        raise FigureError(f"head {spec.head + 1} does not exist: there are {trace.heads}")


def draws_head(spec: FigureSpec) -> bool:
    """Whether another head would draw another figure of an array; the command line refuses a
    --head that would change nothing (the output, the mask), which the figure would otherwise
    seem to have obeyed. The matrices and the stages take a head, as the window's tabs do (a
    stage that shows every head, or none, is one step of a walk-through that has a head).
    An unknown array name counts as drawing one: `check_spec` says what is wrong with it.
    """
    info = ARRAY_INFO.get(spec.name) if spec.kind == "array" else None
    return info is None or info.per_head


def outlines_query(spec: FigureSpec) -> bool:
    """Whether a figure of an array outlines the followed query: only a matrix with a row per
    query token does (see `_highlight`), so a --query for keys, values or weight matrices
    would change nothing. The matrices and the stages take a query, as for `draws_head`."""
    info = ARRAY_INFO.get(spec.name) if spec.kind == "array" else None
    return info is None or info.rows == "q_tokens"


def _title(text: str) -> ShrinkingLabel:
    """A figure's title, in the size a stage's title has (see text_size.FIGURE_FACTOR)."""
    return ShrinkingLabel(text, size=f"{text_size.points(13, follow=False):g}pt")


def _worked_lines(text: str) -> ShrinkingLabel:
    """The followed query's lines (`followed_text`, `matrices_text`), left-aligned under the
    matrices, in a fixed 11 pt (not the window's text size, nor enlarged for the figure as
    its labels are: softmax's line of sums fills a 1400 px figure at 11 pt)."""
    lines = [html.escape(line).replace("  ", "&nbsp; ") for line in text.split("\n")]
    lines[0] = f"<b>{lines[0]}</b>"
    return _text_block(lines, 11, "#222222")


def _text_block(lines: Sequence[str], points: float, color: str) -> ShrinkingLabel:
    """Lines of HTML, left-aligned under the figure, in `points` whatever the window's text
    size (the label's font is the application's, which follows it)."""
    label = ShrinkingLabel("<br>".join(lines), size=f"{points:g}pt", justify="left", color=color)
    font = QFont(label.item.font())
    font.setPointSizeF(points)
    label.item.setFont(font)
    return label


def _highlight(plot: MatrixPlot, query: int | None) -> None:
    plot.set_highlight(query if ARRAY_INFO[plot.shown.name].rows == "q_tokens" else None)


def _short_title(plot: MatrixPlot) -> str:
    """A plot's name as its title writes it in bold, without its formula or note: "Masked
    scores", "Mask", "Scores" for "Scores ω = Q·Kᵀ"."""
    match = re.search(r"<b>(.*?)</b>", plot.title.text)
    name = html.unescape(re.sub(r"<[^>]+>", "", match.group(1) if match else plot.shown.name))
    return re.split(r" \(| [ωα=]", name)[0]


def _lower_first(name: str) -> str:
    """ "Attention weights" in a sentence: "attention weights" (and "Queries Q": "queries Q")."""
    return name[:1].lower() + name[1:]


def _listed(names: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    if len(names) < 2:
        return "".join(names)
    return _tr("{0} and {1}").format(", ".join(names[:-1]), names[-1])


def figure_caption(trace: Trace, spec: FigureSpec, plots: Sequence[MatrixPlot]) -> list[str]:
    """The legend a figure needs to be read alone (pasted into a slide): how its attention
    matrices are laid out, what the orange box and the hatching are, what the colour bars
    measure. A line of what applies, then one about the colours; none at all where none of
    the first applies (keys K, the weight matrices alone: nothing to explain but colours).

    Text with ▭ for the box (drawn orange by `_caption`); built from the plots as drawn, so
    it cannot name a box or a hatching the figure does not show.
    """
    cfg = trace.config
    clauses = []
    attention = [
        plot
        for plot in plots
        if (ARRAY_INFO[plot.shown.name].rows, ARRAY_INFO[plot.shown.name].cols)
        == ("q_tokens", "k_tokens")
    ]
    if attention and len(attention) == len(plots):
        clauses.append(_tr("Rows: queries · columns: keys"))
    elif attention:
        names = list(dict.fromkeys(_short_title(plot) for plot in attention))
        names = [names[0]] + [_lower_first(name) for name in names[1:]]
        clauses.append(_tr("{0}: rows are queries, columns keys").format(_listed(names)))
    query = spec.query
    if (
        query is not None
        and 0 <= query < cfg.n_q
        and any(ARRAY_INFO[plot.shown.name].rows == "q_tokens" for plot in plots)
    ):
        token = quote_token(cfg.tokens[query])
        clauses.append(_tr("▭ followed query {0} {1}").format(query + 1, token))
    if any(plot.hidden is not None for plot in plots):
        if cfg.causal and cfg.valid_len is not None:
            clauses.append(_tr("hatched: hidden by the causal and padding masks"))
        elif cfg.causal:
            clauses.append(_tr("hatched: hidden by the causal mask"))
        else:
            clauses.append(_tr("hatched: hidden by the padding mask"))
    if not clauses:
        return []
    lines = [" · ".join(clauses)]
    measured = [plot for plot in plots if plot.kind not in CATEGORY_LABELS]  # bars say 0/1
    if spec.kind == "array" and len(plots) > 1:  # every head, one bar
        name = _lower_first(trace.info(spec.name).title)
        lines.append(_tr("Colour bar: {0}, one scale for every head").format(name))
    elif len(measured) == 1 and len(plots) == 1:
        lines.append(_tr("Colour bar: {0}").format(_lower_first(_short_title(plots[0]))))
    elif measured:
        if all(plot.colorbar_shown for plot in plots if plot.colorbar is not None):
            line = _tr("Each colour bar: the values of the matrix on its left")
        else:  # neighbours on one scale share one bar (see MatrixRow)
            line = _tr("Each colour bar: the values of the matrix, or matrices, on its left")
        if spec.kind == "stage" and same_quantity(trace, spec.name):
            line += _tr("; the step's input and output on one scale")
        lines.append(line)
    return lines


def _caption(lines: Sequence[str]) -> ShrinkingLabel:
    """The caption's lines, small and grey under everything else, the box drawn in its
    colour."""
    box = f"<span style='color:{HIGHLIGHT.name()}'>▭</span>"
    escaped = [html.escape(line).replace("▭", box) for line in lines]
    return _text_block(escaped, text_size.points(9, follow=False), "#555555")


def build_figure(trace: Trace, spec: FigureSpec, vector: bool = False) -> pg.GraphicsLayout:
    """The figure's graphics layout (title, token labels, colour bars), not yet laid out."""
    check_spec(trace, spec)
    summary = config_summary(trace.config)
    head = spec.head or 0
    if spec.kind == "stage":
        figure = StageFigure(follow_text_size=False)
        figure.show_stage(trace, spec.name, head, spec.query, summary)
        plots = figure.plots
        if spec.query is not None:
            # A handout carries the arithmetic the lecture showed: the step-through writes it
            # under the matrices, and the exported stage left it out.
            below = figure.layout.rowCount()  # the last row of matrices, however many
            text = followed_text(trace, spec.name, head, spec.query)
            figure.addItem(_worked_lines(text), row=below, col=0)
    else:
        figure = pg.GraphicsLayout()
        margin = EXPORT_MARGIN  # a margin all round, for a slide
        figure.setContentsMargins(margin, margin, margin, margin)
        plots = []
        if spec.kind == "matrices":
            title = _tr("<b>Attention</b>{0} · {1}").format(head_note(trace, head), summary)
            figure.addItem(_title(title), 0, 0)
            names = {"scores": spec.scores, "weights": spec.weights}
            for key in MATRIX_VIEWS:
                plot = MatrixPlot(title_points=EXPORT_TITLE_POINTS, follow_text_size=False)
                show_array(plot, trace, names.get(key, key), head)
                plots.append(plot)
            # Scores, mask and weights above; Q, K, V and the output below. Each row is
            # centred, its cells alike in size across both rows (see MatrixRow): a grid of
            # four columns left a quarter blank above, and gave the 6×6 scores the smallest
            # cells and the 6×2 Q, K, V huge ones.
            # Each matrix keeps its row labels: the figure stands for the window's board.
            rows = (MatrixRow(False, 12, compact=False), MatrixRow(False, 12, compact=False))
            MatrixRow.join(rows)
            rows[0].set_items(plots[:3])
            rows[1].set_items(plots[3:])
            figure.addItem(rows[0], 1, 0)
            figure.addItem(rows[1], 2, 0)
            figure.layout.setVerticalSpacing(16)  # the rows' labels apart
            if spec.query is not None and 0 <= spec.query < trace.config.n_q:
                # As under a stage: the followed query's weights and what they make of V,
                # so the outlined rows are read with their numbers.
                text = matrices_text(trace, spec.weights, head, spec.query)
                figure.addItem(_worked_lines(text), 3, 0)
        elif spec.head is None and ARRAY_INFO[spec.name].per_head and trace.heads > 1:
            plots = _all_heads(figure, trace, spec.name, summary)
        else:
            info = trace.info(spec.name)
            head_text = head_note(trace, head, info.per_head)
            figure.addItem(_title(f"<b>{info.title}</b>{head_text} · {summary}"), 0, 0)
            plot = MatrixPlot(title_points=EXPORT_TITLE_POINTS, follow_text_size=False)
            figure.addItem(plot, 1, 0)
            show_array(plot, trace, spec.name, head)
            plots.append(plot)
    figure.plots = plots
    for plot in plots:
        plot.image.vector_cells = vector
        plot.set_caching(False)  # cached items would be drawn into SVG/PDF as bitmaps
        # Outlines and hatching in plain pens: every SVG renderer, and a PNG at any scale,
        # draws them as at 1× (see OutlineItem).
        plot.set_device_pens(True)
        # The values keep the window's 10 pt (8 where that does not fit): enlarged with the
        # rest of the figure's text, those of the seven matrices' 6×6 scores no longer fit
        # their cells and fell back to a smaller size than before, beside larger ones in Q.
        plot.cells.set_scale(1.0)
        _highlight(plot, spec.query)
    figure.caption = figure_caption(trace, spec, plots)
    if figure.caption:
        below = figure.layout.rowCount()
        columns = max(figure.layout.columnCount(), 1)
        figure.addItem(_caption(figure.caption), row=below, col=0, colspan=columns)
    return figure


def _all_heads(
    figure: pg.GraphicsLayout, trace: Trace, name: str, summary: str
) -> list[MatrixPlot]:
    """Every head of one array in a grid, on one shared colour scale and colour bar."""
    info = trace.info(name)
    columns = math.ceil(math.sqrt(trace.heads))
    rows = math.ceil(trace.heads / columns)
    figure.addItem(
        _title(_tr("<b>{0}</b> · all {1} heads · {2}").format(info.title, trace.heads, summary)),
        0,
        0,
        1,
        columns + 1,
    )
    kind = kind_of(name)
    levels = shared_levels(trace, name)
    plots = []
    for h in range(trace.heads):
        plot = MatrixPlot(colorbar=False, title_points=EXPORT_TITLE_POINTS, follow_text_size=False)
        figure.addItem(plot, 1 + h // columns, h % columns)
        show_array(plot, trace, name, h, levels=levels, title=_tr("<b>head {0}</b>").format(h + 1))
        plots.append(plot)
    bar = ColorBar(CMAPS[kind], follow_text_size=False)
    bar.set_levels(*levels, CATEGORY_LABELS.get(kind), any(plot.over for plot in plots))
    figure.addItem(bar, 1, columns, rows, 1)
    return plots


class FigureTooSmallError(FigureError):
    """A size a figure cannot be laid out in; `needed` is the least that fits."""

    def __init__(
        self, needed: tuple[int, int], size: tuple[int, int], stages: bool = False
    ) -> None:
        what = "the stages need" if stages else "this figure needs"
        super().__init__(
            f"{what} at least {needed[0]}×{needed[1]} px to fit, not "
            f"{size[0]}×{size[1]}: choose a larger size"
        )
        self.needed, self.size, self.stages = needed, size, stages


class _Stage:
    """A never-shown view that lays a figure out at a given logical size."""

    def __init__(self, figure: pg.GraphicsLayout, size: tuple[int, int]) -> None:
        self.size = size
        self.view = pg.GraphicsView(background="w")
        self.view.setCentralItem(figure)
        self.view.resize(*size)
        self.view.setRange(QRectF(0, 0, *size), padding=0)
        # Layouts, axis sizes and tick thinning settle over a few event-loop passes.
        for _ in range(4):
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
        and an SVG without one showed black or checkered in viewers where the PNG is white."""
        area = QRectF(0, 0, *self.size)
        painter.fillRect(area, QColor("white"))
        self.scene.render(painter, area, area)

    def close(self) -> None:
        self.view.setCentralItem(None)
        self.view.deleteLater()


MAX_PNG_PIXELS = 2**27  # 134 million: 512 MB of image in memory while it is painted


def check_size(size: tuple[int, int], scale: int = 1) -> tuple[int, int]:
    """Raise FigureError for a size (at a PNG's scale) no figure is drawn at; the command line
    asks before drawing, to refuse it as the bad argument it is rather than a failed write."""
    width, height = size
    if not (200 <= width <= 8000 and 150 <= height <= 8000):
        raise FigureError(f"figure size {width}×{height} is outside 200×150 to 8000×8000")
    pixels = width * scale * height * scale
    if pixels > MAX_PNG_PIXELS:
        raise FigureError(
            f"a {width}×{height} PNG at {scale}× would be {width * scale}×{height * scale} "
            f"pixels ({pixels * 4 / 2**30:.1f} GB in memory); choose a smaller size or scale "
            f"(at most {MAX_PNG_PIXELS / 1e6:.0f} million pixels)"
        )
    return width, height


def _check_writable(path: Path) -> None:
    """Fail before painting, with the system's reason, where the file cannot be written.

    The figure is painted into memory and written last (see `_write`): a folder that cannot
    take it is said before the seconds of painting, not after.
    """
    atomic.check_writable(path)  # an OSError goes to the caller, who says it in its language


def _write(path: Path, data: QByteArray | bytes) -> Path:
    """Write a painted figure: atomically, and with the system's reason on failure.

    Qt's writers to a file said nothing when the disk filled (an SVG or PDF cut short was
    reported written) or only "could not write"; and they wrote in place, so a failure
    left half a figure where the earlier one had been.
    """
    return atomic.write_bytes(path, bytes(data))


def _set_dpi(image: QImage, dpi: float) -> None:
    image.setDotsPerMeterX(round(dpi / 0.0254))
    image.setDotsPerMeterY(round(dpi / 0.0254))


def render_png(
    figure: pg.GraphicsLayout, path: Path, size: tuple[int, int], scale: int = 1
) -> Path:
    if scale not in PNG_SCALES:
        raise FigureError(f"PNG scale must be 1, 2 or 4, not {scale}")
    width, height = check_size(size, scale)
    _check_writable(path)
    image = QImage(width * scale, height * scale, QImage.Format.Format_ARGB32)
    if image.isNull():
        raise FigureError(f"not enough memory for a {width * scale}×{height * scale} PNG")
    stage = _Stage(figure, (width, height))
    image.setDevicePixelRatio(scale)
    # Paint at the screen's 96 dpi (fonts size by the device's dpi, and the pixel ratio already
    # doubles them), then record the true resolution so the PNG prints at its logical size.
    _set_dpi(image, DPI)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    stage.paint(painter)
    painter.end()
    stage.close()
    _set_dpi(image, DPI * scale)
    data = encoded(image, "png")
    if data is None:
        raise FigureError(f"could not encode the PNG for {shown_path(path)}")
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
    width, height = check_size(size)
    _check_writable(path)
    stage = _Stage(figure, (width, height))
    data = QByteArray()
    buffer = QBuffer(data)
    generator = QSvgGenerator()
    generator.setOutputDevice(buffer)
    generator.setSize(QSize(width, height))
    generator.setViewBox(QRect(0, 0, width, height))
    generator.setResolution(DPI)
    generator.setTitle(title or "attn_explorer figure")
    generator.setDescription("Made by attn_explorer")
    painter = QPainter()
    if not painter.begin(generator):
        stage.close()
        raise FigureError(f"could not write {shown_path(path)}")
    stage.paint(painter)
    painter.end()
    stage.close()
    return _write(path, _name_fonts_for_browsers(bytes(data).decode("utf-8")).encode("utf-8"))


def _name_fonts_for_browsers(text: str) -> str:
    """Qt writes its font alias ("Sans Serif"), which browsers read as an unknown family and
    replace by a serif default; name the real family and a generic fallback instead."""
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
    writer.setTitle(title or "attn_explorer figure")
    writer.setCreator("attn_explorer")
    page = QPageSize(QSizeF(width / DPI, height / DPI), QPageSize.Unit.Inch, "figure")
    writer.setPageLayout(QPageLayout(page, QPageLayout.Orientation.Portrait, QMarginsF(0, 0, 0, 0)))
    # Every page laid out before the file is begun: a figure that does not fit the size is
    # refused without leaving an empty or half-written PDF behind.
    stages: list[_Stage] = []
    try:
        for figure in figures:
            stages.append(_Stage(figure, (width, height)))
    except FigureError:
        for stage in stages:
            stage.close()
        raise
    painter = QPainter()
    if not painter.begin(writer):
        for stage in stages:
            stage.close()
        raise FigureError(f"could not write {shown_path(path)}")
    for index, stage in enumerate(stages):
        if index:
            writer.newPage()
        stage.paint(painter)
        stage.close()
    painter.end()
    del writer  # finishes the document in the buffer
    buffer.close()
    return _write(path, data)


def format_of(path: Path, fmt: str | None) -> str:
    """The format asked for, or else the file's extension."""
    chosen = (fmt or path.suffix.lstrip(".")).lower()
    if chosen not in FIGURE_FORMATS:
        raise FigureError(f"figure format must be png, svg or pdf, not {chosen or 'none'!r}")
    return chosen


def export_figure(
    trace: Trace,
    spec: FigureSpec,
    path: str | Path,
    fmt: str | None = None,
    scale: int = 1,
    size: tuple[int, int] | None = None,
) -> Path:
    """Write one figure; the format comes from `fmt` or the file extension."""
    path = Path(path)
    chosen = format_of(path, fmt)
    size = size or spec.default_size(trace)
    figure = build_figure(trace, spec, vector=chosen != "png")
    title = figure_title(trace, spec)
    if chosen == "png":
        return render_png(figure, path, size, scale)
    if chosen == "svg":
        return render_svg(figure, path, size, title)
    return render_pdf([figure], path, size, title)


def figure_title(trace: Trace, spec: FigureSpec) -> str:
    if spec.kind == "stage":
        return f"{trace.step(spec.name).title} · {config_summary(trace.config)}"
    if spec.kind == "matrices":
        return f"Attention · {config_summary(trace.config)}"
    return f"{trace.info(spec.name).title} · {config_summary(trace.config)}"


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
        raise FigureError(f"figure format must be png, svg or pdf, not {fmt!r}")
    specs = [FigureSpec("stage", key, head, query) for key in step_keys(trace.config)]
    size = size or specs[0].default_size(trace)
    try:
        if fmt == "pdf":
            figures = [build_figure(trace, spec, vector=True) for spec in specs]
            title = f"Attention, step by step · {config_summary(trace.config)}"
            return [render_pdf(figures, path, size, title)]
        return _stage_files(trace, specs, path, fmt, scale, size)
    except FigureTooSmallError as small:
        # The first stage that does not fit is not the only one: advise a size all fit in.
        needed = _size_for_all(trace, specs, small.needed, fmt)
        raise FigureTooSmallError(needed, size, stages=True) from None


def _stage_files(
    trace: Trace, specs: list[FigureSpec], path: Path, fmt: str, scale: int, size: tuple[int, int]
) -> list[Path]:
    """Write every stage under a temporary name, then rename them all: a stage refused
    half-way (a size too small) leaves the folder as it was, earlier stage files included.
    Stage files of the other order of mask and scale are replaced too (removed), as the
    export dialog's question said they would be."""
    created = not path.exists()
    path.mkdir(exist_ok=True)  # not its parents: a mistyped path made a trail of folders
    names = stage_file_names(fmt, step_keys(trace.config))
    temporary = [path / f".{name}.{secrets.token_hex(4)}.partial" for name in names]
    try:
        for spec, temp, name in zip(specs, temporary, names, strict=True):
            try:
                export_figure(trace, spec, temp, fmt, scale, size)
            except OSError as error:
                if str(error.filename) == str(temp):  # say the file the user asked for
                    error.filename = str(path / name)
                raise
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
    # left in place, a folder exported again in this order held both orders' figures.
    for name in any_stage_file_names(fmt):
        if name not in names:
            (path / name).unlink(missing_ok=True)
    return written


def _size_for_all(
    trace: Trace, specs: list[FigureSpec], size: tuple[int, int], fmt: str
) -> tuple[int, int]:
    """The least size every stage's figure is laid out in (a few passes: a stage given more
    height may want a different width)."""
    for _ in range(3):
        grown = size
        for spec in specs:
            try:
                _Stage(build_figure(trace, spec, vector=fmt != "png"), grown).close()
            except FigureTooSmallError as small:
                grown = (max(grown[0], small.needed[0]), max(grown[1], small.needed[1]))
        if grown == size:
            break
        size = grown
    return size
