"""Cell values: written as `num` writes them, drawn as glyph runs where drawText puts them."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFont, QFontMetricsF, QImage, QPainter

from attn_explorer.text.numbers import num
from attn_explorer.ui.heatmap import (
    CellTextItem,
    MatrixView,
    _cell_texts,
    _coarse,
    _Glyphs,
    _glyphs_of,
    _percentile,
)


@pytest.fixture
def view(qtbot):
    v = MatrixView()
    qtbot.addWidget(v)
    v.resize(420, 360)
    v.plot.set_matrix(
        np.array([[0.25, -1.5, 3.0], [0.07, 12.5, -0.33], [1.0, 2.0, 0.5]]),
        kind="signed",
        rows=("a", "b", "c"),
        cols=("x", "y", "z"),
    )
    v.show()
    qtbot.waitExposed(v)
    return v


def dark_boxes(image: QImage, cells: list[QRectF]) -> list[tuple[int, int, int, int]]:
    """Per cell, the bounding box of its text pixels (far from the cell colour)."""
    arr = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1, 4)[..., :3]
    boxes = []
    for cell in cells:
        x0, y0 = int(cell.left()) + 3, int(cell.top()) + 3
        x1, y1 = int(cell.right()) - 3, int(cell.bottom()) - 3
        patch = arr[y0:y1, x0:x1].astype(int)
        background = np.median(patch.reshape(-1, 3), axis=0)
        ink = np.abs(patch - background).sum(axis=2) > 120
        ys, xs = np.nonzero(ink)
        assert len(xs), f"no text in cell {cell}"
        boxes.append((x0 + xs.min(), y0 + ys.min(), x0 + xs.max(), y0 + ys.max()))
    return boxes


def test_glyph_runs_put_every_value_where_draw_text_does(view, monkeypatch):
    runs = []
    draw_runs = CellTextItem._draw_glyph_runs

    def spy(self, *args):
        left_over = draw_runs(self, *args)
        runs.append((len(args[2]), len(left_over)))  # (values given, values left to drawText)
        return left_over

    monkeypatch.setattr(CellTextItem, "_draw_glyph_runs", spy)
    screen = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    assert runs == [(9, 0)]  # on screen, all nine values went out as glyph runs
    # Rendering the scene without a widget takes drawText, as exported figures do.
    exported = QImage(screen.size(), QImage.Format.Format_RGB32)
    exported.fill(0xFFFFFFFF)
    painter = QPainter(exported)
    view.scene().render(
        painter, QRectF(exported.rect()), view.mapToScene(view.viewport().rect()).boundingRect()
    )
    painter.end()
    assert len(runs) == 1  # the export-like render took drawText
    image_item = view.plot.image
    to_view = [
        view.mapFromScene(image_item.mapToScene(QRectF(c, r, 1, 1))).boundingRect()
        for r in range(3)
        for c in range(3)
    ]
    cells = [QRectF(rect) for rect in to_view]
    for on_screen, in_file in zip(
        dark_boxes(screen, cells), dark_boxes(exported, cells), strict=True
    ):
        assert np.abs(np.subtract(on_screen, in_file)).max() <= 1


def test_each_glyph_run_keeps_its_own_positions_as_the_next_values_come(qapp):
    """The runs' points are written into two lists kept for the next values: a run made
    before (kept for repaints) keeps its points when the next values, fewer, more or of
    other inks, are written; every glyph sits where its cell's centre and its text put
    it."""
    item = CellTextItem()
    font, place = item._fonts[0], (60.0, 40.0, 5.0, 7.0)
    glyphs = _glyphs_of(font)

    def expected(texts, dark, ink):
        points = []
        for index, text in enumerate(texts):
            if text and dark[index] == ink:
                _, offsets = glyphs.offsets(text, glyphs.shapes([text])[0])
                row, col = divmod(index, 2)
                x, y = 60.0 * (col + 0.5) + 5.0, 40.0 * (row + 0.5) + 7.0 + glyphs.baseline
                points += [(x + offset, y) for offset in offsets]
        return points

    made = []
    for texts, dark in (
        (["0.1234", "-0.5678", "", "12.5000"], [False, True, False, False]),
        (["-0.1234", "0.5678", "1.0000", "−∞"], [True, True, False, True]),
        (["0.1", "2", "", "0.25"], [False, False, False, False]),
    ):
        item.set_cells(texts, texts, np.array(dark), (2, 2))
        runs, left_over = item._glyph_runs(font, texts, place)
        assert left_over == []
        made.append((texts, dark, runs))
    for texts, dark, runs in made:
        for ink, run in enumerate(runs):
            want = expected(texts, dark, ink)
            got = [] if run is None else [(p.x(), p.y()) for p in run.positions()]
            assert got == want
            if run is not None:
                assert len(run.glyphIndexes()) == len(want)


def test_a_character_the_font_lacks_falls_back_to_draw_text(view, monkeypatch):
    glyphs = _glyphs_of(QFont())
    assert glyphs.of("-1.25") is not None
    assert glyphs.of("中") is None  # not in the UI font: drawText lets Qt pick a fallback font
    left = []
    draw_runs = CellTextItem._draw_glyph_runs
    monkeypatch.setattr(
        CellTextItem,
        "_draw_glyph_runs",
        lambda self, *a: left.append(draw_runs(self, *a)) or left[-1],
    )
    texts = ["中"] * 9
    view.plot.cells.set_cells(texts, texts, np.zeros(9, bool), (3, 3))
    screen = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    assert left == [list(range(9))]  # no glyph run: all nine went to drawText
    image_item = view.plot.image
    cells = [
        QRectF(view.mapFromScene(image_item.mapToScene(QRectF(c, r, 1, 1))).boundingRect())
        for r in range(3)
        for c in range(3)
    ]
    assert len(dark_boxes(screen, cells)) == 9  # and drawText wrote something in every cell


def test_a_long_thin_matrix_that_is_pooled_gets_no_cell_text(view):
    """1 × 600 has fewer cells than the text limit but is drawn pooled to 1 × 300: a text
    per value would not match the cells drawn (it crashed the paint)."""
    view.plot.set_matrix(np.linspace(0, 1, 600).reshape(1, 600), kind="weights")
    assert view.plot.image.image.shape == (1, 300)
    assert view.plot.cells._texts == ([], [])


@settings(max_examples=300, deadline=None)
@given(
    arrays(
        np.float32,
        st.integers(1, 40),
        elements=st.one_of(
            st.floats(-2e5, 2e5, width=32),
            st.sampled_from([0.0, -0.0, 1e-4, -1e-4, 9.9999e-5, 999.99, 1000.0, 1e5, -1e5]),
            st.sampled_from([np.inf, -np.inf, np.nan]),
        ),
    )
)
def test_cell_texts_write_every_value_as_num_does(values):
    """All but the tiny: in one digit, so that they are no wider than 0.2264."""
    fine, coarse = _cell_texts(values)
    assert fine == [f"{v:.0e}" if "e-" in num(v) else num(v) for v in values.tolist()]
    assert coarse == [_coarse(v) for v in values.tolist()]


@settings(max_examples=200, deadline=None)
@given(arrays(np.float32, st.integers(1, 300), elements=st.floats(0, 1, width=32)))
def test_the_weights_scale_percentile_is_numpys(values):
    assert _percentile(values, 99.5) == pytest.approx(float(np.percentile(values, 99.5)), abs=1e-6)


def test_a_repaint_reuses_the_glyph_runs_of_the_values_on_screen(view, monkeypatch):
    built = []
    build = CellTextItem._glyph_runs
    monkeypatch.setattr(
        CellTextItem,
        "_glyph_runs",
        lambda self, font, texts, place: (
            built.append(list(texts)) or build(self, font, texts, place)
        ),
    )
    view.plot.set_matrix(np.array([[0.5, -0.25], [1.75, 2.0]]), kind="signed")
    view.viewport().grab()
    view.viewport().grab()  # a hover or a resize repaints the same values
    assert built == [["0.5000", "-0.2500", "1.7500", "2.0000"]]
    view.plot.set_matrix(np.array([[0.5, -0.25], [1.75, 3.0]]), kind="signed")
    view.viewport().grab()
    assert built[1:] == [["0.5000", "-0.2500", "1.7500", "3.0000"]]  # new values: new runs


def test_values_of_one_shape_share_their_offsets_and_keep_their_own_glyphs(qapp):
    """Where the digits are as wide, "0.1234" and "0.5678" have one shape, and so the same
    glyph offsets; their glyph indexes stay their own characters'."""
    glyphs = _Glyphs(QFont())
    texts = ["0.1234", "0.5678", "-0.25", "中", ""]
    shapes = glyphs.shapes(texts)
    found = [glyphs.offsets(text, shape) for text, shape in zip(texts, shapes, strict=True)]
    raw = glyphs.raw
    advances = [a.x() for a in raw.advancesForGlyphIndexes(raw.glyphIndexesForString("0123456789"))]
    if len(set(advances)) == 1:
        assert found[0] == found[1]
    assert found[3][1] is None  # the font lacks it: drawText writes it
    for text, (_, offsets) in zip(texts[:3], found[:3], strict=True):
        own = [a.x() for a in raw.advancesForGlyphIndexes(raw.glyphIndexesForString(text))]
        assert offsets == pytest.approx([sum(own[:i]) - sum(own) / 2 for i in range(len(own))])
        assert list(glyphs.indexes(text)) == raw.glyphIndexesForString(text)
    assert glyphs.shapes(["a\nb", "c"]) == ["a\nb".translate(glyphs._shape), "c"]
    # A big font's glyph indexes run through the UTF-16 surrogates' range and past it.
    with_big = _Glyphs(QFont())
    with_big._index = {ord("a"): chr(0xD805), ord("b"): chr(0xFFFF), ord("c"): chr(7)}
    assert list(with_big.indexes("abc")) == [0xD805, 0xFFFF, 7]


