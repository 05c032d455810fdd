"""Figure files: PNG at 1×/2×/4×, SVG and PDF, every stage at once, and refusals that leave
earlier files whole."""

import re
import shutil
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest
import shiboken6
from pypdf import PdfReader
from PySide6.QtGui import QImage

from attn_explorer.engine import STEP_KEYS, compute, preset
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.export.figures import (
    FigureError,
    FigureSpec,
    export_all_stages,
    export_figure,
)

SVG = "{http://www.w3.org/2000/svg}"

# Every stage takes seconds to draw, and a size refused for them is refused after trying each
# stage up to four times: what several tests only read (or copy) is drawn once, here, and the
# tests run on one test worker (`xdist_group`), where two workers would each draw it again.
pytestmark = pytest.mark.xdist_group("figure_files")


@pytest.fixture(scope="module")
def wrapper(qapp):
    """What the `trace` fixture computes (the wrapper example), for the shared figures."""
    configure_pyqtgraph()
    return compute(preset("wrapper").config)


@pytest.fixture(scope="module")
def stage_files(wrapper, tmp_path_factory, refused_250x150):
    """`stage_files(fmt)`: every stage of the wrapper example at the size advised when 250×150
    was refused, written once per format to a folder of its own; the list export_all_stages
    returned. (Written whole at that size, they show that the advice fits every stage.)"""
    written = {}

    def stages(fmt: str) -> list:
        if fmt not in written:
            folder = tmp_path_factory.mktemp(f"stages-{fmt}") / "steps"
            size = advised_size(refused_250x150("svg")[0])
            written[fmt] = export_all_stages(wrapper, folder, fmt, size=size)
        return written[fmt]

    return stages


@pytest.fixture(scope="module")
def stages_pdf(wrapper, tmp_path_factory):
    """Every stage of the wrapper example as one PDF at 1200×700."""
    folder = tmp_path_factory.mktemp("stages-pdf")
    (path,) = export_all_stages(wrapper, folder / "steps.pdf", "pdf", size=(1200, 700))
    return path


@pytest.fixture(scope="module")
def refused_250x150(wrapper, tmp_path_factory):
    """`refused_250x150(fmt)`: every stage of the wrapper example at 250×150, as one PDF or a
    folder of SVG files, refused once per format: the refusal, and whether anything was left
    where the export was asked for."""
    refused = {}

    def refusal(fmt: str) -> tuple[FigureError, bool]:
        if fmt not in refused:
            name = "all.pdf" if fmt == "pdf" else "all"
            target = tmp_path_factory.mktemp(f"refused-{fmt}") / name
            with pytest.raises(FigureError) as caught:
                export_all_stages(wrapper, target, fmt, size=(250, 150))
            refused[fmt] = (caught.value, target.exists())
        return refused[fmt]

    return refusal


def advised_size(refusal: FigureError) -> tuple[int, int]:
    """The size a refusal advises, from its sentence ("… need at least 583×326 px …")."""
    width, height = map(int, re.search(r"(\d+)×(\d+) px", str(refusal)).groups())
    return width, height


@pytest.mark.parametrize("scale", [1, 2, 4])
def test_png_has_the_requested_pixel_size_and_resolution(trace, tmp_path, scale):
    path = export_figure(
        trace, FigureSpec("array", "weights"), tmp_path / "w.png", scale=scale, size=(600, 500)
    )
    image = QImage(str(path))
    assert (image.width(), image.height()) == (600 * scale, 500 * scale)
    assert round(image.dotsPerMeterX() * 0.0254) == 96 * scale
    # Not blank: the darkest cell (weight 1.0, navy #08306b) is in the picture, among every
    # 7th pixel of every 7th row (read whole: pixel by pixel, 100,000 calls at 4×).
    sampled = _pixels(image)[::7, ::7].reshape(-1, 3)
    assert ((sampled == (0x08, 0x30, 0x6B)).all(axis=1)).any()


def test_svg_parses_and_is_vector(trace, tmp_path):
    path = export_figure(
        trace, FigureSpec("array", "weights", head=0), tmp_path / "w.svg", size=(700, 600)
    )
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    for label in ("Your", "journey", "step", "0.4833", "0.5167", "Attention weights"):
        assert label in text
    assert len(list(root.iter(f"{SVG}image"))) <= 1  # the colour bar; cells are rectangles
    assert len(list(root.iter(f"{SVG}path"))) + len(list(root.iter(f"{SVG}rect"))) >= 21


