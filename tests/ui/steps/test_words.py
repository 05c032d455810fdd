"""The words of the Matrices tab and the step-through in the language chosen: a
pseudo-translated window (every marked string as ⟪…⟫) leaves no English outside the brackets
in the board's and the step-through's widgets and drawings, and a Vietnamese one reads
Vietnamese with the same numbers.

One window walks both tabs (each window costs half a second)."""

from __future__ import annotations

import re

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QGraphicsTextItem,
    QGraphicsView,
    QLabel,
    QTabBar,
    QWidget,
)

from attn_explorer.engine import STEP_KEYS, preset
from attn_explorer.model.state import ExplorerState
from attn_explorer.ui.heatmap import ColorBar, display_token
from attn_explorer.ui.heatmap.axis import TokenAxis
from attn_explorer.ui.widgets import FormulaText

BRACKETED = re.compile(r"⟪[^⟪⟫]*⟫")
TAGS = re.compile(r"<[^>]+>")
# Symbols of the formulas, which no language translates (docs/glossary.md): the worked
# lines' variables (keep2, out2, Z_cat2, W_q, b_q, Σ_visible) and softmax.
SYMBOLS = re.compile(r"softmax|keep\d+|out\d+|Z_cat\d*|\b[Wb]_[qkvo]\b|Σ_visible")


def graphics_texts(view: QGraphicsView) -> list[str]:
    """What a pyqtgraph view draws in words: titles, text items, axis labels and colour-bar
    ticks, and the tooltips of its items."""
    texts = []
    for item in view.scene().items():
        if not item.isVisible():
            continue
        texts.append(item.toolTip())
        if isinstance(item, QGraphicsTextItem):
            texts.append(item.toPlainText())
        if isinstance(item, ColorBar):
            texts += [text for _, text in item.ticks]
        if isinstance(item, TokenAxis):
            texts += [text for _, text in item.labels]
        elif isinstance(item, pg.AxisItem):
            texts.append(item.labelText)
            for level in item._tickLevels or []:
                texts += [text for _, text in level]
    return texts


def shown_texts(root: QWidget) -> list[str]:
    """Every text of `root`'s widgets a user may read, and what their drawings write."""
    texts = []
    for child in [root, *root.findChildren(QWidget)]:
        if not child.isVisibleTo(root) and child is not root:
            continue
        texts.append(child.toolTip())
        if isinstance(child, (QLabel, QAbstractButton)):
            texts.append(child.text())
        if isinstance(child, FormulaText):
            texts.append(child.text())
        if isinstance(child, QComboBox):
            for i in range(child.count()):
                texts += [child.itemText(i), child.itemData(i, Qt.ItemDataRole.ToolTipRole) or ""]
        if isinstance(child, QTabBar):
            for i in range(child.count()):
                texts += [child.tabText(i), child.tabToolTip(i)]
        if isinstance(child, QGraphicsView) and child.scene() is not None:
            texts += graphics_texts(child)
        texts += [action.text() for action in child.actions()]
    return texts


def english(texts: list[str], tokens: set[str]) -> set[str]:
    """The texts with words left outside the pseudo-translation's brackets (tokens, which
    are the learner's own, and symbols aside). A text cut with "…" keeps the beginning of
    a bracketed one."""
    missed = set()
    for text in texts:
        if not text or text in tokens:
            continue
        rest = TAGS.sub(" ", text)
        if rest.endswith("…"):
            rest += "⟫" * (rest.count("⟪") - rest.count("⟫"))
        while BRACKETED.search(rest):
            rest = BRACKETED.sub(" ", rest)
        for token in tokens:
            rest = rest.replace(token, " ")
        rest = SYMBOLS.sub(" ", rest)
        if re.search("[A-Za-z]{2}", rest):
            missed.add(text)
    return missed


def bracketed(text: str) -> str:
    return "\n".join(f"⟪{line}⟫" for line in text.split("\n"))