def test_a_value_in_an_uncoloured_cell_is_written_in_dark_ink(view):
    # ∞ has no colour on the scale: its cell shows the white page, so white text would vanish.
    view.plot.set_matrix(np.array([[np.inf, 0.5], [0.25, -2.0]]), kind="signed")
    image = view.viewport().grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    cell = view.mapFromScene(view.plot.image.mapToScene(QRectF(0, 0, 1, 1))).boundingRect()
    x0, y0, x1, y1 = dark_boxes(image, [QRectF(cell)])[0]
    arr = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), -1, 4)[..., :3]
    assert arr[y0 : y1 + 1, x0 : x1 + 1].min() < 80  # dark ink on white


def test_at_a_large_text_size_values_shrink_before_they_go(qapp):
    """At 200 % on a 1080p projector the scores and weights showed no numbers: 20 pt and 16 pt
    did not fit their cells, though 12 pt did. Values now shrink to three quarters of the
    enlarged 8 pt first, never below the 10 pt of the normal size."""
    item = CellTextItem()
    item.set_cells(["0.3293"], ["0.33"], np.array([False]), (1, 1))

    def cell_for(points: float) -> QRectF:
        font = QFont()
        font.setPointSizeF(points)
        metrics = QFontMetricsF(font)
        gap = max(3, metrics.horizontalAdvance(" "))  # a space between neighbours
        return QRectF(0, 0, metrics.horizontalAdvance("0.33") + gap + 0.5, metrics.height())

    item.set_scale(2.0)
    texts, font = item.written(cell_for(12))
    assert texts == ["0.33"] and font.pointSizeF() == 12
    assert item.written(cell_for(16))[1].pointSizeF() == 16  # the usual 8 pt × 2 first
    assert item.written(cell_for(11)) is None
    item.set_scale(1.5)  # three quarters of 12 pt is 9 pt: not below the normal 10 pt
    assert item.written(cell_for(10))[1].pointSizeF() == 10
    assert item.written(cell_for(9)) is None
    item.set_scale(1.0)  # the normal size: nothing below 8 pt, as before
    assert item.written(cell_for(8))[1].pointSizeF() == 8
    assert item.written(cell_for(7)) is None