def test_token_names_with_control_characters_give_valid_svg(qapp, tmp_path):
    """A NUL, an escape or U+FFFE in a token name was written raw: the SVG was not XML."""
    config = replace(preset("v1").config, tokens=("a\x00", "b\x1b", "c\ufffe", "d", "e", "f"))
    path = export_figure(compute(config), FigureSpec("array", "weights"), tmp_path / "t.svg")
    root = ET.parse(path).getroot()
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "a␀" in text and "b␛" in text and "c�" in text


def test_a_size_too_small_for_the_figure_is_refused_not_cut(trace, tmp_path, refused_250x150):
    """At 400 × 300 the seven matrices were laid out 579 px wide: three were cut off."""
    with pytest.raises(FigureError, match=r"needs at least [56]\d\d×3\d\d px to fit, not 400×300"):
        export_figure(trace, FigureSpec("matrices"), tmp_path / "m.png", size=(400, 300))
    assert not (tmp_path / "m.png").exists()
    assert export_figure(trace, FigureSpec("matrices"), tmp_path / "m.png", size=(640, 480))
    for fmt in ("pdf", "svg"):
        refusal, left = refused_250x150(fmt)
        assert "the stages need at least" in str(refusal)
        assert not left  # no empty PDF, no empty or half-filled folder
    assert str(refused_250x150("pdf")[0]) == str(refused_250x150("svg")[0])  # the same advice


def test_the_size_advised_for_all_stages_fits_every_stage(refused_250x150, stage_files):
    """The advice named the first stage that did not fit (250×161): exporting at that size
    failed again on a wider stage. A PDF's pages and a folder's files are laid out alike
    (one `Canvas` per stage, which refuses what does not fit) and advised alike (the test
    above): `stage_files` writes every stage at the size advised, as SVG and PNG files."""
    refusal, _ = refused_250x150("svg")
    assert "the stages need at least" in str(refusal)
    width, _height = advised_size(refusal)
    assert width > 400  # the seven-matrix stages are the wide ones
    assert len(stage_files("svg")) == 10


def test_stages_refused_half_way_leave_an_earlier_export_whole(wrapper, stage_files, tmp_path):
    """Stage 1 was written over the earlier one before stage 2 was refused, and the clean-up
    then deleted it: the folder lost 01-embeddings.svg."""
    folder = tmp_path / "steps"
    earlier = [folder / p.name for p in stage_files("svg")]
    shutil.copytree(stage_files("svg")[0].parent, folder)
    before = {p.name: p.read_bytes() for p in earlier}
    with pytest.raises(FigureError, match="the stages need at least"):
        export_all_stages(wrapper, folder, "svg", size=(330, 300))  # stage 1 fits, 2 does not
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_pdf_of_all_stages_has_one_page_per_stage(stages_pdf):
    reader = PdfReader(stages_pdf)
    assert len(reader.pages) == len(STEP_KEYS) == 10
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (900, 525)  # 96 px = 72 pt
    # The two pages read (pypdf takes most of a second to extract a page's text).
    first, sixth = (" ".join(reader.pages[i].extract_text().split()) for i in (0, 5))
    assert "1. Embeddings X" in first and "journey" in first
    assert "6. Softmax" in sixth and "0.5167" in sixth


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_all_stages_as_a_folder(stage_files, fmt):
    written = stage_files(fmt)
    assert [p.name for p in written][:2] == [f"01-embeddings.{fmt}", f"02-projections.{fmt}"]
    assert len(written) == 10 and all(p.stat().st_size > 1000 for p in written)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (FigureSpec("array", "nope"), "has no array 'nope'"),
        (FigureSpec("array", "dropout_keep"), "has no array 'dropout_keep'"),
        (FigureSpec("stage", "nope"), "unknown stage 'nope'"),
        (FigureSpec("array", "weights", head=5), "head 6 does not exist: there are 2"),
    ],
)
def test_impossible_figures_say_why(trace, tmp_path, spec, message):
    with pytest.raises(FigureError, match=message):
        export_figure(trace, spec, tmp_path / "x.png")


def test_bad_format_and_size(trace, tmp_path):
    with pytest.raises(FigureError, match="png, svg or pdf"):
        export_figure(trace, FigureSpec("array", "weights"), tmp_path / "x.gif")
    with pytest.raises(FigureError, match="outside"):
        export_figure(trace, FigureSpec("array", "weights"), tmp_path / "x.png", size=(10, 10))
    with pytest.raises(FigureError, match="scale must be 1, 2 or 4"):
        export_figure(trace, FigureSpec("array", "weights"), tmp_path / "x.png", scale=3)


