"""View → Language writes every word again at once, and keeps what the learner was doing."""

import pytest
from PySide6.QtCore import QSettings

from attn_explorer.text import i18n
from attn_explorer.ui.i18n import SETTING, chosen_language, use_language


@pytest.fixture
def back_to_english():
    yield
    use_language("en")
    QSettings().remove(SETTING)


def test_switching_keeps_the_document_undo_history_query_stage_and_file(
    window, qtbot, back_to_english, tmp_path
):
    window.load_preset("causal")
    window.doc.set_control("seed", 7)
    qtbot.waitUntil(lambda: window.trace.config.seed == 7, timeout=30_000)
    doc, undo_count = window.doc, window.doc.undo_stack.count()
    window._show_query(3)
    window.doc.set_view(query=3)
    window.show_tab(1)
    window.stepper.set_stage("softmax")
    window.files.path = tmp_path / "lesson.attn.json"
    weights = window.trace.arrays["weights"].copy()

    with qtbot.waitSignal(window.traceShown, timeout=30_000):
        window.language_actions["vi"].trigger()

    assert i18n.language() == "vi"
    assert window.language_actions["vi"].isChecked()
    assert window.tabs.tabText(0) == "Ma trận"
    assert window.tabs.tabText(1) == "Từng bước"
    assert window.doc is doc
    assert window.doc.undo_stack.count() == undo_count
    assert window.doc.config().seed == 7
    assert window.board.query == 3
    assert window.stepper.stage == "softmax"
    assert window.tabs.currentWidget() is window.stepper
    assert window.files.path == tmp_path / "lesson.attn.json"
    assert (window.trace.arrays["weights"] == weights).all()
    # One set of actions: a shortcut the old menus held would now be ambiguous.
    actions = window.findChildren(type(window.language_actions["vi"]))
    undo_actions = [action for action in actions if action.shortcut().toString() == "Ctrl+Z"]
    assert len(undo_actions) == 1
    window.doc.undo_stack.undo()
    assert window.doc.config().seed != 7
    assert chosen_language() == "vi"  # remembered for the next run


def test_choosing_the_language_already_spoken_changes_nothing(window, back_to_english):
    board = window.board
    window.language_actions["en"].trigger()
    assert window.board is board
