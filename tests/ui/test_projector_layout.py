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


def notice(window) -> str:
    return window.board.values_notice.full_text()


def test_values_left_out_for_want_of_room_are_said_to_be(at_size, qtbot):
    """At 1024 × 768 the scores, weights, Q, K, V and context were drawn without values,
    and nothing said why; F9 (which hides the controls) brings them back."""
    window = at_size(1500, 940)
    qtbot.waitUntil(lambda: "whole" in window.board.values_written())
    assert set(window.board.values_written()) == {"whole"}
    assert notice(window) == ""
    window = at_size(1024, 768)
    qtbot.waitUntil(lambda: notice(window) != "")
    assert notice(window) == (
        "Values hidden where the cells are too small. F9 (hide the controls) or a larger "
        "window makes room."
    )
    label = window.board.values_notice
    assert label.text() == notice(window)  # whole, on its line
    assert window.board.views["scores"].plot.values_written() == "hidden"
    assert window.board.views["mask"].plot.values_written() == "whole"  # its 0s and 1s
    window.controls_action.trigger()  # F9
    qtbot.waitUntil(lambda: "hidden" not in window.board.values_written())
    qtbot.waitUntil(lambda: "F9" not in notice(window))
    # The whole width: Q, K, V and the context in four decimals, scores and weights in two.
    assert window.board.values_written()[:3] == ["rounded", "whole", "rounded"]
    assert notice(window) == (
        "Values rounded to 2 decimals where the cells are too small for 4. A larger window "
        "makes room."
    )
    window.controls_action.trigger()
    at_size(1500, 940)
    qtbot.waitUntil(lambda: notice(window) == "")


def test_values_cut_to_two_decimals_are_said_to_be(at_size, qtbot):
    """At 150 % the scores no longer hold four decimals (see test_text_size.py)."""
    from attn_explorer.ui.text_size import text_size

    window = at_size(1500, 940, "v1")
    text_size.set_factor(1.5)
    qtbot.waitUntil(lambda: window.board.views["scores"].plot.values_written() == "rounded")
    qtbot.waitUntil(lambda: notice(window).startswith("Values rounded"))
    height = window.board.values_notice.height()
    assert notice(window) == (
        "Values rounded to 2 decimals where the cells are too small for 4. F9 (hide the "
        "controls), a larger window or smaller text (Ctrl+−) makes room."
    )
    label = window.board.values_notice  # cut at a word at 1500 px, whole in the tooltip
    assert label.text().endswith("…") and label.toolTip() == notice(window)
    text_size.reset()
    qtbot.waitUntil(lambda: notice(window) == "")
    assert window.board.values_notice.text() == ""
    assert 0 < window.board.values_notice.height() < height  # its line stays, in 100 % text


def test_a_box_too_narrow_for_its_item_cuts_it_at_a_word(at_size):
    """At 1024 × 768 the scores' box read "Scores fed to softmax ω̃ (no ma", cut at its edge."""
    window = at_size(1500, 940, "v1")
    box = window.board.score_box
    assert box.shown_text() == box.currentText() == "Scores fed to softmax ω̃ (no mask)"
    at_size(1024, 768)
    shown = box.shown_text()
    assert shown.endswith(" …") and box.currentText().startswith(shown[:-2])
    assert "(" not in shown  # a bracket goes whole, or not at all
    assert box.fontMetrics().horizontalAdvance(shown) < box.width() - 20
