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
