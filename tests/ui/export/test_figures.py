"""Figure export: PNG at 1×/2×/4×, SVG and PDF, built from the screen's own graphics items."""

import re
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest
from pypdf import PdfReader
from PySide6.QtGui import QImage

from attn_explorer.engine import STEP_KEYS, compute, preset
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.export.figures import (
    FigureError,
    FigureSpec,
    build_figure,
    export_all_stages,
    export_figure,
)

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def trace(qapp):
    configure_pyqtgraph()
    return compute(preset("wrapper").config)


@pytest.mark.parametrize("scale", [1, 2, 4])
def test_png_has_the_requested_pixel_size_and_resolution(trace, tmp_path, scale):
    path = export_figure(
        trace, FigureSpec("array", "weights"), tmp_path / "w.png", scale=scale, size=(600, 500)
    )
    image = QImage(str(path))
    assert (image.width(), image.height()) == (600 * scale, 500 * scale)
    assert round(image.dotsPerMeterX() * 0.0254) == 96 * scale
    # Not blank: the darkest cell (weight 1.0, navy) is in the picture.
    colours = {
        image.pixelColor(x, y).name()
        for x in range(0, image.width(), 7)
        for y in range(0, image.height(), 7)
    }
    assert "#08306b" in colours


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


def test_a_size_too_small_for_the_figure_is_refused_not_cut(trace, tmp_path):
    """At 400 × 300 the seven matrices were laid out 579 px wide: three were cut off."""
    with pytest.raises(FigureError, match=r"needs at least [56]\d\d×3\d\d px to fit, not 400×300"):
        export_figure(trace, FigureSpec("matrices"), tmp_path / "m.png", size=(400, 300))
    assert not (tmp_path / "m.png").exists()
    assert export_figure(trace, FigureSpec("matrices"), tmp_path / "m.png", size=(640, 480))
    for fmt, target in (("pdf", tmp_path / "all.pdf"), ("svg", tmp_path / "all")):
        with pytest.raises(FigureError, match="the stages need at least"):
            export_all_stages(trace, target, fmt, size=(250, 150))
        assert not target.exists()  # no empty PDF, no empty or half-filled folder


@pytest.mark.parametrize("fmt", ["pdf", "svg"])
def test_the_size_advised_for_all_stages_fits_every_stage(trace, tmp_path, fmt):
    """The advice named the first stage that did not fit (250×161): exporting at that size
    failed again on a wider stage."""
    target = tmp_path / ("all.pdf" if fmt == "pdf" else "all")
    with pytest.raises(FigureError, match=r"the stages need at least") as caught:
        export_all_stages(trace, target, fmt, size=(250, 150))
    width, height = map(int, re.search(r"(\d+)×(\d+) px", str(caught.value)).groups())
    assert width > 400  # the seven-matrix stages are the wide ones
    assert len(export_all_stages(trace, target, fmt, size=(width, height))) in (1, 10)


def test_stages_refused_half_way_leave_an_earlier_export_whole(trace, tmp_path):
    """Stage 1 was written over the earlier one before stage 2 was refused, and the clean-up
    then deleted it: the folder lost 01-embeddings.svg."""
    folder = tmp_path / "steps"
    earlier = export_all_stages(trace, folder, "svg", size=(800, 500))
    before = {p.name: p.read_bytes() for p in earlier}
    with pytest.raises(FigureError, match="the stages need at least"):
        export_all_stages(trace, folder, "svg", size=(330, 300))  # stage 1 fits, 2 does not
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before


def test_pdf_of_all_stages_has_one_page_per_stage(trace, tmp_path):
    (path,) = export_all_stages(trace, tmp_path / "steps.pdf", "pdf", size=(1200, 700))
    reader = PdfReader(path)
    assert len(reader.pages) == len(STEP_KEYS) == 10
    box = reader.pages[0].mediabox
    assert (round(float(box.width)), round(float(box.height))) == (900, 525)  # 96 px = 72 pt
    pages = [" ".join(page.extract_text().split()) for page in reader.pages]
    assert "1. Embeddings X" in pages[0] and "journey" in pages[0]
    assert "6. Softmax" in pages[5] and "0.5167" in pages[5]


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_all_stages_as_a_folder(trace, tmp_path, fmt):
    written = export_all_stages(trace, tmp_path / "steps", fmt, size=(800, 500))
    assert [p.name for p in written][:2] == [f"01-embeddings.{fmt}", f"02-projections.{fmt}"]
    assert len(written) == 10 and all(p.stat().st_size > 1000 for p in written)


def test_a_bias_vector_is_labelled_with_its_symbol(qapp):
    """Its one row was labelled "␣", as a token with an empty name is."""
    configure_pyqtgraph()
    biased = compute(replace(preset("v2").config, qkv_bias=True))
    for name, symbol in (("b_query", "b_q"), ("b_value", "b_v")):
        (plot,) = _plots(build_figure(biased, FigureSpec("array", name)))
        assert plot._shown_ticks[0] == [symbol]


