"""The colour bar: hard-edged bands of the colour map, ticks at the levels."""

from PySide6.QtCore import QRectF

from attn_explorer.ui.heatmap import CMAPS, ColorBar


def test_bands_are_hard_edged_with_every_colour_of_the_map(qapp):
    bar = ColorBar(CMAPS["weights"])
    brush = bar._bands(QRectF(0, 0, 12, 300))
    stops = brush.gradient().stops()
    assert len(stops) == 2 * ColorBar.BANDS  # none merged away
    positions = [p for p, _ in stops]
    assert positions == sorted(positions) and len(set(positions)) == len(positions)
    colors = [c.name() for _, c in stops]
    assert colors[0::2] == colors[1::2]  # each band starts and ends in one colour
    expected = CMAPS["weights"].getLookupTable(nPts=ColorBar.BANDS, alpha=False)
    assert colors[0::2] == [f"#{int(r):02x}{int(g):02x}{int(b):02x}" for r, g, b in expected]


def test_ticks_follow_the_levels(qapp):
    bar = ColorBar()
    bar.set_levels(-0.25, 0.25)
    assert [text for _, text in bar.ticks] == ["-0.25", "-0.125", "0", "0.125", "0.25"]
    bar.set_levels(0.0, 1.0, ("0 visible", "1 hidden"))
    assert bar.ticks == [(0.0, "0 visible"), (1.0, "1 hidden")]


def test_a_bar_that_values_pass_says_so_at_its_top(qapp):
    bar = ColorBar(CMAPS["weights"])
    bar.set_levels(0.0, 0.2, over=True)
    assert [text for _, text in bar.ticks] == ["0", "0.05", "0.1", "0.15", "≥0.2"]
    assert "99.5th percentile" in bar.toolTip()
    bar.set_levels(0.0, 0.2)
    assert bar.ticks[-1][1] == "0.2" and bar.toolTip() == ""


def test_weights_beyond_their_percentile_scale_mark_the_bar_and_only_then(qapp):
    """A causal first row of weight 1.0 among 64 tokens: the scale ends far below it, and the
    bar's top read as if nothing were darker."""
    import numpy as np

    from attn_explorer.ui.heatmap import MatrixPlot

    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.ones(64), size=64)  # (64, 64), rows sum to 1
    weights[0] = 0.0
    weights[0, 0] = 1.0
    plot = MatrixPlot()
    plot.set_matrix(weights, kind="weights")
    assert plot.levels[1] < 1.0
    assert plot.colorbar.ticks[-1][1] == f"≥{plot.levels[1]:.3g}"
    plot.set_matrix(weights[:6, :6] / weights[:6, :6].sum(1, keepdims=True), kind="weights")
    assert not plot.colorbar.ticks[-1][1].startswith("≥")  # scaled to its largest


def test_the_bar_paints_nothing_beyond_its_own_width(qapp):
    """The all-heads grid's bar was painted once at the width of its first labels ("0.75")
    with its new, wider ones ("0.0625"), before the layout widened it. Each label ran up to
    200 px past the bar's right edge; the view repaints only an item's own rectangle, so the
    ends of those labels stayed on screen as stray "5" and "·" right of the bar."""
    from PySide6.QtGui import QColor, QImage, QPainter

    bar = ColorBar(CMAPS["weights"])
    bar.set_levels(0.0, 0.25, over=True)  # labels up to "0.0625" and "≥0.25"
    narrow = 30  # narrower than its labels, as for that one paint
    bar.setMinimumWidth(narrow)
    bar.setMaximumWidth(narrow)
    bar.resize(narrow, 200)
    assert bar.size().width() == narrow
    image = QImage(300, 200, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    bar.paint(painter, None)
    painter.end()
    assert any(image.pixelColor(x, 100).lightness() < 200 for x in range(narrow))  # painted
    beyond = [
        (x, y)
        for x in range(narrow + 1, 300)
        for y in range(200)
        if image.pixelColor(x, y).lightness() < 250
    ]
    assert beyond == []


def test_a_bar_painted_from_a_kept_picture_has_the_pixels_qt_paints(qtbot, monkeypatch):
    """The levels change on most seed moves and come back (a scale is one of a few round
    numbers): the bar keeps its pictures and copies one into Qt's cache instead of painting
    its gradient and labels again. A view's pixels must not tell the two apart."""
    import numpy as np

    from attn_explorer.ui.heatmap import MatrixView

    view = MatrixView()
    qtbot.addWidget(view)
    view.resize(391, 435)
    view.show()
    qtbot.waitExposed(view)
    rng = np.random.default_rng(3)
    scales = [0.3, 0.12, 0.3, 2.5, 0.12, 0.3]
    matrices = [rng.uniform(-1, 1, (6, 6)).astype(np.float32) * s for s in scales]
    bar = view.plot.colorbar
    drawn, kept = [], []
    paint_into_cache = ColorBar._paint_into_cache
    monkeypatch.setattr(
        ColorBar, "_paint_into_cache", lambda *a: kept.append(paint_into_cache(*a)) or kept[-1]
    )
    draw = ColorBar._draw
    monkeypatch.setattr(ColorBar, "_draw", lambda *a: drawn.append(1) or draw(*a))
    with_pictures = []
    for matrix in matrices:
        view.plot.set_matrix(matrix, kind="signed")
        with_pictures.append(view.viewport().grab().toImage())
    assert kept and all(kept)
    assert len(drawn) == len({round(s, 2) for s in scales})  # each scale painted once
    assert len(bar._pictures) == len(drawn)
    monkeypatch.setattr(ColorBar, "_paint_into_cache", lambda *a: False)
    for matrix, expected in zip(matrices, with_pictures, strict=True):
        view.plot.set_matrix(matrix, kind="signed")  # each unlike the one before
        assert view.viewport().grab().toImage() == expected
    assert len(drawn) > len(bar._pictures)  # painted by Qt's own way this time