def width_of(text: str, points: float) -> float:
    """The least cell width `text` is written in at `points`: the text and a space."""
    font = QFont()
    font.setPointSizeF(points)
    metrics = QFontMetricsF(font)
    return metrics.horizontalAdvance(text) + max(3, metrics.horizontalAdvance(" "))


def test_at_150_percent_four_decimals_that_fit_in_10_pt_are_not_cut_to_two(qapp):
    """At 150 % the queries were written 0.43 in 15 pt beside keys written 0.3669 in 12 pt:
    0.4306 fitted in 10 pt, the size 100 % wrote it in, but only 15 and 12 pt were tried
    for four decimals."""
    item = CellTextItem()
    item.set_cells(["0.4306"], ["0.43"], np.array([False]), (1, 1))
    item.set_scale(1.5)
    cell = QRectF(0, 0, width_of("0.4306", 12) - 1, 40)
    assert width_of("0.43", 15) < cell.width()  # two decimals fit the enlarged 10 pt
    texts, font = item.written(cell)
    assert texts == ["0.4306"] and font.pointSizeF() == 10


@pytest.mark.parametrize("factor", [1.15, 1.3, 1.5, 1.75, 2.0, 2.5])
def test_above_the_normal_size_no_value_is_written_smaller_than_at_100_percent(qapp, factor):
    """At 150 % values fell to 9 pt where 100 % wrote them in 10 pt (the scores at
    1366 × 768): above the normal size they are never written under 10 pt, the size of the
    normal size, nor under three quarters of the enlarged 8 pt; left out rather than
    smaller. Four decimals come first in every size."""
    least = max(10, 6 * factor)
    item = CellTextItem()
    item.set_cells(["-0.2264", "0.1500"], ["-0.23", "0.15"], np.array([False, False]), (1, 2))
    item.set_scale(factor)
    fonts = set()
    for width in np.arange(20, 160, 0.5):
        chosen = item.written(QRectF(0, 0, width, 60))
        if chosen is None:
            assert width < width_of("-0.23", least)
            continue
        texts, font = chosen
        fonts.add(font.pointSizeF())
        assert font.pointSizeF() >= least >= 10
        if width >= width_of("-0.2264", least):
            assert texts == ["-0.2264", "0.1500"], width
    assert max(fonts) == pytest.approx(10 * factor)  # the enlarged size where it fits


