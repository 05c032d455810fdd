"""The window at a projector (1024 × 768) and at 150 % text: every token labelled, values
that are left out said to be left out, and no control or text cut where it cannot be read."""

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject
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
        rows_labelled = plot.tick_labels[0] if plot.row_labels_shown else TOKENS
        if not plot.row_labels_shown:  # left to the scores beside it, on the same rows
            assert window.board.arrangement.rows[0][:2] == ("scores", "weights")
        assert (rows_labelled, plot.tick_labels[1]) == (TOKENS, TOKENS), key
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
    and nothing said why. Q, K and V give way there, and the notice says so."""
    window = at_size(1500, 940)
    qtbot.waitUntil(lambda: "whole" in window.board.values_written())
    assert set(window.board.values_written()) == {"whole"}
    assert notice(window) == ""
    window = at_size(1024, 768)
    qtbot.waitUntil(lambda: notice(window) != "")
    assert notice(window) == (
        "Q, K, V and the context hidden for want of room. F9 (hide the controls) or a larger "
        "window makes room."
    ) or notice(window) == (
        "Q, K and V hidden for want of room. F9 (hide the controls) or a larger window makes room."
    )
    label = window.board.values_notice
    assert label.text() == notice(window)  # whole, on its line
    assert set(window.board.values_written()) == {"whole"}
    assert not window.board.views["queries"].isVisible()
    window.controls_action.trigger()  # F9
    qtbot.waitUntil(lambda: "F9" not in notice(window))
    assert set(window.board.values_written()) == {"whole"}
    window.controls_action.trigger()
    at_size(1500, 940)
    qtbot.waitUntil(lambda: notice(window) == "")
    assert window.board.views["queries"].isVisible()


def test_at_150_percent_q_k_v_give_way_and_are_said_to_have(at_size, qtbot):
    """At 150 % the scores no longer held four decimals beside Q, K and V (see
    test_text_size.py): now Q, K and V give way, the scores and weights keep their four
    decimals, and the notice says what went where."""
    from attn_explorer.ui.text_size import text_size

    window = at_size(1500, 940, "v1")
    text_size.set_factor(1.5)
    # (the whole window laid out and painted at 150 %: over 5 s at a load of 7)
    qtbot.waitUntil(lambda: notice(window) != "", timeout=10_000)
    qtbot.waitUntil(lambda: set(window.board.values_written()) == {"whole"})
    height = window.board.values_notice.height()
    assert notice(window).endswith(
        "hidden for want of room. F9 (hide the controls), a larger window or smaller text "
        "(Ctrl+−) makes room."
    )
    assert not window.board.views["queries"].isVisible()
    for key in ("scores", "weights"):
        assert window.board.views[key].plot.values_written() == "whole"
    text_size.reset()
    qtbot.waitUntil(lambda: notice(window) == "")
    assert window.board.views["queries"].isVisible()
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


def test_boxes_renamed_at_1024_never_stand_over_one_another(at_size, qtbot, wait_settled):
    """Named again for a masked example, the scores' box took the width of its longest item
    (288 px) over the weights' box, a few turns of the event loop before its row was laid
    out again: the start's picture, grabbed then, kept the boxes so, unframed and cut."""
    window = at_size(1024, 768, "v1")
    boxes = (window.board.score_box, window.board.weight_box)
    over: list[tuple] = []

    class Watch(QObject):
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Resize:
                first, second = (box.geometry() for box in boxes)
                if first.intersects(second):
                    over.append((first.getRect(), second.getRect()))
            return False

    watch = Watch()
    for box in boxes:
        box.installEventFilter(watch)
    window.load_preset("causal")
    wait_settled(window)
    qtbot.wait(100)  # `AdjustToContents` resizes a box 20 ms after its texts change
    for box in boxes:
        box.removeEventFilter(watch)
    assert boxes[0].currentText() == "Masked scores ωₘ (raw, −∞ where hidden)"
    assert over == []
    assert boxes[0].shown_text().endswith(" …")


def written_texts(plot) -> list[str]:
    """The texts a plot writes in its cells at its size on screen, row-major; [] for none."""
    from PySide6.QtCore import QRectF

    rows, cols = plot.matrix.shape
    size = plot.view.size()
    chosen = plot.cells.written(QRectF(0, 0, size.width() / cols, size.height() / rows))
    return [] if chosen is None else list(chosen[0])


