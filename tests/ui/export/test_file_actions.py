"""File menu: sessions round-trip, title and unsaved guard, bad files, recent files, exports."""

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from attn_explorer.engine import compute
from attn_explorer.io.session import save_session, state_to_document
from attn_explorer.model.state import random_sequence
from attn_explorer.ui.export import file_actions
from attn_explorer.ui.export.figures import FigureSpec


@pytest.fixture
def dialogs(monkeypatch):
    """Records message boxes instead of showing them; `answer` is what question() returns."""
    calls = {"critical": [], "question": [], "answer": QMessageBox.StandardButton.Discard}

    def critical(parent, title, text, *args):
        calls["critical"].append((title, text))

    def question(parent, title, text, *args):
        calls["question"].append((title, text))
        return calls["answer"]

    monkeypatch.setattr(file_actions.QMessageBox, "critical", critical)
    monkeypatch.setattr(file_actions.QMessageBox, "question", question)
    return calls


def edit_something(window, wait_settled):
    model = window.doc.queries
    model.setData(model.index(1, 0), "voyage")
    model.setData(model.index(1, 1), "0.125")
    window.controls.seed.spin.setValue(4242)
    window.controls.heads.spin.setValue(2)
    wait_settled(window)


def test_save_and_open_round_trip(window, wait_settled, tmp_path, dialogs):
    edit_something(window, wait_settled)
    window.tabs.setCurrentWidget(window.stepper)
    window.stepper.set_stage("softmax")
    window.board.views["weights"].plot.cellClicked.emit(4, 0)
    window.board.set_head(1)
    saved_state = window.current_state()
    saved_trace = window.trace
    path = tmp_path / "lesson.json"
    assert window.files.save_to(path)
    assert (
        window.windowTitle() == "lesson.json[*] — attn_explorer" and not window.isWindowModified()
    )

    window.files.new()
    wait_settled(window)
    assert window.doc.state().queries.tokens[1] == "journey"

    assert window.files.open_path(path)
    wait_settled(window)
    assert window.current_state() == saved_state
    for name in saved_trace.names:
        np.testing.assert_array_equal(window.trace[name], saved_trace[name])
    assert window.tabs.currentWidget() is window.stepper and window.stepper.stage == "softmax"
    assert window.board.head == 1 and window.doc.view.query == 4
    assert not window.doc.undo_stack.canUndo()


def test_new_starts_over_with_the_default_view(window, wait_settled, dialogs):
    window.board.querySelected.emit(4)  # following "one"
    window.tabs.setCurrentWidget(window.stepper)
    window.stepper.set_stage("softmax")
    window.controls.seed.spin.setValue(5)
    wait_settled(window)
    window.files.new()
    wait_settled(window)
    assert window.doc.view.query == window.stepper.query == window.board.query == 1
    assert window.stepper.followed.text().startswith("Following query 2 “journey”")
    assert window.current_figure()[0].query == 1
    assert window.tabs.currentWidget() is window.board


def test_export_figure_and_sessions_keep_the_matrices_the_boxes_chose(
    window, wait_settled, tmp_path, dialogs
):
    """Export Figure drew the scores fed to softmax and the weights before dropout whatever
    the boxes showed, and a session forgot the boxes and the all-heads grid."""
    from attn_explorer.ui.export.figures import build_figure

    window.load_preset("dropout")
    wait_settled(window)
    board = window.board
    board.score_box.setCurrentIndex(board.score_box.findData("scores"))
    board.weight_box.setCurrentIndex(board.weight_box.findData("weights_dropped"))
    on_screen = {view.plot.shown.name for view in board.views.values()}
    spec, _ = window.current_figure()
    figure = build_figure(window.trace, spec)
    drawn = {plot.shown.name for plot in figure.plots}
    assert drawn == on_screen >= {"scores", "weights_dropped"}
    mask = next(plot for plot in figure.plots if plot.shown.name == "mask")
    assert mask.title.text == board.views["mask"].plot.title.text

    board.show_all_heads(True)
    path = tmp_path / "choices.json"
    assert window.files.save_to(path)
    window.files.new()
    wait_settled(window)
    assert board.score_box.currentData() == "masked_scores" and not board.all_heads.isChecked()
    assert window.files.open_path(path)
    wait_settled(window)
    assert board.score_box.currentData() == "scores"
    assert board.weight_box.currentData() == "weights_dropped"
    assert board.all_heads.isChecked()


