"""The window at a projector (1024 × 768) and at 150 % text: every token labelled, values
that are left out said to be left out, and no control or text cut where it cannot be read."""

import pytest
from PySide6.QtGui import QFontMetricsF

TOKENS = ["Your", "journey", "starts", "with", "one", "step"]


@pytest.fixture
def at_size(window, qtbot, wait_settled, normal_size):
    """The window resized to `width` × `height`, laid out and drawn."""

    def make(width: int, height: int, preset: str | None = None):
        if preset is not None:
            window.load_preset(preset)
            wait_settled(window)
        window.resize(width, height)
        qtbot.waitUntil(lambda: (window.width(), window.height()) == (width, height))
        qtbot.wait(50)  # the views re-label themselves as the layout settles
        for view in window.board.views.values():
            view.plot.settle_layout()
        return window

    return make


@pytest.mark.parametrize("size", [(1500, 940), (1024, 768)])
def test_every_matrix_labels_all_six_tokens(at_size, size):
    """At 1024 × 768 the mask's "1 hidden" and "0 visible" took the width its columns
    needed, and its six tokens were thinned to Your, starts, one."""
    window = at_size(*size)
    for key in ("scores", "mask", "weights"):
        plot = window.board.views[key].plot
        assert plot.tick_labels == (TOKENS, TOKENS), key
        if plot.top_axis.angle == 90:  # upright labels one line apart at least: no overlap
            line = QFontMetricsF(plot.axis_font).height()
            assert plot.view.size().width() / len(TOKENS) >= line, key


def test_the_mask_bar_is_written_short_only_where_its_columns_need_it(at_size):
    window = at_size(1500, 940)
    bar = window.board.views["mask"].plot.colorbar
    assert [text for _, text in bar.ticks] == ["0 visible", "1 hidden"]
    at_size(1024, 768)
    assert [text for _, text in bar.ticks] == ["0", "1"]
    assert bar.toolTip() == "0 visible · 1 hidden"
    at_size(1500, 940)
    assert [text for _, text in bar.ticks] == ["0 visible", "1 hidden"]
    assert bar.toolTip() == ""