def test_four_decimals_in_the_small_font_before_two_in_the_large(qapp):
    """A learner checks 0.2264 against the tutorial: the weights read 0.23 in 10 pt while
    0.2264 fitted in 8 pt, and the step-through beside them wrote 0.2264."""
    item = CellTextItem()
    item.set_cells(["0.2264"], ["0.23"], np.array([False]), (1, 1))
    small = QFont()
    small.setPointSizeF(8)
    metrics = QFontMetricsF(small)
    gap = max(3, metrics.horizontalAdvance(" "))
    texts, font = item.written(QRectF(0, 0, metrics.horizontalAdvance("0.2264") + gap, 40))
    assert texts == ["0.2264"] and font.pointSizeF() == 8


def test_neighbouring_values_keep_a_space_between_them(qapp):
    """With 3 px between them, "0.2458 0.2559" on a pale row of an exported figure read as
    one number: a value now keeps at least a space's width from the next."""
    item = CellTextItem()
    item.set_cells(["0.2458"], ["0.25"], np.array([False]), (1, 1))
    metrics = QFontMetricsF(item.font)
    space = metrics.horizontalAdvance(" ")
    assert space > 3  # 10 pt: the old rule's 3 px was less than a space
    tight = QRectF(0, 0, metrics.horizontalAdvance("0.2458") + 3, 40)
    chosen = item.written(tight)
    assert chosen is None or (chosen[0], chosen[1].pointSizeF()) != (["0.2458"], 10)
    roomy = QRectF(0, 0, metrics.horizontalAdvance("0.2458") + space, 40)
    texts, font = item.written(roomy)
    assert texts == ["0.2458"] and font.pointSizeF() == 10


@pytest.mark.parametrize("height", [8.0, 12.0, 40.0])
def test_the_width_values_need_is_where_they_start_to_be_written(qapp, height):
    """The stage figure shares its room by `widths_needed`: it must agree with `written`,
    cell by cell, or a matrix given "enough" room writes nothing."""
    item = CellTextItem()
    item.set_cells(["-0.2264", "0.1500"], ["-0.23", "0.15"], np.array([False, False]), (1, 2))
    least, full = item.widths_needed(height)
    best = item.written(QRectF(0, 0, 10_000, height))
    if best is None:
        assert (least, full) == (np.inf, np.inf)
        return
    assert item.written(QRectF(0, 0, least, height)) is not None
    assert item.written(QRectF(0, 0, least - 0.01, height)) is None
    assert item.written(QRectF(0, 0, full, height)) == best
    assert item.written(QRectF(0, 0, full - 0.01, height)) != best


def test_one_tiny_weight_does_not_cut_the_others_to_two_decimals(qapp):
    """The √d_k demo's saturated row: 6.038e-05 was its matrix's widest text, which did not
    fit, so the whole matrix was written in two decimals, 0.31 beside the scores' -4.4283."""
    values = np.array([0.3125, 6.038e-05, 0.6874], dtype=np.float32)
    item = CellTextItem()
    item.set_cells(*_cell_texts(values), np.zeros(3, dtype=bool), (1, 3))
    metrics = QFontMetricsF(item.font)
    cell = QRectF(0, 0, metrics.horizontalAdvance("0.3125") + metrics.horizontalAdvance(" "), 40)
    texts, font = item.written(cell)
    assert texts == ["0.3125", "6e-05", "0.6874"] and font.pointSizeF() == 10