def test_title_marks_unsaved_changes(window, wait_settled, tmp_path, dialogs):
    assert window.windowTitle() == "Untitled[*] — attn_explorer"
    assert not window.isWindowModified()
    window.controls.seed.spin.setValue(5)
    assert window.isWindowModified()
    window.files.save_to(tmp_path / "s.json")
    assert not window.isWindowModified()
    window.doc.undo_stack.undo()
    assert window.isWindowModified()


def test_bad_files_are_refused_and_nothing_changes(window, wait_settled, tmp_path, dialogs):
    edit_something(window, wait_settled)
    before = window.current_state()
    cases = {
        "corrupt.json": "{not json",
        "truncated.json": '{"format": "attn_explorer.session", "version": 1, "queries": {"tok',
        "future.json": json.dumps({"format": "attn_explorer.session", "version": 99}),
        "list.json": "[]",
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        assert not window.files.open_path(tmp_path / name)
    assert not window.files.open_path(tmp_path / "missing.json")
    assert len(dialogs["critical"]) == 5
    assert all(title == "Cannot open session" for title, _ in dialogs["critical"])
    assert "newer" in dialogs["critical"][2][1]
    assert window.current_state() == before
    assert window.files.path is None and window.isWindowModified()


def without(section: str, field: str):
    """A damaged session: the window's own, saved without one field."""

    def damage(doc: dict) -> bytes:
        del doc[section][field]
        return json.dumps(doc, indent=1).encode("utf-8")

    return damage


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        pytest.param(
            without("controls", "dropout_seed"),
            "lesson.json is not a valid session: controls lacks the field dropout_seed.",
            id="format-3-without-the-dropout-seed",
        ),
        pytest.param(
            lambda doc: json.dumps(doc).replace('"seed": ', '"seed": 5, "seed": ', 1).encode(),
            'lesson.json is not a valid session: controls has the field "seed" more than once.',
            id="a-field-twice",
        ),
        pytest.param(
            lambda doc: b'{"format": "attn_explorer.session",\n "embeddings": [[1.5, NaN]]}',
            "lesson.json is not a valid session: it contains NaN at line 2, column 23, and every "
            "value must be a finite number.",
            id="nan-says-where",
        ),
        pytest.param(
            lambda doc: json.dumps(doc).encode("utf-16-le"),
            "lesson.json is not a session: it is UTF-16 text; save it as UTF-8.",
            id="utf-16-without-a-byte-order-mark",
        ),
        pytest.param(
            lambda doc: b'{\n "format": "attn_explorer.session",\n "saved_by": "Jos\xe9"}',
            "lesson.json is not a session: it is not UTF-8 text (byte 0xe9 at line 3, column 18).",
            id="latin-1-says-where",
        ),
    ],
)
def test_a_damaged_session_is_refused_in_one_sentence_and_nothing_changes(
    window, wait_settled, tmp_path, dialogs, damage, message
):
    edit_something(window, wait_settled)
    before = window.current_state()
    path = tmp_path / "lesson.json"
    path.write_bytes(damage(state_to_document(before)))
    assert not window.files.open_path(path)
    assert dialogs["critical"] == [("Cannot open session", message)]
    assert window.current_state() == before
    assert window.files.path is None and window.isWindowModified()


def test_closing_with_unsaved_changes_asks(window, wait_settled, dialogs, qtbot):
    window.controls.seed.spin.setValue(77)
    dialogs["answer"] = QMessageBox.StandardButton.Cancel
    window.close()
    assert window.isVisible() and window.bridge.is_running()
    assert dialogs["question"][0][0] == "Unsaved changes"
    dialogs["answer"] = QMessageBox.StandardButton.Discard
    window.close()
    assert not window.isVisible()


def test_recent_files(window, tmp_path, dialogs):
    for name in ("a.json", "b.json", "a.json"):
        window.files.save_to(tmp_path / name)
    recent = window.files.recent_files()
    assert recent[:2] == [(tmp_path / "a.json").resolve(), (tmp_path / "b.json").resolve()]
    window.files._fill_recent()
    labels = [a.text() for a in window.files.recent_menu.actions() if a.text()]
    assert labels[0].startswith("&1 a.json")


def test_saving_to_an_unwritable_place_says_so(window, tmp_path, dialogs):
    assert not window.files.save_to(tmp_path / "no-such-folder" / "s.json")
    assert dialogs["critical"] == [
        (
            "Cannot save session",
            f"Cannot save s.json: the folder {tmp_path}/no-such-folder does not exist.",
        )
    ]
    assert window.files.path is None


