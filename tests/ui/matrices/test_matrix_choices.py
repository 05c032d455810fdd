"""The Matrices tab's boxes name what the configuration computes, as the step-through does:
no "scaled" without √d_k, no ·T at T = 1, no −∞ without a mask, no "after dropout" without
dropout. Renaming the items keeps the chosen one and signals no choice."""

import pytest
from PySide6.QtCore import Qt


def items(box) -> list[str]:
    return [box.itemText(i) for i in range(box.count())]


def tips(box) -> list[str]:
    return [box.itemData(i, Qt.ItemDataRole.ToolTipRole) or "" for i in range(box.count())]


@pytest.fixture
def board(window, wait_settled):
    """The window's board on SelfAttention_v1 (√d_k, T = 1, no mask, no dropout), the
    scaled scores chosen; every later change of choice recorded in `board.chosen`."""
    window.load_preset("v1")
    wait_settled(window)
    board = window.board
    board.score_box.setCurrentIndex(board.score_box.findData("scaled_scores"))
    board.chosen = []
    record = board.chosen.append
    boxes = (board.score_box, board.weight_box, board.heads_array)
    for box in boxes:
        box.currentIndexChanged.connect(record)
    yield board
    # The window may serve the next test (tests/ui/window_reuse.py): it must not go on
    # recording into this test's list.
    for box in boxes:
        box.currentIndexChanged.disconnect(record)
    del board.chosen


def set_controls(window, wait_settled, **controls) -> None:
    for name, value in controls.items():
        window.doc.set_control(name, value)
    wait_settled(window)


@pytest.mark.parametrize(
    ("controls", "scores", "scaled_tip"),
    [
        (
            {},
            ["Scores fed to softmax ω̃ (no mask)", "Scaled scores ω / √d_k", "Raw scores ω = Q·Kᵀ"],
            "ω̃ = ω / √d_k, √d_k = √2: ",
        ),
        (
            {"temperature": 0.5},
            [
                "Scores fed to softmax ω̃ (no mask)",
                "Scaled scores ω / (√d_k·T)",
                "Raw scores ω = Q·Kᵀ",
            ],
            "ω̃ = ω / (√d_k·T), √d_k = √2, T = 0.5: ",
        ),
        (
            {"scale": False, "temperature": 0.5},
            [
                "Scores fed to softmax ω̃ (no mask)",
                "Scores ÷ temperature ω / T",
                "Raw scores ω = Q·Kᵀ",
            ],
            "ω̃ = ω / T, T = 0.5: √d_k scaling is off",
        ),
        (
            {"scale": False},
            ["Scores fed to softmax ω (no mask)", "Scores ω (not scaled)", "Raw scores ω = Q·Kᵀ"],
            "√d_k scaling is off and T = 1: nothing divides the raw scores ω.",
        ),
        (
            {"scale": False, "causal": True},
            ["Scores fed to softmax ωₘ", "Scores ω (not scaled)", "Raw scores ω = Q·Kᵀ"],
            "√d_k scaling is off and T = 1",
        ),
        (
            {"causal": True, "mask_method": "renormalize"},
            [
                "Scores fed to softmax ω̃ (method 1)",
                "Scaled scores ω / √d_k",
                "Raw scores ω = Q·Kᵀ",
            ],
            "ω̃ = ω / √d_k, √d_k = √2: ",
        ),
    ],
    ids=["scaled", "scaled-and-T", "T-alone", "not-scaled", "not-scaled-causal", "method-1"],
)
def test_the_score_box_names_the_scores_this_configuration_computes(
    window, board, wait_settled, controls, scores, scaled_tip
):
    """It said "Scaled scores ω / (√d_k·T)" with √d_k off and T = 1, and "Scores fed to
    softmax" over the scores of the item below it, with no mask."""
    set_controls(window, wait_settled, **controls)
    box = board.score_box
    assert items(box) == scores
    assert tips(box)[1].startswith(scaled_tip)
    assert box.toolTip() == f"Which scores the left matrix shows\n{tips(box)[1]}"
    cfg = window.trace.config
    words = " ".join(items(box) + tips(box) + [box.toolTip()])
    assert ("√d_k" in words.replace("√d_k scaling is off", "")) == cfg.scale
    assert ("·T" in words or "÷ temperature" in words) == (cfg.temperature != 1)
    assert ("−∞" in words) == (cfg.has_mask and not cfg.method_1)
    # The item chosen stays chosen, and no choice was signalled (which redraws and is
    # saved into the session as the learner's).
    assert box.currentData() == "scaled_scores" and board.chosen == []
    assert board.views["scores"].plot.shown.name == "scaled_scores"


