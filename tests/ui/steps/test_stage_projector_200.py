"""A stage at 1024 × 768 with 200 % text and the controls hidden (F9), a projector's usual
setting: its input and output write every value of a 6-token example in four decimals,
every row and column labelled. The worked lines' box kept its five lines (192 px) and the
matrices got 312–374 px of the ~450 they need: no value was written. Now the box gives up
lines first (it scrolls), the panel under the stage goes, the colour bars give way where
the width is short, and the stage says so."""

import time

import pytest
from PySide6.QtWidgets import QApplication
from shiboken6 import isValid

from attn_explorer.engine import ARRAY_INFO, compute
from attn_explorer.model.state import default_state
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.main_window import MainWindow
from attn_explorer.ui.text_size import text_size
from tests.ui.conftest import settled, show_steps

from .test_stage_projector import on_screen, written

DEFAULT = ["Your", "journey", "starts", "with", "one", "step"]

# One worker runs the module (`--dist loadgroup`): its windows at 200 % are built there only
# (a 1024 × 768 one shared by the tests below that read a stage, and the `window` fixture's,
# kept from test to test), where spread over the workers each built its own (2-3 s of CPU
# each at this size).
pytestmark = pytest.mark.xdist_group("projector_200")


@pytest.fixture(scope="module", autouse=True)
def text_at_200_percent(qapp):
    """The text at 200 %, as a teacher left it (remembered: a window built restores it), from
    before the module's first window to after its last test: one window is kept from test to
    test (tests/ui/window_reuse.py), where a size set and set back by each test had each
    build a window of its own. The live change to 200 % is test_projector_layout.py's."""
    text_size.set_factor(2.0)
    text_size.remember()
    yield
    text_size.reset()
    text_size.remember()


@pytest.fixture
def projector(window, steps, qtbot):
    assert text_size.factor == 2.0
    window.controls_action.trigger()  # F9
    yield steps
    window.controls_action.trigger()