def test_figures_show_the_trace_numbers(trace):
    figure = build_figure(trace, FigureSpec("matrices", head=1))
    shown = {plot.shown.name: plot.matrix for plot in _plots(figure)}
    np.testing.assert_array_equal(shown["weights"], trace.weights[1])
    np.testing.assert_array_equal(shown["context"], trace.context)
    grid = build_figure(trace, FigureSpec("array", "weights", head=None))
    plots = _plots(grid)
    assert [p.shown.head for p in plots] == [0, 1]
    assert plots[0].levels == plots[1].levels  # one colour scale for every head


def _plots(figure):
    return figure.plots


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


def test_long_sequences_are_pooled_for_the_screen_not_for_the_data():
    from attn_explorer.ui.heatmap import display_grid

    values = np.random.default_rng(0).random((1030, 1100)).astype(np.float32)
    values[0, 5] = np.nan  # a masked cell
    pooled = display_grid(values, "weights")
    assert pooled.shape == (344, 367)  # blocks of 3 × 3 cells
    assert pooled[1, 1] == values[3:6, 3:6].max()  # the strongest weight of a block shows
    assert np.isnan(pooled[0, 1])  # a block with a masked cell is drawn masked
    means = display_grid(values, "signed")
    assert means[1, 1] == pytest.approx(values[3:6, 3:6].mean(), rel=1e-6)
    small = values[:512, :512]
    assert display_grid(small, "weights") is small


def test_the_all_heads_colour_bar_marks_weights_beyond_its_scale(qapp):
    """64 causal tokens: the first rows' weights (1.0, 0.5, ...) lie beyond the 99.5th
    percentile that ends the shared scale."""
    from dataclasses import replace as with_fields

    from attn_explorer.model.state import default_state, random_sequence
    from attn_explorer.ui.heatmap import ColorBar

    configure_pyqtgraph()
    tokens = random_sequence(64, 8, seed=3)
    state = with_fields(default_state(), queries=tokens, kv=tokens)
    trace = compute(state.with_controls(num_heads=2, d_out=8, causal=True).config())
    figure = build_figure(trace, FigureSpec("array", "weights", head=None))
    bar = next(item for item in figure.items if isinstance(item, ColorBar))
    assert bar.levels[1] < float(trace.weights.max()) == 1.0
    assert bar.ticks[-1][1] == f"≥{bar.levels[1]:.3g}"


def test_the_command_line_refuses_a_head_or_query_exactly_where_the_figure_ignores_it(
    qapp, tmp_path
):
    """draws_head and outlines_query decide which --head and --query the export refuses for
    an array: each must say yes exactly where another head or query paints another picture."""
    from attn_explorer.ui.export.figures import draws_head, outlines_query

    configure_pyqtgraph()
    trace = compute(preset("mha").config)  # two heads
    names = ("context", "keys", "mask", "w_out", "weights", "x", "values")
    seen = {}
    for name in names:
        spec = FigureSpec("array", name)
        pictures = [
            export_figure(trace, replace(spec, head=h, query=q), tmp_path / f"{n}.png").read_bytes()
            for n, (h, q) in enumerate([(0, 0), (1, 0), (0, 2)])
        ]
        seen[name] = (pictures[0] != pictures[1], pictures[0] != pictures[2])
    decided = {
        n: (draws_head(FigureSpec("array", n)), outlines_query(FigureSpec("array", n)))
        for n in names
    }
    assert decided == seen
    assert [name for name, (head, _) in seen.items() if not head] == [
        "context",
        "mask",
        "w_out",
        "x",
    ]
    assert [name for name, (_, query) in seen.items() if not query] == ["keys", "w_out", "values"]
    # The matrices and every stage take both, as the window's tabs do.
    for spec in [FigureSpec("matrices")] + [FigureSpec("stage", key) for key in STEP_KEYS]:
        assert draws_head(spec) and outlines_query(spec)


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


def test_stages_that_fail_half_way_leave_the_earlier_pdf(trace, tmp_path, disk_full_after):
    path = tmp_path / "steps.pdf"
    export_all_stages(trace, path, "pdf", size=(900, 600))
    before = path.read_bytes()
    with disk_full_after(4096), pytest.raises(OSError, match="File too large"):
        export_all_stages(compute(preset("mha").config), path, "pdf", size=(900, 600))
    assert path.read_bytes() == before