def test_the_texts_come_back_when_the_setting_is_undone(window, board, wait_settled):
    set_controls(window, wait_settled, scale=False)
    assert board.score_box.currentText() == "Scores ω (not scaled)"
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert board.score_box.currentText() == "Scaled scores ω / √d_k"
    assert board.chosen == []


def test_the_weight_box_says_when_there_is_no_dropout(window, board, wait_settled):
    box = board.weight_box
    assert items(box) == ["Weights (softmax)", "Weights (no dropout)"]
    assert tips(box)[1] == "No dropout (p = 0): these are the weights α as they are."
    set_controls(window, wait_settled, dropout=0.5)
    assert items(box) == ["Weights (softmax)", "Weights after dropout"]
    assert tips(box)[1].startswith("α_d = α ⊙ keep / (1 − p), p = 0.5: ")
    set_controls(window, wait_settled, training=False)
    assert items(box)[1] == "Weights (no dropout)"
    assert tips(box)[1] == "No dropout (evaluation mode): these are the weights α as they are."
    assert board.chosen == []


def test_the_all_heads_box_names_what_is_computed(window, board, wait_settled, qtbot):
    box = board.heads_array
    board.show_all_heads(True)
    box.setCurrentIndex(box.findData("scaled_scores"))
    board.chosen.clear()
    set_controls(window, wait_settled, scale=False, num_heads=2, d_out=4)
    assert items(box) == [
        "Weights",
        "Weights (no dropout)",
        "Scores fed to softmax (no mask)",
        "Scores (not scaled)",
        "Raw scores",
        "Queries Q",
        "Keys K",
        "Values V",
        "Context per head Z",
    ]
    assert box.toolTip() == (
        "Which matrix the grid shows for every head\n"
        "√d_k scaling is off and T = 1: nothing divides the raw scores ω."
    )
    set_controls(window, wait_settled, num_heads=1, causal=True, dropout=0.1)
    assert items(box)[1:4] == [
        "Weights after dropout",
        "Scores fed to softmax",
        "Scores (not scaled)",
    ]
    assert items(box)[-1] == "Context Z"
    assert box.currentData() == "scaled_scores" and board.chosen == []
    # What Export Figure calls the grid it saves.
    assert window.current_figure()[1] == "Scores (not scaled), all heads"


def test_a_seed_move_leaves_the_items_named_and_a_new_language_names_them_again(
    window, board, wait_settled, monkeypatch
):
    """The items depend on the settings `choice_text` reads, not on the seed: a seed move
    does not write them again (it did, fifteen texts and tooltips on every move). A language
    chosen meanwhile is written at the next trace."""
    from attn_explorer.text import i18n
    from attn_explorer.ui.matrices import board as board_module
    from attn_explorer.ui.matrices.choices import choice_text

    named = []
    real = board_module.name_items
    monkeypatch.setattr(
        board_module, "name_items", lambda box, *a, **k: named.append(box) or real(box, *a, **k)
    )
    english = items(board.score_box)
    set_controls(window, wait_settled, seed=window.trace.config.seed + 1)
    assert named == [] and items(board.score_box) == english
    set_controls(window, wait_settled, scale=False)
    assert len(named) == 3 and board.score_box.currentText() == "Scores ω (not scaled)"
    try:
        i18n.set_language("vi")
        set_controls(window, wait_settled, seed=window.trace.config.seed + 1)
        scaled = choice_text("scaled_scores", window.trace.config)[0]
        assert scaled != "Scores ω (not scaled)"  # the Vietnamese words
        assert board.score_box.currentText() == scaled
    finally:
        i18n.set_language("en")
        set_controls(window, wait_settled, seed=window.trace.config.seed + 1)
    assert board.score_box.currentText() == "Scores ω (not scaled)"
    assert board.chosen == []
