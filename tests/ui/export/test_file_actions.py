"""File menu, sessions: round-trip, title and unsaved guard, bad files, recent files."""

import json
from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from attn_explorer.io.session import save_session, state_to_document
from attn_explorer.model.state import random_sequence
from attn_explorer.ui.export import file_actions


def edit_something(window, wait_settled):
    model = window.doc.queries
    model.setData(model.index(1, 0), "voyage")
    model.setData(model.index(1, 1), "0.125")
    window.controls.seed.spin.setValue(4242)
    window.controls.heads.spin.setValue(2)
    wait_settled(window)


def test_save_and_open_round_trip(window, stepped_window, wait_settled, tmp_path, dialogs):
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


def test_new_starts_over_with_the_default_view(window, stepped_window, wait_settled, dialogs):
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


def test_a_session_naming_a_head_it_does_not_have_shows_the_last_one(
    window, stepped_window, wait_settled, tmp_path, dialogs
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
    assert spec.head == 0  # else Export Figure fails: "head 16 does not exist"

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


def test_a_session_following_a_token_the_open_window_lacks(
    window, stepped_window, wait_settled, tmp_path
):
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