def test_a_matrix_with_tiny_values_writes_each_value_as_one_by_one():
    """The quick formats take every value below 1000; the tiny ones ("6e-05") and the
    rounding edges still read as `_fine` and `_coarse` write each value."""
    from attn_explorer.ui.heatmap.cell_text import _cell_texts, _coarse, _fine

    rng = np.random.default_rng(0)
    values = (rng.normal(size=400) * 10.0 ** rng.integers(-7, 3, size=400)).astype(np.float32)
    values[:6] = [0.0, -0.0, 0.000099996, -0.00009999, 999.99, 6.038e-05]
    fine, coarse = _cell_texts(values)
    numbers = values.tolist()
    assert fine == [_fine(v) for v in numbers]
    assert coarse == [_coarse(v) for v in numbers]
    assert fine[5] == "6e-05" and fine[2] == "0.0001" and fine[4] == "999.9900"


def test_values_in_cells_too_short_for_any_font_are_never_formatted(qapp):
    """A 64-token Q has cells 3 px tall: no value can be written there, and formatting its
    numbers on every move would be work for no pixel. They are made when a cell is tall
    enough, once."""
    item = CellTextItem()
    made = []

    def make():
        made.append(True)
        return ["0.1234", "-0.5678"] * 2, ["0.12", "-0.57"] * 2

    item.set_cells_later(make, np.zeros(4, bool), (2, 2))
    short = QRectF(0, 0, 200, 3)
    assert item.written(short) is None
    assert item.how_written(short) == "hidden"
    assert item.widths_needed(3) == (np.inf, np.inf)
    assert made == []
    texts, font = item.written(QRectF(0, 0, 200, 40))
    assert texts == ["0.1234", "-0.5678"] * 2 and font.pointSizeF() == 10
    assert item.how_written(QRectF(0, 0, 200, 40)) == "whole"
    assert made == [True]


def test_two_decimals_are_written_only_where_four_do_not_fit(qapp):
    """A matrix's values in two decimals are made at their first need: in a wide cell
    four decimals are written and two never made; in a narrow one, two are, masked cells
    as blank in them as in four."""
    from attn_explorer.ui.heatmap import cell_text

    matrix = np.array([[0.12345, -0.56789], [1.5, -0.25]], np.float32)
    hidden = np.array([[False, False], [False, True]])
    fine, coarse = cell_text.cell_strings(matrix, "signed", hidden, "−∞")
    assert fine == ["0.1235", "-0.5679", "1.5000", "−∞"]
    made = []

    def counted():
        made.append(True)
        return coarse()

    item = CellTextItem()
    item.set_cells_later(lambda: (fine, counted), np.zeros(4, bool), (2, 2))
    wide, narrow = QRectF(0, 0, 200, 40), QRectF(0, 0, 36, 40)
    assert item.written(wide)[0] == fine and item.how_written(wide) == "whole"
    assert made == []
    assert item.written(narrow)[0] == ["0.12", "-0.57", "1.50", "−∞"]
    assert item.how_written(narrow) == "rounded"
    assert item._texts == (fine, ["0.12", "-0.57", "1.50", "−∞"])
    assert made == [True]  # made once, kept


@pytest.mark.parametrize("points", [8, 10, 12.5, 20])
def test_a_value_measures_what_qt_measures_however_its_width_was_found(qapp, points):
    """The widest values decide the precision written, and are measured once per shape of
    text ("0.1234" as "0.0000"): only where the font's digits measure alike, so every
    measure must stay Qt's own."""
    import random

    from attn_explorer.ui.heatmap.cell_text import _width

    font = QFont()
    font.setPointSizeF(points)
    metrics = QFontMetricsF(font)
    rng = random.Random(points)
    for _ in range(400):
        value = rng.uniform(-1500, 1500) * rng.choice([1, 1e-3, 1e-6])
        for text in (f"{value:.4f}", f"{value:.2f}", f"{value:.0e}", _coarse(value), "−∞"):
            assert _width(font.key(), metrics, text) == metrics.horizontalAdvance(text), text