def test_opening_a_session_in_a_missing_folder_names_the_folder(window, tmp_path, dialogs):
    """Open Recent on a session whose folder was renamed said "No such file or directory"."""
    assert not window.files.open_path(tmp_path / "week 3" / "l1.json")
    assert dialogs["critical"] == [
        (
            "Cannot open session",
            f"l1.json cannot be read: the folder {tmp_path}/week 3 does not exist.",
        )
    ]


def test_export_current_view_stage_and_all_stages(window, wait_settled, tmp_path, dialogs):
    spec, what = window.current_figure()
    assert spec == FigureSpec("matrices", "", 0, 1) and "seven matrices" in what
    assert window.files.export_figure_to(tmp_path / "m.png", spec, scale=2, size=(800, 600))
    assert QImage(str(tmp_path / "m.png")).width() == 1600
    window.tabs.setCurrentWidget(window.stepper)
    window.stepper.set_stage("mask")
    spec, what = window.current_figure()
    # The example masks the raw scores first, as tutorial 000: the mask is stage 4.
    assert spec.kind == "stage" and spec.name == "mask" and what == "4. Mask"
    assert window.files.export_figure_to(tmp_path / "mask.svg", spec)
    assert window.files.export_stages_to(tmp_path / "all.pdf")
    assert (tmp_path / "all.pdf").stat().st_size > 10_000
    assert dialogs["critical"] == []


def test_a_size_refused_in_the_export_dialog_is_said_there(
    window, wait_settled, tmp_path, dialogs, monkeypatch
):
    """The dialog closed, then a message box refused the size: every choice was lost."""
    from attn_explorer.ui.export.dialogs import ExportFigureDialog

    seen = {}

    def user(dialog):  # what a user does in the dialog, instead of its modal loop
        dialog.path.setText(str(tmp_path / "board.png"))
        dialog.width.setValue(300)
        dialog.height.setValue(200)
        dialog.accept()
        seen["refused"] = (dialog.result(), dialog.problem.text())
        dialog.width.setValue(900)
        dialog.height.setValue(600)
        dialog.accept()
        return dialog.result()

    monkeypatch.setattr(ExportFigureDialog, "exec", user)
    window.files.export_figure()
    result, problem = seen["refused"]
    assert result != ExportFigureDialog.DialogCode.Accepted
    assert problem.startswith("This figure needs at least ") and "not 300×200" in problem
    assert QImage(str(tmp_path / "board.png")).width() == 900
    assert dialogs["critical"] == []


def test_exporting_all_stages_shows_a_wait_cursor_and_takes_no_input(
    window, wait_settled, tmp_path, dialogs, monkeypatch
):
    """Ten figures take seconds at 4× PNG on the window's thread, and laying them out runs
    the event loop: an edit then would land under the export."""
    from attn_explorer.ui.export import file_actions as module

    seen = []

    def watch(*args, **kwargs):
        seen.append((window.isEnabled(), QApplication.overrideCursor().shape()))
        return [tmp_path / "x.png"]

    monkeypatch.setattr(module, "export_all_stages", watch)
    assert window.files.export_stages_to(tmp_path / "stages", "png")
    assert seen == [(False, Qt.CursorShape.WaitCursor)]
    assert window.isEnabled() and QApplication.overrideCursor() is None