@pytest.fixture
def words_of_text_translated(monkeypatch):
    """The words about the computation (attn_explorer/text: titles, formulas, explanations,
    the settings' summary) stand as translated, each line in brackets: tests/text holds them
    to their translations; here only what the window adds to them is looked at."""
    from attn_explorer.text.steps import StepText
    from attn_explorer.ui import main_window
    from attn_explorer.ui.matrices import board, trace_plots
    from attn_explorer.ui.steps import stage_figure, stage_tabs, stepper, worked_lines

    def wrap(function):
        return lambda *args, **kwargs: bracketed(function(*args, **kwargs))

    def wrap_step(function):
        def step_text(step):
            words = function(step)
            return StepText(*(bracketed(text) if text else "" for text in vars(words).values()))

        return step_text

    for module in (stage_figure, stage_tabs):
        monkeypatch.setattr(module, "step_text", wrap_step(module.step_text))
    for module in (board, stepper, worked_lines):
        monkeypatch.setattr(module, "explain", wrap(module.explain))
    monkeypatch.setattr(trace_plots, "array_title", wrap(trace_plots.array_title))
    monkeypatch.setattr(main_window, "config_summary", wrap(main_window.config_summary))


def board_texts(board) -> list[str]:
    """The board's texts with each item of its score and weight boxes chosen in turn, a
    cell hovered, and the all-heads grid showing each array of its box."""
    texts = []
    for box in (board.score_box, board.weight_box):
        for index in range(box.count()):
            box.setCurrentIndex(index)
            texts += shown_texts(board)
    board.views["scores"].plot._hover((1, 0), None)
    texts += shown_texts(board)
    board.show_all_heads(True)
    for index in range(board.heads_array.count()):
        board.heads_array.setCurrentIndex(index)
        texts += shown_texts(board)
    board.show_all_heads(False)
    return texts


def stage_texts(steps, keys) -> list[str]:
    texts = []
    for key in keys:
        steps.set_stage(key)
        texts += shown_texts(steps)
    return texts


def load(window, wait_settled, name: str, **controls: object) -> None:
    state = ExplorerState.from_config(preset(name).config).with_controls(**controls)
    window.doc.load_state(state, "cold")
    wait_settled(window)


def walk(window, wait_settled, qtbot) -> list[str]:
    """Every text the board and the step-through show, at 1024 × 768: on two heads with a
    causal mask and dropout, every array of the board's boxes, the all-heads grid, a hovered
    cell and every stage with its panels; on mask method 1 without √d_k, at a temperature, in
    evaluation mode, the board and the stages it changes; without a mask, the board and the
    mask stage; in a short window, what the panels left out say."""
    window.resize(1024, 768)
    load(window, wait_settled, "mha", dropout=0.1)
    texts = board_texts(window.board)
    window.tabs.setCurrentWidget(window.stepper)
    qtbot.waitUntil(window.stepper.isVisible)
    steps = window.stepper
    texts += stage_texts(steps, STEP_KEYS)
    load(
        window,
        wait_settled,
        "causal",
        mask_method="renormalize",
        scale=False,
        temperature=2.0,
        dropout=0.1,
        training=False,
    )
    texts += stage_texts(steps, ("scale", "mask", "softmax", "dropout"))
    load(window, wait_settled, "simple", causal=False)
    texts += stage_texts(steps, ("mask", "softmax"))
    window.resize(1024, 520)
    qtbot.waitUntil(lambda: steps.extras_left_out.isVisible())
    texts += shown_texts(steps)
    window.tabs.setCurrentWidget(window.board)
    qtbot.waitUntil(window.board.isVisible)
    texts += board_texts(window.board)
    load(window, wait_settled, "causal", mask_method="renormalize", scale=False, temperature=2.0)
    texts += board_texts(window.board)
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.board.values_notice.full_text() != "")
    texts += shown_texts(window.board)
    return texts


def test_a_pseudo_translated_window_leaves_no_english_in_the_matrices_and_stages(
    pseudo, words_of_text_translated, window, wait_settled, qtbot
):
    texts = walk(window, wait_settled, qtbot)
    tokens = {token for name in ("mha", "causal", "simple") for token in preset(name).config.tokens}
    tokens |= {display_token(t) for t in tokens} | {display_token(t, 8) for t in tokens}
    assert sorted(english(texts, tokens)) == []


