"""What a figure shows (`FigureSpec`), whether it fits the trace, and the errors a figure
export says to the user.

Qt-free: what a figure shows and its file's title are decided from the trace alone; `build`
and `render` draw it. The errors are said in the current language (`text.i18n`), as the
window and the command line show them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from attn_explorer.engine import ARRAY_INFO, STEP_KEYS, Trace
from attn_explorer.text.i18n import _
from attn_explorer.text.steps import step_text
from attn_explorer.text.summaries import config_summary
from attn_explorer.text.titles import array_title

FIGURE_FORMATS = ("png", "svg", "pdf")
PNG_SCALES = (1, 2, 4)
COMPARE_SIZE = (1500, 640)  # one array of A, of B and B − A side by side


class FigureError(ValueError):
    """A figure that cannot be made (bad name, format or size); the message is for the user."""


class FigureTooSmallError(FigureError):
    """A size a figure cannot be laid out in; `needed` is the least that fits."""

    def __init__(
        self, needed: tuple[int, int], size: tuple[int, int], stages: bool = False
    ) -> None:
        text = (
            _("the stages need at least {0}×{1} px to fit, not {2}×{3}: choose a larger size")
            if stages
            else _(
                "this figure needs at least {0}×{1} px to fit, not {2}×{3}: choose a larger size"
            )
        )
        super().__init__(text.format(*needed, *size))
        self.needed, self.size, self.stages = needed, size, stages


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
            raise FigureError(
                _("unknown stage {0}; stages: {1}").format(repr(spec.name), ", ".join(STEP_KEYS))
            )
    elif spec.kind == "array":
        if spec.name not in trace.arrays:
            known = ", ".join(trace.names)
            raise FigureError(
                _("this configuration has no array {0}; it has: {1}").format(repr(spec.name), known)
            )
    elif spec.kind == "matrices":
        for name in (spec.scores, spec.weights):
            if name not in trace.arrays:
                raise FigureError(_("this configuration has no array {0}").format(repr(name)))
    else:
        raise FigureError(_("unknown figure kind {0}").format(repr(spec.kind)))
    if spec.head is not None and not 0 <= spec.head < trace.heads:
        raise FigureError(
            _("head {0} does not exist: there are {1}").format(spec.head + 1, trace.heads)
        )


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
    query token does (see `build._highlight`), so a --query for keys, values or weight matrices
    would change nothing. The matrices and the stages take a query, as for `draws_head`."""
    info = ARRAY_INFO.get(spec.name) if spec.kind == "array" else None
    return info is None or info.rows == "q_tokens"


MAX_PNG_PIXELS = 2**27  # 134 million: 512 MB of image in memory while it is painted


def check_size(size: tuple[int, int], scale: int = 1) -> tuple[int, int]:
    """Raise FigureError for a size (at a PNG's scale) no figure is drawn at; the command line
    asks before drawing, to refuse it as the bad argument it is rather than a failed write."""
    width, height = size
    if not (200 <= width <= 8000 and 150 <= height <= 8000):
        raise FigureError(
            _("figure size {0}×{1} is outside 200×150 to 8000×8000").format(width, height)
        )
    pixels = width * scale * height * scale
    if pixels > MAX_PNG_PIXELS:
        # The numbers formatted here, not in the sentence: a decimal point in every language.
        raise FigureError(
            _(
                "a {width}×{height} PNG at {scale}× would be {pixel_width}×{pixel_height} "
                "pixels ({gigabytes} GB in memory); choose a smaller size or scale "
                "(at most {millions} million pixels)"
            ).format(
                width=width,
                height=height,
                scale=scale,
                pixel_width=width * scale,
                pixel_height=height * scale,
                gigabytes=f"{pixels * 4 / 2**30:.1f}",
                millions=f"{MAX_PNG_PIXELS / 1e6:.0f}",
            )
        )
    return width, height


def format_of(path: Path, fmt: str | None) -> str:
    """The format asked for, or else the file's extension."""
    chosen = (fmt or path.suffix.lstrip(".")).lower()
    if chosen not in FIGURE_FORMATS:
        raise not_a_format(chosen)
    return chosen


def not_a_format(chosen: str) -> FigureError:
    """The refusal of a figure format that is none of png, svg and pdf (or none at all)."""
    if not chosen:
        return FigureError(_("figure format must be png, svg or pdf, not 'none'"))
    return FigureError(_("figure format must be png, svg or pdf, not {0}").format(repr(chosen)))


def figure_title(trace: Trace, spec: FigureSpec) -> str:
    """The title an SVG or PDF file carries in its metadata (a viewer's title bar shows it),
    in the language of the figure's own title."""
    if spec.kind == "stage":
        return f"{step_text(trace.step(spec.name)).title} · {config_summary(trace.config)}"
    if spec.kind == "matrices":
        return _("Attention · {0}").format(config_summary(trace.config))
    return f"{array_title(trace.config, spec.name)} · {config_summary(trace.config)}"