def test_export_data_and_script(window, wait_settled, tmp_path, dialogs):
    assert window.files.export_data_to(tmp_path / "d.npz", "npz")
    with np.load(tmp_path / "d.npz", allow_pickle=False) as data:
        np.testing.assert_array_equal(data["weights"], window.trace.weights)
    assert window.files.export_data_to(tmp_path / "csv", "csv")
    assert (tmp_path / "csv").is_dir() and any((tmp_path / "csv").iterdir())
    assert window.files.export_script_to(tmp_path / "attn.py")
    done = subprocess.run(
        [sys.executable, str(tmp_path / "attn.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    expected = compute(window.doc.config()).context
    assert f"{expected[1, 0]:.6f}" in done.stdout


def test_exported_data_holds_both_masking_methods_at_any_size(
    window, wait_settled, tmp_path, dialogs, monkeypatch
):
    """Above a million weights the live window skips the masking comparison, and its data
    export lacked weights_neg_inf and weights_renormalize (the command line's had them)."""
    monkeypatch.setattr(type(window), "COMPARE_CELLS", 1)
    window.controls.seed.spin.setValue(789)
    wait_settled(window)
    assert "weights_neg_inf" not in window.trace.arrays  # as for a big trace
    assert window.files.export_data_to(tmp_path / "d.npz", "npz")
    with np.load(tmp_path / "d.npz", allow_pickle=False) as data:
        assert {"weights_neg_inf", "weights_renormalize"} <= set(data.files)
        np.testing.assert_allclose(
            data["weights_renormalize"][0, 1, :2], [0.5517, 0.4483], atol=1e-4
        )


def test_a_failed_export_says_which_file_and_why_without_an_errno(
    window, wait_settled, tmp_path, dialogs
):
    """The message box read "[Errno 2] No such file or directory: '…/gone/attn.py'"."""
    (tmp_path / "taken").write_text("notes\n")
    assert not window.files.export_script_to(tmp_path / "gone" / "attn.py")
    assert not window.files.export_data_to(tmp_path / "taken", "csv")
    assert not window.files.export_stages_to(tmp_path / "taken", "svg")
    in_the_way = f"Cannot write {tmp_path}/taken: a file of that name is in the way."
    assert dialogs["critical"] == [
        (
            "Cannot export script",
            f"Cannot write {tmp_path / 'gone' / 'attn.py'}: the folder {tmp_path / 'gone'} "
            "does not exist.",
        ),
        ("Cannot export data", in_the_way),
        ("Cannot export the stages", in_the_way),
    ]
    assert (tmp_path / "taken").read_text() == "notes\n"


def test_exported_data_is_what_its_name_says_and_spares_other_files(
    window, tmp_path, dialogs, monkeypatch
):
    """ "lesson.json" typed under the NPZ filter was written as a zip archive; "data.csv" into
    an existing folder data/ deleted the teacher's data/scores.csv."""
    npz_filter = file_actions._tr(file_actions.DATA_FILTERS["npz"])
    chosen = {"path": str(tmp_path / "lesson.json")}
    monkeypatch.setattr(
        file_actions.QFileDialog, "getSaveFileName", lambda *a: (chosen["path"], npz_filter)
    )
    window.files.export_data()
    assert json.loads((tmp_path / "lesson.json").read_text(encoding="utf-8"))["config"]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "scores.csv").write_text("student,grade\n")
    chosen["path"] = str(tmp_path / "data.csv")
    window.files.export_data()
    assert (tmp_path / "data" / "scores.csv").read_text() == "student,grade\n"
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["scores.csv"]
    assert "already holds other files (scores.csv)" in dialogs["critical"][-1][1]


def test_data_and_script_are_not_written_for_settings_that_cannot_be_computed(
    window, wait_settled, tmp_path, dialogs, qtbot
):
    """They wrote the last computed settings (seed 7) while the controls said seed 99, with a
    notice of success."""
    window.controls.seed.spin.setValue(7)
    wait_settled(window)
    window.controls.layout_box.setCurrentIndex(window.controls.layout_box.findData("split"))
    window.controls.d_out.spin.setValue(3)
    window.controls.heads.spin.setValue(2)  # d_out 3 cannot be split into 2 heads
    window.controls.seed.spin.setValue(99)
    qtbot.waitUntil(lambda: bool(window.problems))
    assert not window.files.export_data_to(tmp_path / "data.npz", "npz")
    assert not window.files.export_script_to(tmp_path / "script.py")
    assert not (tmp_path / "data.npz").exists() and not (tmp_path / "script.py").exists()
    assert [title for title, _ in dialogs["critical"]] == [
        "Cannot export data",
        "Cannot export script",
    ]
    assert "d_out 3 cannot be split" in dialogs["critical"][0][1]
    # A figure is a picture of the screen, and its title names the settings it shows.
    assert window.files.export_figure_to(tmp_path / "f.png", window.current_figure()[0])
    window.controls.heads.spin.setValue(3)  # computable again: exports work
    wait_settled(window)
    assert window.files.export_script_to(tmp_path / "script.py")
    assert "manual_seed(99)" in (tmp_path / "script.py").read_text(encoding="utf-8")

    model = window.doc.queries  # the engine refuses (float32 overflow): not a control problem
    model.setData(model.index(0, 1), "1e20")
    model.setData(model.index(1, 1), "-1e20")
    qtbot.waitUntil(lambda: window.stale_reason is not None)
    assert not window.problems
    assert not window.files.export_data_to(tmp_path / "overflow.npz", "npz")
    assert not (tmp_path / "overflow.npz").exists()
    assert "overflowed float32" in dialogs["critical"][-1][1]


def test_a_session_naming_a_head_it_does_not_have_shows_the_last_one(
    window, wait_settled, tmp_path, dialogs
):
    path = tmp_path / "edited.json"
    assert window.files.save_to(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["view"]["head"] = 15  # edited by hand; the default example has one head
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert window.files.open_path(path)
    wait_settled(window)
    assert window.board.shown_head == 0 and window.board.head_box.currentIndex() == 0
    spec, _ = window.current_figure()
    assert spec.head == 0  # Export Figure used to fail: "head 16 does not exist"

    doc["view"].update(tab="steps", stage="softmax")  # the same on the step-through
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert window.trace.config == window.doc.config()
    assert window.files.open_path(path)  # the same settings: no new picture will come
    assert window.stepper.shown_head == 0 and window.board.shown_head == 0
    wait_settled(window)
    assert window.stepper.shown_head == 0 and window.stepper.head_box.currentIndex() == 0
    spec, _ = window.current_figure()
    assert spec.head == 0
    assert window.files.export_figure_to(tmp_path / "stage.png", spec)
    assert window.files.export_stages_to(tmp_path / "stages.pdf")
    assert dialogs["critical"] == []


def test_a_refused_session_naming_a_head_the_picture_lacks_keeps_the_boxes_working(
    window, wait_settled, tmp_path, dialogs, qtbot
):
    """Settings that cannot be computed bring no new picture, and the old one has one head:
    drawing its head 2 raised an IndexError whenever a box changed the matrices shown."""
    controls = window.controls
    controls.d_out.spin.setValue(5)
    controls.heads.spin.setValue(2)
    wait_settled(window)
    window.board.set_head(1)
    controls.layout_box.setCurrentIndex(controls.layout_box.findData("split"))  # 5 / 2: refused
    qtbot.waitUntil(lambda: bool(window.problems))
    assert window.files.save_to(tmp_path / "lesson.json")
    window.files.new()  # the default example: one head
    wait_settled(window)
    assert window.files.open_path(tmp_path / "lesson.json")
    qtbot.waitUntil(lambda: bool(window.problems))
    assert window.trace.heads == 1 and window.board.head == 1
    window.board.score_box.setCurrentIndex(window.board.score_box.findData("scores"))
    assert window.board.views["scores"].plot.shown.name == "scores"
    np.testing.assert_array_equal(window.board.views["scores"].plot.matrix, window.trace.scores[0])
    window.board.show_all_heads(True)
    window.board.show_all_heads(False)
    controls.layout_box.setCurrentIndex(controls.layout_box.findData("stacked"))
    wait_settled(window)  # computable again, with its two heads: the one chosen comes back
    assert window.board.shown_head == 1 and window.board.head_box.currentIndex() == 1


def test_a_session_following_a_token_the_open_window_lacks(window, wait_settled, tmp_path):
    """Opened from 6 tokens, a session of 8 following the 8th at the softmax stage: the
    step-through drew the new view with the old trace (an IndexError) before its own came."""
    state = window.doc.state()
    tokens = random_sequence(8, 3)
    state = replace(state, queries=tokens, kv=tokens)
    state = replace(state, view=replace(state.view, query=7, stage="softmax", tab="steps"))
    save_session(tmp_path / "eight.json", state)
    assert window.files.open_path(tmp_path / "eight.json")
    wait_settled(window)
    assert window.stepper.query == 7 and window.stepper.softmax_panel.labels[-1] == "t8"
    assert window.stepper.followed.text().startswith("Following query 8")


def type_seed_without_enter(window, text):
    spin = window.controls.seed.spin
    window.activateWindow()
    spin.setFocus()
    spin.selectAll()
    QTest.keyClicks(spin, text)
    assert spin.text() == text and window.doc.controls.seed == 123
    return spin


def test_save_takes_in_what_is_typed_but_not_entered(window, wait_settled, tmp_path, dialogs):
    """Ctrl+S does not move the focus: the seed typed in its box and a cell's open editor
    stayed out of the file, and the title said it was saved."""
    window.files.path = tmp_path / "typed.json"
    spin = type_seed_without_enter(window, "42")
    QTest.keyClick(spin, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    saved = json.loads((tmp_path / "typed.json").read_text(encoding="utf-8"))
    assert saved["controls"]["seed"] == 42 and not window.isWindowModified()
    assert QApplication.focusWidget() is spin  # the focus stays where the user typed

    table = window.editor.query_table
    index = table.model().index(0, 1)
    table.setFocus()
    table.setCurrentIndex(index)
    table.edit(index)
    editor = QApplication.focusWidget()
    editor.selectAll()
    QTest.keyClicks(editor, "0.777")
    QTest.keyClick(editor, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    saved = json.loads((tmp_path / "typed.json").read_text(encoding="utf-8"))
    assert saved["queries"]["embeddings"][0][0] == 0.777 and not window.isWindowModified()
    assert QApplication.focusWidget() is table


def test_closing_asks_about_a_value_typed_but_not_entered(window, dialogs):
    type_seed_without_enter(window, "42")
    dialogs["answer"] = QMessageBox.StandardButton.Cancel
    assert not window.close()
    assert dialogs["question"] and window.doc.controls.seed == 42  # kept, not lost


def test_an_opened_session_replaces_a_value_typed_but_not_entered(window, tmp_path, dialogs):
    """The box kept showing 42 over the file's 123, and leaving it recorded "Change seed"
    into the session just opened."""
    save_session(tmp_path / "plain.json", window.doc.state())
    spin = type_seed_without_enter(window, "42")
    assert window.files.open_path(tmp_path / "plain.json")
    assert spin.text() == "123" and window.doc.controls.seed == 123
    spin.clearFocus()
    assert window.doc.undo_stack.isClean() and window.doc.controls.seed == 123


@pytest.mark.parametrize(("extra", "modified"), [([], False), (["--set", "seed=5"], True)])
def test_a_session_named_on_the_command_line_is_the_one_saved_to(
    qtbot, tmp_path, monkeypatch, extra, modified
):
    """`attn-explorer lesson.json` opened the session as "Untitled": Ctrl+S asked where to
    save, and the recent list did not have it."""
    from attn_explorer.cli import window as cli
    from attn_explorer.model.state import default_state
    from attn_explorer.ui.main_window import MainWindow

    path = tmp_path / "lesson.json"
    save_session(path, default_state().with_controls(seed=777))
    seen, shown = {}, []
    # The window the command opens, caught as it is shown. (Looking for it among the
    # application's top-level widgets crashed after some earlier tests: their windows are
    # closed but not yet deleted.)
    monkeypatch.setattr(MainWindow, "show", lambda self: (shown.append(self), QWidget.show(self)))

    def run(app):  # instead of the event loop: look at the window the command opened
        (window,) = shown
        seen.update(
            title=window.windowTitle(),
            modified=window.isWindowModified(),
            path=window.files.path,
            recent=window.files.recent_files(),
        )
        window.doc.undo_stack.setClean()  # closing must not ask
        return 0

    monkeypatch.setattr(QApplication, "exec", run)
    assert cli.gui_main([str(path), "--size", "900x700", *extra]) == 0
    assert seen["title"] == "lesson.json[*] — attn_explorer"
    assert seen["path"] == path and seen["modified"] is modified
    assert seen["recent"][0] == path.resolve()


def test_opening_a_session_shows_a_wait_cursor_and_restores_it(window, tmp_path, monkeypatch):
    """A session of thousands of tokens takes seconds to read on the window's thread: the
    pointer says so, and comes back after a refusal too."""
    from attn_explorer.io.session import SessionError

    seen = []

    def slow_load(path):
        cursor = QApplication.overrideCursor()
        seen.append(None if cursor is None else cursor.shape())
        raise SessionError(f"{path.name} is not a valid session: a test.")

    monkeypatch.setattr(file_actions, "load_session", slow_load)
    errors = []
    monkeypatch.setattr(window.files, "_error", lambda title, text: errors.append(text))
    assert not window.files.open_path(tmp_path / "big.json")
    assert seen == [Qt.CursorShape.WaitCursor]
    assert QApplication.overrideCursor() is None
    assert errors == ["big.json is not a valid session: a test."]


def test_an_export_the_disk_cannot_hold_is_said_and_the_earlier_file_kept(
    window, wait_settled, tmp_path, dialogs, disk_full_after
):
    """Over a full disk the SVG export said "Exported" and left half a picture where the
    earlier one had been; the script was cut short the same way, with a message."""
    spec, _ = window.current_figure()
    figure, script = tmp_path / "attention.svg", tmp_path / "attention.py"
    assert window.files.export_figure_to(figure, spec, size=(900, 600))
    (tmp_path / "attention.py").write_text("# my own notes, then the script\n" * 400)
    before = {path: path.read_bytes() for path in (figure, script)}
    window.controls.seed.spin.setValue(4242)
    wait_settled(window)
    with disk_full_after(4096):
        assert not window.files.export_figure_to(figure, spec, size=(900, 600))
        assert not window.files.export_script_to(script)
    assert dialogs["critical"] == [
        ("Cannot export figure", f"Cannot write {figure}: File too large."),
        ("Cannot export script", f"Cannot write {script}: File too large."),
    ]
    assert {path: path.read_bytes() for path in (figure, script)} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["attention.py", "attention.svg"]


def test_save_as_adds_json_to_a_dotted_name_and_asks_before_replacing_that_file(
    window, tmp_path, dialogs, monkeypatch
):
    """ "Lesson 3.1" was saved as typed, a file the Open dialog (*.json) never showed; and
    "notes" was saved over an existing notes.json without a question (the file dialog had
    asked about "notes", which did not exist)."""
    typed = {"name": "Lesson 3.1"}
    monkeypatch.setattr(
        file_actions.QFileDialog,
        "getSaveFileName",
        lambda *a: (str(tmp_path / typed["name"]), ""),
    )
    assert window.files.save_as()
    assert window.files.path == tmp_path / "Lesson 3.1.json"
    assert window.windowTitle() == "Lesson 3.1.json[*] — attn_explorer"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Lesson 3.1.json"]

    (tmp_path / "notes.json").write_text("my notes\n")
    typed["name"] = "notes"
    dialogs["answer"] = QMessageBox.StandardButton.No
    assert not window.files.save_as()
    assert dialogs["question"] == [("Replace session?", "notes.json already exists. Replace it?")]
    assert (tmp_path / "notes.json").read_text() == "my notes\n"
    assert window.files.path == tmp_path / "Lesson 3.1.json"
    dialogs["answer"] = QMessageBox.StandardButton.Yes
    assert window.files.save_as() and window.files.path == tmp_path / "notes.json"
    assert json.loads((tmp_path / "notes.json").read_text())["format"] == "attn_explorer.session"


def test_data_and_a_script_named_without_their_extension_get_it(
    window, tmp_path, dialogs, monkeypatch
):
    """ "lesson" typed under the NPZ filter was written as an archive named lesson, which
    nothing opens on a double click; the command line writes lesson.npz for -o lesson. The
    file dialog asked about replacing "lesson": replacing lesson.json is asked here."""
    typed = {"name": "lesson", "filter": file_actions._tr(file_actions.DATA_FILTERS["npz"])}
    monkeypatch.setattr(
        file_actions.QFileDialog,
        "getSaveFileName",
        lambda *a: (str(tmp_path / typed["name"]), typed["filter"]),
    )
    window.files.export_data()
    with np.load(tmp_path / "lesson.npz", allow_pickle=False) as data:
        np.testing.assert_array_equal(data["weights"], window.trace.weights)
    (tmp_path / "lesson.json").write_text("my notes\n")
    typed["filter"] = file_actions._tr(file_actions.DATA_FILTERS["json"])
    dialogs["answer"] = QMessageBox.StandardButton.No
    window.files.export_data()
    assert dialogs["question"] == [("Replace file?", "lesson.json already exists. Replace it?")]
    assert (tmp_path / "lesson.json").read_text() == "my notes\n"
    typed["name"] = "attn.v2"
    window.files.export_script()
    assert "torch.manual_seed" in (tmp_path / "attn.v2.py").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["attn.v2.py", "lesson.json", "lesson.npz"]
    assert dialogs["critical"] == []


@pytest.mark.parametrize(
    ("typed", "kind", "written"),
    [
        ("x.csv", "csv", ["config.json", "context.csv"]),
        ("x.npz", "npz", ["x.npz"]),
        ("x.json", "json", ["x.json"]),
        ("x.py", None, ["x.py"]),
    ],
)
def test_a_missing_folder_typed_in_the_save_dialog_is_refused_and_the_dialog_comes_back(
    window, wait_settled, tmp_path, dialogs, monkeypatch, typed, kind, written
):
    """ "gone/deeper/x.csv" typed in Export Data made both folders silently, where the
    command line refuses a missing folder. The refusal names the folder, and the dialog
    opens again with the name and the type chosen, in the nearest folder that exists."""
    chosen_filter = file_actions._tr(file_actions.DATA_FILTERS[kind]) if kind else ""
    answers = [(str(tmp_path / "gone" / "deeper" / typed), chosen_filter)]
    asked = []

    def save_dialog(parent, title, start, filters, selected=""):
        asked.append((start, selected))
        return answers.pop(0) if answers else (str(tmp_path / typed), selected)

    monkeypatch.setattr(file_actions.QFileDialog, "getSaveFileName", save_dialog)
    if kind is None:
        window.files.export_script()
    else:
        window.files.export_data()
    title = "Cannot export script" if kind is None else "Cannot export data"
    assert dialogs["critical"] == [
        (
            title,
            f"Cannot write {tmp_path / 'gone' / 'deeper' / typed}: the folder "
            f"{tmp_path / 'gone' / 'deeper'} does not exist.",
        )
    ]
    assert asked[1] == (str(tmp_path / typed), chosen_filter)
    assert [p.name for p in tmp_path.iterdir()] == [typed.removesuffix(".csv")]
    assert set(written) <= {p.name for p in tmp_path.glob("**/*")}


@pytest.mark.parametrize(("all_stages", "typed"), [(False, "board.png"), (True, "steps.png")])
def test_a_figure_into_a_missing_folder_is_refused_in_its_dialog(
    window, wait_settled, tmp_path, dialogs, monkeypatch, all_stages, typed
):
    """Stages as PNG into "gone/deeper/steps" made both folders; one figure there said "No
    such file or directory", naming the file, not the folder that is missing."""
    from attn_explorer.ui.export.dialogs import ExportFigureDialog

    seen = {}

    def user(dialog):
        dialog.path.setText(str(tmp_path / "gone" / "deeper" / typed))
        dialog.accept()
        seen["refused"] = (dialog.result(), dialog.problem.text(), dialog.path.text())
        return dialog.result()

    monkeypatch.setattr(ExportFigureDialog, "exec", user)
    if all_stages:
        window.files.export_stages()
    else:
        window.files.export_figure()
    target = tmp_path / "gone" / "deeper" / typed.removesuffix(".png" if all_stages else "")
    assert seen["refused"] == (
        ExportFigureDialog.DialogCode.Rejected,
        f"Cannot write {target}: the folder {tmp_path / 'gone' / 'deeper'} does not exist.",
        str(target),  # as typed: nothing chosen is lost (steps.png is the folder steps)
    )
    assert list(tmp_path.iterdir()) == [] and dialogs["critical"] == []


def test_a_session_name_that_is_not_utf8_is_shown_by_its_bytes(
    window, tmp_path, dialogs, monkeypatch
):
    """The title, the notice, the recent files and the messages showed the byte 0xff of
    "s\\xff.json" as "\ufffd", and the command line as "\\udcff": neither says which file."""
    import os

    notices = []
    monkeypatch.setattr(window, "notify", notices.append)
    path = tmp_path / os.fsdecode(b"s\xff.json")
    assert window.files.save_to(path)
    assert window.windowTitle() == "s\\xff.json[*] — attn_explorer"
    assert not window.files.open_path(path.with_name(os.fsdecode(b"t\xff.json")))
    assert not window.files.export_script_to(tmp_path / os.fsdecode(b"gone\xff") / "a.py")
    assert notices == [f"Saved {tmp_path}/s\\xff.json"]
    assert dialogs["critical"] == [
        ("Cannot open session", "t\\xff.json cannot be read: No such file or directory."),
        (
            "Cannot export script",
            f"Cannot write {tmp_path}/gone\\xff/a.py: the folder {tmp_path}/gone\\xff does "
            "not exist.",
        ),
    ]


def test_a_session_name_that_is_not_utf8_is_not_listed_under_another_name(
    window, tmp_path, dialogs
):
    """The settings keep text, which drops the byte 0xff: s\\xff.json was listed, and opened
    from Open Recent, as s.json, another file."""
    import os

    (tmp_path / "s.json").write_text("not mine\n")
    assert window.files.save_to(tmp_path / "a.json")
    assert window.files.save_to(tmp_path / os.fsdecode(b"s\xff.json"))
    assert window.files.recent_files()[0] == tmp_path / "a.json"
    assert tmp_path / "s.json" not in window.files.recent_files()