def test_a_stage_that_cannot_be_written_is_named_not_its_temporary_file(
    trace, tmp_path, monkeypatch
):
    """The refusal named '.01-embeddings.svg.b7a93e51.partial', a file the user never saw."""
    from attn_explorer.io import atomic

    real_open = atomic.os.open

    def refuse(path, *args, **kwargs):
        if str(path).endswith(".partial"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(atomic.os, "open", refuse)
    with pytest.raises(PermissionError) as caught:
        export_all_stages(trace, tmp_path / "steps", "svg", size=(800, 500))
    assert caught.value.filename == str(tmp_path / "steps" / "01-embeddings.svg")


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_a_figure_that_fails_half_way_says_why_and_leaves_the_earlier_one(
    trace, tmp_path, fmt, disk_full_after
):
    """A disk that filled while writing an SVG or a PDF was not noticed: the export reported
    success and left half a figure, in place of the earlier one. A PNG said only "could not
    write"."""
    path = tmp_path / f"w.{fmt}"
    export_figure(trace, FigureSpec("matrices"), path, size=(900, 600))
    before = path.read_bytes()
    assert len(before) > 8192
    with disk_full_after(4096), pytest.raises(OSError) as caught:
        export_figure(trace, FigureSpec("array", "weights"), path, size=(900, 600))
    assert caught.value.strerror == "File too large" and caught.value.filename == str(path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [f"w.{fmt}"], "a temporary file stayed"


def test_stages_that_fail_half_way_leave_the_earlier_pdf(stages_pdf, tmp_path, disk_full_after):
    """Over the wrapper example's stages, the simple example's (the fewest matrices to draw)."""
    path = tmp_path / "steps.pdf"
    shutil.copyfile(stages_pdf, path)
    before = path.read_bytes()
    with disk_full_after(4096), pytest.raises(OSError, match="File too large"):
        export_all_stages(compute(preset("simple").config), path, "pdf", size=(900, 600))
    assert path.read_bytes() == before


def _pixels(image: QImage) -> np.ndarray:
    """(height, width, 3) RGB of an image."""
    image = image.convertToFormat(QImage.Format.Format_RGB888)
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1)
    # A copy: the converted image, and the memory its bits are in, go with this function.
    return rows[:, : 3 * image.width()].reshape(image.height(), image.width(), 3).copy()


def _orange(rgb: np.ndarray) -> np.ndarray:
    """Where the followed query's outline (#ff8c00) is drawn."""
    r, g, b = (rgb[..., i].astype(int) for i in range(3))
    return (r > 200) & (abs(g - 140) < 40) & (b < 80)


def _svg_strokes(path) -> list[tuple[str, float, float, bool]]:
    """Each stroked shape of an SVG: its colour, stroke width, the scale its group's transform
    draws it at, and whether it asks for a non-scaling stroke."""
    strokes = []
    for group in ET.parse(path).getroot().iter(f"{SVG}g"):
        colour = group.get("stroke", "none")
        if colour == "none":
            continue
        a, b, c, d, *_ = map(float, re.findall(r"[-\d.e]+", group.get("transform", "1,0,0,1")))
        scale = abs(a * d - b * c) ** 0.5
        width = float(group.get("stroke-width", "1"))
        for shape in group:
            if shape.tag.split("}")[1] in ("rect", "path", "polyline", "line", "polygon"):
                fixed = shape.get("vector-effect") == "non-scaling-stroke"
                strokes.append((colour, width, scale, fixed))
    return strokes


@pytest.mark.parametrize(
    "spec",
    [
        FigureSpec("array", "weights_dropped", query=2),
        FigureSpec("matrices", query=2),
        FigureSpec("stage", "softmax", query=2),
    ],
)
def test_svg_outlines_are_drawn_the_same_by_renderers_that_ignore_vector_effect(
    qapp, tmp_path, spec
):
    """The followed query's box was a cosmetic pen: written as a 3-unit non-scaling stroke
    under the cells' ~100× scale, which ImageMagick 6 and librsvg drew as a 300 px orange
    blob over the matrix. Every stroke is now as wide without vector-effect as with it."""
    configure_pyqtgraph()
    trace = compute(preset("dropout").config)
    path = export_figure(trace, spec, tmp_path / "f.svg")
    strokes = _svg_strokes(path)
    outlines = [(w, s) for colour, w, s, _ in strokes if colour == "#ff8c00"]
    assert outlines and all(w * s == pytest.approx(3) for w, s in outlines)
    scaled = [(c, w, s) for c, w, s, fixed in strokes if fixed and abs(s - 1) > 1e-6]
    assert scaled == []  # a renderer ignoring vector-effect draws these at their width


def test_a_png_at_2x_draws_the_outline_twice_as_thick_as_at_1x(qapp, tmp_path):
    """A cosmetic pen ignored the PNG's scale: in the seven matrices the followed query's box
    was 3 px thick at 1× and at 2× alike, half as thick against the figure as on screen."""
    configure_pyqtgraph()
    trace = compute(preset("mha").config)
    spec = FigureSpec("matrices", query=1)
    thickness = []
    for scale in (1, 2):
        path = export_figure(trace, spec, tmp_path / f"m{scale}.png", scale=scale)
        rgb = _pixels(QImage(str(path))).astype(float)
        # Down a column through the scores' keys "journey" cannot see (x = 350 of 1500, the
        # first 300 px), where the box's top and bottom edges lie on grey hatching: there
        # red minus blue is the share of orange in a pixel, so the column's sum is the
        # edges' thickness, anti-aliasing included.
        column = rgb[: 300 * scale, 350 * scale]
        orange = np.clip((column[:, 0] - column[:, 2]) / 255, 0, 1)
        thickness.append(orange.sum() / 2)  # two edges
    assert thickness[0] == pytest.approx(3, abs=0.5)
    assert thickness[1] == pytest.approx(2 * thickness[0], rel=0.15)


def test_the_caption_is_text_in_an_svg(qapp, tmp_path):
    configure_pyqtgraph()
    trace = compute(preset("causal").config)
    path = export_figure(trace, FigureSpec("array", "weights", query=1), tmp_path / "w.svg")
    text = " ".join("".join(t.itertext()) for t in ET.parse(path).getroot().iter(f"{SVG}text"))
    for words in ("Rows: queries", "followed query 2", "hidden by the causal mask"):
        assert words in text


def test_an_svg_is_white_behind_the_figure_as_the_png_is(trace, tmp_path):
    """The SVG had no background: viewers showed it on black or a checkerboard where the
    PNG is white. Its first shape is now a white rectangle over the whole figure, painted by
    the canvas every figure is drawn on (a view, the seven matrices or a stage alike)."""
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgRenderer

    path = export_figure(trace, FigureSpec("array", "weights", head=0), tmp_path / "f.svg")
    root = ET.parse(path).getroot()
    width, height = root.get("viewBox").split()[2:]
    parents = {child: parent for parent in root.iter() for child in parent}
    first = next(e for e in root.iter() if e.tag in (f"{SVG}rect", f"{SVG}path", f"{SVG}image"))
    assert first.tag == f"{SVG}rect"
    assert (first.get("x"), first.get("y"), first.get("width"), first.get("height")) == (
        "0",
        "0",
        width,
        height,
    )
    assert parents[first].get("fill") == "#ffffff"
    # As a viewer draws it on a transparent canvas: the corners are opaque white.
    renderer = QSvgRenderer(str(path))
    image = QImage(int(width), int(height), QImage.Format.Format_ARGB32)
    image.fill(0)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    for x, y in ((0, 0), (image.width() - 1, image.height() - 1), (image.width() - 1, 0)):
        assert image.pixelColor(x, y).name(image.pixelColor(x, y).NameFormat.HexArgb) == (
            "#ffffffff"
        )


@pytest.fixture
def built_figures(monkeypatch):
    """Every figure the export builds, kept here to be asked afterwards whether it still
    exists."""
    from attn_explorer.ui.export import render, stages

    built = []

    def recording(real):
        def build(*args, **kwargs):
            built.append(real(*args, **kwargs))
            return built[-1]

        return build

    monkeypatch.setattr(render, "build_figure", recording(render.build_figure))
    monkeypatch.setattr(stages, "build_figure", recording(stages.build_figure))
    return built


def test_a_written_figure_is_deleted_at_once_not_left_to_the_collector(
    trace, tmp_path, built_figures
):
    # A parentless figure left to the garbage collector can be freed from its middle and
    # take the process down (see `discard`): written or refused, it is deleted whole at once.
    export_figure(trace, FigureSpec("array", "weights"), tmp_path / "w.png", size=(600, 500))
    with pytest.raises(FigureError):
        export_figure(trace, FigureSpec("matrices"), tmp_path / "m.svg", size=(120, 90))
    assert len(built_figures) == 2
    assert [shiboken6.isValid(figure) for figure in built_figures] == [False, False]


def test_every_stage_figure_is_deleted_once_the_stages_are_written(
    wrapper, tmp_path, built_figures
):
    export_all_stages(wrapper, tmp_path / "steps.pdf", "pdf", size=(1200, 700))
    assert len(built_figures) == len(STEP_KEYS)
    assert not any(shiboken6.isValid(figure) for figure in built_figures)