def test_an_exported_stage_carries_the_worked_lines_of_its_query(qapp, tmp_path):
    """A handout carries the arithmetic the lecture showed: the step-through writes the
    followed query's numbers under the matrices, and the exported stage left them out."""
    configure_pyqtgraph()
    v1 = compute(preset("v1").config)
    spec = FigureSpec("stage", "softmax", query=1)
    figure = build_figure(v1, spec)
    (text,) = _worked_lines(figure)
    text = text.replace("&nbsp;", " ")
    assert text.startswith("<b>Following query 2 “journey”:</b><br>")
    assert "α2 = softmax(ω̃2) = [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]" in text
    assert spec.default_size(v1) == (1400, 920)  # room for them below the matrices
    export_figure(v1, spec, tmp_path / "softmax.png", "png")  # fits: not refused as too small
    no_query = FigureSpec("stage", "softmax", query=None)
    assert _worked_lines(build_figure(v1, no_query)) == []
    assert no_query.default_size(v1) == (1400, 820)


def _worked_lines(figure) -> list[str]:
    return [
        item.text
        for item in figure.items
        if hasattr(item, "text") and "Following query" in str(item.text)
    ]


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


def test_exported_labels_and_colour_bars_are_written_larger_than_in_the_window(qapp):
    """At 1500 px the seven matrices' colour-bar ticks were 8.5 pt (11 px) and their token
    labels 9 pt (12 px): smaller than matplotlib writes a figure of that pixel size (14 px),
    a few pixels on a slide. They are enlarged, while the values keep 10 pt and the labels
    of the 6×6 matrices stay horizontal, at the figure's default size."""
    from attn_explorer.ui.export.figures import _Stage
    from attn_explorer.ui.heatmap import MatrixPlot

    configure_pyqtgraph()
    trace = compute(preset("mha").config)
    spec = FigureSpec("matrices")
    figure = build_figure(trace, spec)
    stage = _Stage(figure, spec.default_size(trace))
    window_plot = MatrixPlot()  # as the window draws a matrix at its normal text size

    def pixels(font):
        return font.pointSizeF() * 96 / 72

    try:
        for plot in figure.plots:
            assert pixels(plot.colorbar.font) >= 12.4 > pixels(window_plot.colorbar.font)
            assert pixels(plot.axis_font) > pixels(window_plot.axis_font)
            box = plot.view.sceneBoundingRect()
            rows, cols = plot.matrix.shape
            cell = type(box)(0, 0, box.width() / cols, box.height() / rows)
            assert plot.cells.written(cell)[1].pointSizeF() == 10, plot.shown.name
            assert plot.top_axis.angle == 0, plot.shown.name
    finally:
        stage.close()


@pytest.mark.parametrize(
    ("example", "spec", "caption"),
    [
        (
            "mha",
            FigureSpec("array", "weights", query=1),
            [
                "Rows: queries · columns: keys · ▭ followed query 2 “journey” · hatched: "
                "hidden by the causal mask",
                "Colour bar: attention weights",
            ],
        ),
        (  # no mask: nothing hatched to explain
            "v1",
            FigureSpec("array", "weights", query=1),
            [
                "Rows: queries · columns: keys · ▭ followed query 2 “journey”",
                "Colour bar: attention weights",
            ],
        ),
        (  # no followed query
            "padding",
            FigureSpec("array", "weights", head=None, query=None),
            [
                "Rows: queries · columns: keys · hatched: hidden by the padding mask",
                "Colour bar: attention weights",
            ],
        ),
        (  # rows of Q are queries, its columns are not keys
            "v1",
            FigureSpec("array", "queries", query=1),
            ["▭ followed query 2 “journey”", "Colour bar: queries Q"],
        ),
        (  # rows of keys, no outline, no mask: nothing to explain
            "mha",
            FigureSpec("array", "keys", query=1),
            [],
        ),
        (
            "mha",
            FigureSpec("matrices", query=1),
            [
                "Masked scores, mask and attention weights: rows are queries, columns keys · "
                "▭ followed query 2 “journey” · hatched: hidden by the causal mask",
                "Each colour bar: the values of the matrix on its left",
            ],
        ),
        (
            "mha",
            FigureSpec("stage", "scale", query=1),
            [
                # mha masks the raw scores first (tutorial 000): its scale stage divides ωₘ.
                "Rows: queries · columns: keys · ▭ followed query 2 “journey” · hatched: "
                "hidden by the causal mask",
                "Each colour bar: the values of the matrix on its left; the step's input and "
                "output on one scale",
            ],
        ),
    ],
)
def test_a_figure_says_what_its_rows_box_hatching_and_colours_are(qapp, example, spec, caption):
    """Outside the app nothing said that rows are queries and columns keys, what the orange
    box and the hatching are, nor what a colour bar measures: a figure pasted alone into a
    slide was read wrongly. Each says what applies to it, and only that."""
    configure_pyqtgraph()
    figure = build_figure(compute(preset(example).config), spec)
    assert figure.caption == caption
    shown = [item.text for item in figure.items if "Colour bar" in str(getattr(item, "text", ""))]
    assert len(shown) == (1 if caption and "Colour bar" in caption[-1] else 0)