@pytest.fixture
def speak():
    """`speak(code)` switches the running window's language as View → Language does (Qt
    tells every widget); English again after the test."""
    from attn_explorer.ui.i18n import use_language

    yield use_language
    use_language("en")


def test_the_stages_and_the_softmax_panel_read_vietnamese_with_the_same_numbers(
    window, wait_settled, qtbot, speak
):
    """The window switches to Vietnamese while it is open: the stage tabs, the buttons, the
    softmax panel, the colour bars and the board's boxes are written anew."""
    window.load_preset("v1")
    wait_settled(window)
    window.tabs.setCurrentWidget(window.stepper)
    qtbot.waitUntil(window.stepper.isVisible)
    steps = window.stepper
    steps.set_stage("softmax")
    panel = steps.softmax_panel
    english = panel.entropy_text.text()
    # Row 2, "journey", of the tutorial's weights: 0.1500, 0.2264, 0.2199, 0.1311, 0.0906,
    # 0.1820.
    assert english == (
        "Entropy at k = 1: H = 1.7480 nats (the row's weights: 1.7480; uniform over the 6 "
        "visible keys: ln 6 = 1.7918; one-hot: 0). Largest weight: 0.2264."
    )
    steps.set_stage("mask")
    (mask,) = [plot for plot in steps.figure.plots if plot.shown.name == "mask"]
    assert [text for _, text in mask.colorbar.ticks] == ["0 visible", "1 hidden"]
    speak("vi")
    qtbot.waitUntil(lambda: steps.head_label.text() == "Đầu")
    assert [text for _, text in mask.colorbar.ticks] == ["0 không bị che", "1 bị che"]
    tabs = [steps.stages.tabText(i) for i in range(steps.stages.count())]
    assert tabs == [
        "1 X",
        "2 Q, K, V",
        "3 Q·Kᵀ",
        "4 Chia",
        "5 Mặt nạ",
        "6 Softmax",
        "7 Dropout",
        "8 α·V",
        "9 Nối",
        "10 Đầu ra",
    ]
    assert steps.prev_button.text() == "◀ Trước" and steps.next_button.text() == "Tiếp ▶"
    steps.set_stage("softmax")
    assert panel.entropy_text.text() == (
        "Entropy tại k = 1: H = 1.7480 nat (trọng số của hàng: 1.7480; phân phối đều trên 6 "
        "key không bị che: ln 6 = 1.7918; one-hot: 0). Trọng số lớn nhất: 0.2264."
    )
    assert panel.factor_label.text() == "Nhân attention score với k:"
    # At 1024 × 768 the longer titles give way to their short forms: written whole,
    # "softmax(1 × attention score)" widened its plot 25 px past the window's edge.
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: panel.sweep_plot.width() < 300)
    bars = (panel.score_plot, panel.weight_plot, panel.sweep_plot)
    qtbot.wait(50)
    assert [plot.getPlotItem().titleLabel.item.toPlainText() for plot in bars] == [
        "Attention score (hàng 2)",
        "Trọng số",
        "k = 1",
    ]
    assert all(plot.getPlotItem().geometry().width() <= plot.width() + 1 for plot in bars)
    assert window.minimumSizeHint().width() <= 960
    window.resize(1500, 940)
    qtbot.waitUntil(lambda: panel.sweep_plot.width() > 300)
    assert steps.followed.text().startswith("Theo dõi query 2 “journey”:\n")
    board = window.board
    assert board.head_label.text() == "Đầu"
    assert board.weight_box.itemText(0) == "Trọng số attention (softmax)"
    assert [text for _, text in board.views["mask"].plot.colorbar.ticks] == [
        "0 không bị che",
        "1 bị che",
    ]
    steps.set_stage("mask")
    speak("en")
    qtbot.waitUntil(lambda: steps.head_label.text() == "Head")
    assert steps.stages.tabText(4) == "5 Mask"
    assert [text for _, text in mask.colorbar.ticks] == ["0 visible", "1 hidden"]
    steps.set_stage("softmax")
    assert panel.entropy_text.text() == english