def assert_four_decimals_and_every_token(window):
    """The scores and weights write each value the trace holds in four decimals (masked
    cells "−∞" and blank), each row and column labelled with its token."""
    trace = window.board.trace
    for key in ("scores", "weights"):
        plot = window.board.views[key].plot
        assert window.board.views[key].isVisible(), key
        values = trace.matrix(plot.shown.name, 0)
        hidden = plot.hidden if plot.hidden is not None else np.zeros(values.shape, bool)
        blank = "−∞" if key == "scores" else ""
        pairs = zip(values.ravel(), hidden.ravel(), strict=True)
        want = [blank if h else f"{v:.4f}" for v, h in pairs]
        assert written_texts(plot) == want, key
        rows_labelled = plot.tick_labels[0] if plot.row_labels_shown else TOKENS
        if not plot.row_labels_shown:  # left to the scores beside it, on the same rows
            assert window.board.arrangement.rows[0][:2] == ("scores", "weights")
        assert (rows_labelled, plot.tick_labels[1]) == (TOKENS, TOKENS), key
        rows = values.shape[0]
        line = QFontMetricsF(plot.axis_font).height()
        assert plot.view.size().height() / rows >= line, key  # a row label fits its row
    weights = written_texts(window.board.views["weights"].plot)
    assert weights[6:8] == ["0.4833", "0.5167"]  # "journey", as the tutorial prints it


def test_at_1024_the_scores_and_weights_write_four_decimals(at_size, qtbot):
    """At 1024 × 768, nothing hidden by hand, the Matrices tab wrote no value at all."""
    window = at_size(1024, 768)
    qtbot.waitUntil(lambda: notice(window) != "")
    qtbot.waitUntil(lambda: set(window.board.values_written()) == {"whole"})
    assert_four_decimals_and_every_token(window)
    assert notice(window).startswith("Q, K")


def test_at_200_percent_with_f9_the_scores_and_weights_write_four_decimals(at_size, qtbot):
    """200 % text with the controls hidden (F9), a projector's usual setting."""
    from attn_explorer.ui.text_size import text_size

    window = at_size(1024, 768)
    text_size.set_factor(2.0)
    window.controls_action.trigger()  # F9
    try:
        qtbot.waitUntil(lambda: set(window.board.values_written()) == {"whole"})
        qtbot.wait(100)
        assert_four_decimals_and_every_token(window)
        assert notice(window) == (
            "The mask, Q, K, V and the context hidden for want of room. A larger window or "
            "smaller text (Ctrl+−) makes room."
        )
        for key in ("scores", "weights"):  # titles whole
            title = window.board.views[key].plot.title
            assert title.item.boundingRect().width() * title.item.scale() <= title.width() + 1
    finally:
        window.controls_action.trigger()
        text_size.reset()


def test_what_gave_way_is_said_in_vietnamese(vietnamese, at_size, qtbot):
    window = at_size(1024, 768)
    qtbot.waitUntil(lambda: notice(window) != "")
    assert notice(window).startswith("Đã ẩn Q, K")
    assert "F9" in notice(window)


def test_a_seed_move_that_widens_a_colour_bar_moves_no_other_matrix(at_size, qtbot, wait_settled):
    """At 1024 × 768 the matrices of a row share its width by their columns and colour bars.
    A seed move whose scores bar widened for a label it had not shown ("-0.06" after "-0.2")
    moved the mask beside it as well, and both were laid out and painted again whole in the
    move's paint: the longest stall of a burst of seed changes. The bar's few pixels now come
    from its own cells; but not where its column labels would no longer fit level (seed 7,
    "-0.075"): there the row is shared out again, and the labels stay level."""
    window = at_size(1024, 768)
    board = window.board
    qtbot.waitUntil(board.settled)  # the resize's own sharing out done before the first move
    qtbot.wait(50)
    assert board.arrangement.rows[0] == ("scores", "mask")  # shared by columns and bars
    scores = board.views["scores"].plot
    others = [view for key, view in board.views.items() if key != "scores" and view.isVisible()]
    kept, shared = [], []
    for seed in range(1, 16):
        width, places = scores.colorbar.minimumWidth(), [view.geometry() for view in others]
        window.controls.seed.spin.setValue(seed)
        wait_settled(window)
        qtbot.waitUntil(board.settled)
        qtbot.wait(20)  # any re-layout the move set off
        assert scores.top_axis.angle == 0, seed  # "journey" level over its column
        if scores.colorbar.minimumWidth() > width:
            moved = [view.geometry() for view in others] != places
            (shared if moved else kept).append(seed)
    assert kept == [1] and shared == [7]


def test_a_colour_bar_widened_far_shares_its_row_out_again(at_size, qtbot, wait_settled):
    """A bar many digits wider (the scores of a query of 3000: "-1.5e+06") would take all
    of that from its own cells: the row is shared out again, the scores' cells three times
    as wide as the mask's beside them, as before."""
    window = at_size(1024, 768)
    board = window.board
    scores, mask = (board.views[key].plot for key in ("scores", "mask"))

    def cells() -> tuple[float, float]:
        return scores.view.width() / 6, mask.view.width() / 6

    before = cells()
    assert before[0] == pytest.approx(3 * before[1], abs=1)
    width = scores.colorbar.minimumWidth()
    window.doc.queries.setData(window.doc.queries.index(1, 1), "3000")
    wait_settled(window)
    qtbot.waitUntil(board.settled)
    qtbot.wait(50)
    assert scores.colorbar.minimumWidth() > width + 3 * scores.colorbar.digit
    after = cells()
    assert after[0] < before[0] and after[1] < before[1]  # the room shared by both
    assert after[0] == pytest.approx(3 * after[1], abs=1)