def _wait_until(done, timeout: float = 30.0) -> None:
    """As qtbot.waitUntil, for a fixture wider than one test."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "timed out"
        QApplication.processEvents()
        time.sleep(0.005)


@pytest.fixture(scope="module")
def shared_projector(text_at_200_percent):
    """One window at 1024 × 768, F9 pressed, on its step-through, for the tests below that
    only choose a stage (and load an example) and read what it writes: each would otherwise
    take the `window` fixture's window, lay it out at 1024 × 768 and be laid out and reset
    back after (about 0.6 s of CPU a test). They are one xdist group, so one worker builds
    it. Closed as the `window` fixture closes its windows."""
    configure_pyqtgraph()
    win = MainWindow()
    win.resize(1024, 768)
    win.show()
    _wait_until(lambda: settled(win) and win.isVisible())
    win.controls_action.trigger()  # F9
    win.tabs.setCurrentWidget(win.stepper)
    _wait_until(win.stepper.isVisible)
    yield win
    if isValid(win):
        win.doc.undo_stack.setClean()
        win.close()
        win.deleteLater()
        assert not win.bridge.is_running(), "the engine thread outlived the window"


@pytest.fixture
def kept_projector(shared_projector, qtbot):
    """`shared_projector` on the default example, as the `projector` fixture gives it."""
    win = shared_projector
    assert text_size.factor == 2.0
    assert not win.window_layout.side.isVisible()  # (F9)
    if win.doc.state() != default_state():
        win.doc.reset(default_state())
    qtbot.waitUntil(lambda: settled(win))
    show_steps(win, qtbot)
    return win, win.stepper


def assert_every_value_in_four_decimals(window, steps, plots, tokens):
    trace = compute(window.doc.config())
    for plot in plots:
        values = trace.matrix(plot.shown.name, 0)
        hidden = plot.hidden
        texts = [
            str(int(v)) if values.dtype == bool else f"{v:.4f}" for v in values.ravel()
        ]  # (the mask writes 0 and 1)
        want = [
            ("−∞" if plot._neg_inf_text else "") if hidden is not None and hidden.flat[k] else t
            for k, t in enumerate(texts)
        ]
        assert written(plot, steps.figure_view) == want, plot.shown.name
        info = ARRAY_INFO[plot.shown.name]
        if info.rows.endswith("tokens"):  # every row labelled (by itself, or its left neighbour)
            assert plot.tick_labels[0] in (tokens, []), plot.shown.name
        if info.cols.endswith("tokens"):
            assert plot.tick_labels[1] == tokens, plot.shown.name
    labelled = [plot for plot in plots if plot.tick_labels[0]]
    assert labelled and all(plot.tick_labels[0] == tokens for plot in labelled)
    for plot in plots:  # titles whole: each cut one would end in "…"
        assert not plot.title.text.endswith("…"), plot.shown.name


@pytest.mark.parametrize(
    "stage",
    [
        *("embeddings", "projections", "scores", "mask", "scale"),
        *("softmax", "dropout", "context", "out_proj"),
    ],
)
def test_the_default_example_writes_four_decimals(kept_projector, qtbot, stage):
    window, projector = kept_projector
    plots = on_screen(window, projector, qtbot, stage, (1024, 768))
    assert_every_value_in_four_decimals(window, projector, plots, DEFAULT)


@pytest.mark.parametrize(
    "stage",
    ["embeddings", "projections", "scores", "scale", "mask", "softmax", "context", "out_proj"],
)
def test_the_happy_example_writes_four_decimals(kept_projector, wait_settled, qtbot, stage):
    window, projector = kept_projector
    window.load_preset("happy")
    wait_settled(window)
    plots = on_screen(window, projector, qtbot, stage, (1024, 768))
    tokens = list(window.trace.config.tokens)
    assert_every_value_in_four_decimals(window, projector, plots, tokens)


def test_what_gave_way_is_said(window, projector, qtbot):
    on_screen(window, projector, qtbot, "softmax", (1024, 768))
    assert projector.followed.shortened()  # it scrolls
    assert not projector.extras.isVisible()
    note = projector.extras_left_out
    assert note.isVisible()
    whole = note.toolTip() or note.text()
    assert whole.startswith("The softmax bars, the sharpening slider")
    assert whole.endswith(  # (at this size the box goes: not one line of it has room)
        "The worked lines are left out for the matrices' values: a taller window, or smaller "
        "text (Ctrl+-)."
    )
    assert projector.followed.gone and not projector.followed.isVisible()
    assert projector.figure.bars_hidden
    assert projector.figure.reason.text == "Colour bars hidden so that the values fit."
    assert all(not plot.colorbar_shown for plot in projector.figure.plots)


def test_what_gave_way_is_said_in_vietnamese(vietnamese, window, projector, qtbot):
    on_screen(window, projector, qtbot, "softmax", (1024, 768))
    note = projector.extras_left_out
    whole = note.toolTip() or note.text()
    assert whole.endswith(
        "Đã bỏ các dòng tính toán để nhường chỗ cho giá trị của ma trận: cửa sổ cao hơn, "
        "hoặc chữ nhỏ hơn (Ctrl+-)."
    )
    assert projector.figure.reason.text.startswith("Đã ẩn thanh màu")


def test_the_mask_gives_way_at_its_stage_and_says_so(window, projector, qtbot):
    """The mask stage's three matrices wrote no value; the masked scores' hatching shows
    what the mask hides, as on the Matrices tab."""
    plots = on_screen(window, projector, qtbot, "mask", (1024, 768))
    assert [plot.shown.name for plot in plots] == ["scores", "masked_scores"]
    assert projector.figure.reason.text == (
        "The mask matrix hidden for want of width: the hatching shows it.<br>Colour bars "
        "hidden so that the values fit."
    )
    text_size.set_factor(1.0)  # room again: the mask comes back
    qtbot.waitUntil(lambda: "mask" in [p.shown.name for p in projector.figure.plots])
    text_size.set_factor(2.0)  # (the module's size)


def test_the_worked_lines_cut_short_are_said_to_be(window, projector, qtbot):
    """At the scores stage nothing else went: the box scrolled without a word."""
    on_screen(window, projector, qtbot, "scores", (1024, 768))
    assert projector.followed.shortened()
    note = projector.extras_left_out
    assert note.isVisible()
    assert (note.toolTip() or note.text()).startswith("The worked lines are")


def test_the_weights_give_way_to_x_q_k_v_and_say_so(window, projector, qtbot):
    """The projections' seven matrices in two rows labelled every other row of X, Q, K and
    V (a line each is more than 768 px hold): the W's, on the Matrices tab, go first."""
    plots = on_screen(window, projector, qtbot, "projections", (1024, 768))
    assert [plot.shown.name for plot in plots] == ["x", "queries", "keys", "values"]
    assert projector.figure.reason.text.startswith(
        "W<sub>q</sub>, W<sub>k</sub>, W<sub>v</sub> left out for want of height: on the "
        "Matrices tab."
    )
    window.resize(1024, 1400)  # room again: the W's come back, weighed on the new height
    qtbot.waitUntil(lambda: "w_query" in [p.shown.name for p in projector.figure.plots])
    assert "left out" not in projector.figure.reason.text


def test_the_reason_line_is_read_whole_in_vietnamese(vietnamese, window, projector, qtbot):
    """Two sentences on one line were cut with "…" in Vietnamese at the mask stage: each
    thing that went has a line of its own, written whole."""
    on_screen(window, projector, qtbot, "mask", (1024, 768))
    reason = projector.figure.reason
    assert reason.text == (
        "Đã ẩn ma trận mặt nạ vì thiếu chiều rộng: phần gạch chéo cho thấy nó.<br>"
        "Đã ẩn thanh màu để các giá trị vừa chỗ."
    )
    assert not reason._cut and not reason.item.toolTip()
    shown = reason.item.boundingRect().width() * reason.item.scale()
    assert shown <= reason.rect().width() + 0.5


def test_the_weights_left_out_are_said_in_vietnamese(vietnamese, window, projector, qtbot):
    on_screen(window, projector, qtbot, "projections", (1024, 768))
    reason = projector.figure.reason
    assert reason.text.startswith(
        "Đã bỏ W<sub>q</sub>, W<sub>k</sub>, W<sub>v</sub> vì thiếu chiều cao: chúng ở thẻ Ma trận."
    )
    assert not reason._cut


def test_what_went_is_all_marked_for_translation(pseudo, window, projector, qtbot):
    on_screen(window, projector, qtbot, "projections", (1024, 768))
    lines = projector.figure.reason.text.split("<br>")
    assert len(lines) == 2  # the W's and the colour bars
    assert all(line.startswith("⟪") and line.endswith("⟫") for line in lines), lines
