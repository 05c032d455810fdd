"""Figure contents: what each figure draws (the trace's numbers, worked lines, a caption that
lets it be read alone), and which --head and --query change a figure."""

from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import STEP_KEYS, compute, preset
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.export.figures import (
    FigureSpec,
    build_figure,
    export_figure,
)


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
