"""Under the pseudo-translation, the window is driven through every example, tab, array choice,
stage, hover, menu, dialog and refusal: every text a user can read there must have been looked
up in the catalogue (wrapped in ⟪…⟫). A text outside the brackets escaped translation."""

import pytest
from PySide6.QtCore import QPointF

from attn_explorer.engine.steps import step_keys
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.export.dialogs import ExportFigureDialog
from attn_explorer.ui.main_window import MainWindow
from tests.ui.conftest import settled
from tests.untranslated import shown_texts, untranslated

pytestmark = pytest.mark.usefixtures("pseudo")

# Examples that between them show every stage, mask, dropout, several heads, cross-attention
# and padding.
EXAMPLES = ("simple", "dropout", "mha", "cross", "padding", "happy")


@pytest.fixture
def pseudo_window(pseudo, qtbot):
    configure_pyqtgraph()
    window = MainWindow()
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    window.resize(1500, 940)
    with qtbot.waitSignal(window.firstPicture, timeout=30_000):
        window.show()
    yield window
    window.doc.undo_stack.setClean()
    window.close()


def tokens(window) -> set[str]:
    config = window.doc.config()
    words = set()
    for token in (*config.tokens, *(config.kv_tokens or ())):
        words |= set(token.split())
    return words


@pytest.fixture
def missed() -> dict[str, str]:
    """Each text that escaped translation, and where it was first seen."""
    return {}


def assert_none_missed(missed: dict[str, str]) -> None:
    assert not missed, "\n".join(f"{where}: {text!r}" for text, where in sorted(missed.items()))


@pytest.fixture
def look(pseudo_window, missed):
    def look(where: str, texts: list[str] | None = None) -> None:
        shown = texts if texts is not None else shown_texts(pseudo_window)
        for text in untranslated(shown, tokens(pseudo_window)):
            missed.setdefault(text, where)

    return look


# One test per example, so that the sweep's windows run on the test workers side by side.
@pytest.mark.parametrize("name", EXAMPLES)
def test_every_text_of_an_example_is_translated(pseudo_window, qtbot, look, missed, name):
    window = pseudo_window
    look("startup")
    window.load_preset(name)
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    window.show_tab(0)
    board = window.board
    for box in (board.heads_array, board.score_box, board.weight_box):
        for index in range(box.count()):
            box.setCurrentIndex(index)
            look(f"{name}: {box.itemText(index)}")
    for plot in [view.plot for view in board.views.values()]:
        plot._hover((0, 0), QPointF(5, 5))
        look(f"{name}: hover {plot.shown.name}", [board.explanation.text()])
    board.show_all_heads(True)
    look(f"{name}: all heads")
    board.show_all_heads(False)
    window.show_tab(1)
    stepper = window.stepper
    for key in step_keys(window.doc.config()):
        stepper.set_stage(key)
        qtbot.wait(1)
        look(f"{name}: stage {key}")
    assert_none_missed(missed)


def test_problems_and_dialogs_are_translated(pseudo_window, qtbot, look, missed, tmp_path):
    window = pseudo_window
    window.load_preset("happy")
    qtbot.waitUntil(lambda: settled(window), timeout=30_000)
    # A setting that cannot be computed: the problems, the banner over the old picture.
    window.doc.set_control("d_out", 3)
    window.doc.set_control("num_heads", 2)
    qtbot.waitUntil(lambda: bool(window.problems), timeout=10_000)
    look("problems")
    window.doc.undo_stack.undo()
    window.doc.undo_stack.undo()
    # The shortcuts dialog and the export dialog.
    dialog = window.show_shortcuts()
    look("shortcuts", shown_texts(dialog))
    dialog.close()
    _spec, what = window.current_figure()
    for all_stages in (False, True):
        export = ExportFigureDialog(what, (820, 700), tmp_path, "attention", all_stages, 1.0)
        qtbot.addWidget(export)
        look(f"export dialog, all stages {all_stages}", shown_texts(export))
        export.close()
    assert_none_missed(missed)