def test_the_caption_is_text_in_an_svg(qapp, tmp_path):
    configure_pyqtgraph()
    trace = compute(preset("causal").config)
    path = export_figure(trace, FigureSpec("array", "weights", query=1), tmp_path / "w.svg")
    text = " ".join("".join(t.itertext()) for t in ET.parse(path).getroot().iter(f"{SVG}text"))
    for words in ("Rows: queries", "followed query 2", "hidden by the causal mask"):
        assert words in text


@pytest.mark.parametrize(
    ("example", "spec", "lines"),
    [
        (
            "mha",
            FigureSpec("matrices", query=1),
            [
                "<b>Following query 2 “journey”, head 1:</b>",
                "α2 = softmax(ω̃ₘ2) = [0.4776, 0.5224, 0.0000, 0.0000, 0.0000, 0.0000]",
                "z2 = Σⱼ α[2,j]·vⱼ = [-0.5889]",
                "out2 = Z_cat2·W_o + b_o = [0.2943, 0.3897]   (Z_cat2: z2 of every head, side by "
                "side)",
            ],
        ),
        (  # one head, no output projection: the output row is the context
            "v1",
            FigureSpec("matrices", query=1),
            [
                "<b>Following query 2 “journey”:</b>",
                "α2 = softmax(ω̃2) = [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]",
                "out2 = z2 = Σⱼ α[2,j]·vⱼ = [0.3061, 0.8210]",
            ],
        ),
        (  # the weights after dropout, as the matrices show them (tutorial 000 §3.5.2)
            "dropout",
            FigureSpec("matrices", query=2, weights="weights_dropped"),
            [
                "<b>Following query 3 “starts”:</b>",
                "α_d3 = [0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000]",
                "out3 = z3 = Σⱼ α_d[3,j]·vⱼ = [-0.1999, 0.1267]",
            ],
        ),
    ],
)
def test_the_seven_matrices_carry_the_followed_querys_lines(qapp, example, spec, lines):
    """The stage figures wrote the followed query's numbers; the seven matrices did not even
    name the query they outline: its weights row and its output are written under them."""
    configure_pyqtgraph()
    trace = compute(preset(example).config)
    (text,) = _worked_lines(build_figure(trace, spec))
    assert text.replace("&nbsp;", " ").replace("\u00a0", " ").split("<br>") == lines
    assert spec.default_size(trace) == (1500, 1060)  # room for them and the caption
    no_query = replace(spec, query=None)
    assert _worked_lines(build_figure(trace, no_query)) == []
    assert no_query.default_size(trace) == (1500, 1000)


@pytest.mark.parametrize(
    ("spec", "size"),
    [
        (FigureSpec("matrices"), (900, 800)),  # the 6×6 labels slant, the output's too
        (FigureSpec("matrices"), (1500, 1060)),
        (FigureSpec("stage", "scores"), (900, 700)),  # Q, K → ω: ω's labels slant
    ],
)
def test_matrices_of_as_many_rows_have_cells_of_one_height(trace, spec, size):
    """In the seven matrices at 900 px, the context's slanted column labels (h1.1 …) took
    height from its cells: its rows were 33 px where Q's beside it were 36 and the scores'
    above 31, so a token's row stood at another height in each matrix. Every matrix of as
    many rows now has cells of one height, their bottom edges on one line in a row."""
    from attn_explorer.ui.export.figures import _Stage

    figure = build_figure(trace, spec)
    stage = _Stage(figure, size)
    try:
        slanted = [plot.top_axis.angle != 0 for plot in figure.plots]
        boxes = [plot.view.sceneBoundingRect() for plot in figure.plots]
        heights = [box.height() / 6 for box in boxes]
        assert max(heights) - min(heights) < 0.5, (heights, slanted)
        assert min(heights) > 20
        rows: dict[float, list[float]] = {}
        for plot, box in zip(figure.plots, boxes, strict=True):
            rows.setdefault(round(plot.parentItem().scenePos().y()), []).append(box.bottom())
        for bottoms in rows.values():
            assert max(bottoms) - min(bottoms) < 0.5, rows
        if size[0] == 900:
            assert any(slanted) and not all(slanted)
    finally:
        stage.close()


@pytest.mark.parametrize(
    "spec",
    [FigureSpec("array", "weights", head=0), FigureSpec("matrices"), FigureSpec("stage", "mask")],
)
def test_an_svg_is_white_behind_the_figure_as_the_png_is(trace, tmp_path, spec):
    """The SVG had no background: viewers showed it on black or a checkerboard where the
    PNG is white. Its first shape is now a white rectangle over the whole figure."""
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgRenderer

    path = export_figure(trace, spec, tmp_path / "f.svg")
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
