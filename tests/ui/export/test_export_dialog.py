"""The export dialog: the format follows the path's extension without mangling the path."""

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from attn_explorer.ui.export import dialogs as export_dialog
from attn_explorer.ui.export.dialogs import ExportFigureDialog, default_scale


@pytest.fixture
def dialog(qtbot, tmp_path):
    def make(all_stages: bool = False, write=None, folder=tmp_path) -> ExportFigureDialog:
        d = ExportFigureDialog(
            "weights", (820, 700), folder, "attention", all_stages, 1.0, write=write
        )
        qtbot.addWidget(d)
        return d

    return make


@pytest.fixture
def asked(monkeypatch):
    """Questions the dialog asks, answered with `asked["answer"]`."""
    calls = {"questions": [], "answer": QMessageBox.StandardButton.No}

    def question(parent, title, text, *args):
        calls["questions"].append(text)
        return calls["answer"]

    monkeypatch.setattr(export_dialog.QMessageBox, "question", question)
    return calls


def choose(d: ExportFigureDialog, fmt: str) -> None:
    d.format.setCurrentIndex(d.format.findData(fmt))


def test_the_extension_follows_the_format(dialog, tmp_path):
    d = dialog()
    choose(d, "svg")
    assert Path(d.path.text()) == tmp_path / "attention.svg"
    choose(d, "pdf")
    assert d.result_values()[:2] == (tmp_path / "attention.pdf", "pdf")


@pytest.mark.parametrize("typed", ["", "/", "figures/"])
def test_a_path_without_a_file_name_is_left_as_typed(dialog, typed):
    d = dialog()
    d.path.setText(typed)
    choose(d, "svg")  # raised "PosixPath('.') has an empty name" for "" and "/"
    assert d.path.text() == typed


def test_only_a_figure_extension_is_replaced(dialog):
    d = dialog()
    d.path.setText("/tmp/my.figures")
    choose(d, "svg")
    assert d.path.text() == "/tmp/my.figures.svg"
    stages = dialog(all_stages=True)
    stages.path.setText("/tmp/my.figures")
    choose(stages, "png")  # a folder of PNGs: the folder's name is kept whole
    assert stages.path.text() == "/tmp/my.figures"
    choose(stages, "pdf")
    assert stages.path.text() == "/tmp/my.figures.pdf"


def test_png_scale_covers_the_screen():
    assert [default_scale(r) for r in (1.0, 1.25, 2.0, 3.0)] == [1, 2, 2, 4]


def test_a_typed_extension_chooses_the_format_and_a_folder_is_refused(dialog, tmp_path):
    """PNG bytes went into a typed "fig.svg", and a typed folder became a file of that name."""
    d = dialog()
    choose(d, "png")
    d.path.setText(str(tmp_path / "fig.svg"))
    d.accept()
    assert d.result() == d.DialogCode.Accepted
    assert d.result_values()[:2] == (tmp_path / "fig.svg", "svg")

    d = dialog()
    d.path.setText(str(tmp_path / "sub") + "/")
    d.accept()
    assert d.result() != d.DialogCode.Accepted
    assert "is a folder: type a file name" in d.problem.text() and not d.problem.isHidden()
    d.path.setText(str(tmp_path))  # an existing folder, without the slash
    d.accept()
    assert d.result() != d.DialogCode.Accepted and not (tmp_path / "sub").exists()

    d = dialog(all_stages=True)
    choose(d, "png")  # stages as files go into a folder: a folder is what is asked for
    d.path.setText(str(tmp_path / "stages"))
    d.accept()
    assert d.result() == d.DialogCode.Accepted


def test_a_bare_name_is_saved_in_the_dialogs_folder(dialog, tmp_path, monkeypatch):
    """ "fig.svg" was written to the folder the app was started from, not the one shown."""
    monkeypatch.chdir("/")
    d = dialog()
    d.path.setText("fig.svg")
    assert d.result_values()[0] == tmp_path / "fig.svg"
    d.path.setText("sub/fig.svg")
    assert d.result_values()[0] == tmp_path / "sub" / "fig.svg"
    d.path.setText("~/fig.svg")
    assert d.result_values()[0] == Path.home() / "fig.svg"


def test_spaces_around_the_path_are_not_part_of_the_name(dialog, tmp_path):
    d = dialog()
    d.path.setText(f"  {tmp_path / 'fig.svg'} ")
    choose(d, "pdf")  # not "  …/fig.svg .pdf"
    assert d.path.text() == str(tmp_path / "fig.pdf")


def test_replacing_a_file_is_asked_first(dialog, tmp_path, asked):
    (tmp_path / "fig.png").write_bytes(b"old")
    written = []
    d = dialog(write=lambda *values: written.append(values))
    d.path.setText("fig.png")
    d.accept()
    assert d.result() != d.DialogCode.Accepted and not written
    assert asked["questions"] == [f"“fig.png” already exists in “{tmp_path}”. Replace it?"]
    asked["answer"] = QMessageBox.StandardButton.Yes
    d.accept()
    assert d.result() == d.DialogCode.Accepted and written[0][0] == tmp_path / "fig.png"


def test_replacing_stage_files_in_a_folder_is_asked_first(dialog, tmp_path, asked):
    (tmp_path / "steps").mkdir()
    (tmp_path / "steps" / "06-softmax.svg").write_text("old")
    d = dialog(all_stages=True)
    choose(d, "svg")
    d.path.setText("steps")
    d.accept()
    assert d.result() != d.DialogCode.Accepted
    assert asked["questions"] == [
        "The folder “steps” already holds the stage file 06-softmax.svg. Replace it?"
    ]
    d.path.setText("other")  # a new folder: nothing to ask
    d.accept()
    assert d.result() == d.DialogCode.Accepted and len(asked["questions"]) == 1


def test_a_refused_export_keeps_the_dialog_open_with_the_reason(dialog, tmp_path):
    """The dialog closed before writing; a refused size then came in a message box, and
    every choice had to be made again."""
    answers = ["This figure needs at least 580×300 px to fit, not 400×300.", None]
    d = dialog(write=lambda *values: answers.pop(0))
    d.accept()
    assert d.result() != d.DialogCode.Accepted and not d.problem.isHidden()
    assert d.problem.text() == "This figure needs at least 580×300 px to fit, not 400×300."
    d.accept()
    assert d.result() == d.DialogCode.Accepted


def test_the_last_format_scale_and_folder_are_remembered(dialog, tmp_path):
    (tmp_path / "figs").mkdir()
    d = dialog(write=lambda *values: None)
    choose(d, "png")
    d.scale.setCurrentIndex(d.scale.findData(4))
    d.path.setText("figs/weights.png")
    d.accept()
    d = dialog(folder=Path.home())
    assert d.chosen_format() == "png" and d.scale.currentData() == 4
    assert d.result_values()[0] == tmp_path / "figs" / "attention.png"
    d.format.setCurrentIndex(d.format.findData("svg"))
    d.accept()
    d = dialog(folder=Path.home())
    assert d.chosen_format() == "svg" and d.scale.currentData() == 4
    stages = dialog(all_stages=True)  # the stages keep their own format: PDF by default
    assert stages.chosen_format() == "pdf"


def test_a_typed_extension_that_makes_the_stages_a_folder_asks_about_that_folder(
    dialog, tmp_path, asked
):
    """ "steps.png" typed under PDF became the folder "steps": its stage files were replaced
    without a question, which was asked (not) about a file steps.png."""
    (tmp_path / "steps").mkdir()
    for name in ("01-embeddings.png", "06-softmax.png"):
        (tmp_path / "steps" / name).write_bytes(b"old")
    written = []
    d = dialog(all_stages=True, write=lambda *values: written.append(values))
    d.path.setText("steps.png")
    d.accept()
    assert asked["questions"] == [
        "The folder “steps” already holds 2 stage files (01-embeddings.png, …). Replace them?"
    ]
    assert d.result() != d.DialogCode.Accepted and not written


def test_a_relative_folder_is_made_absolute(dialog, tmp_path, monkeypatch):
    """A session opened as "lessons/l1.json" gave the folder "lessons": the field showed
    lessons/l1-matrices.png and Save wrote lessons/lessons/l1-matrices.png."""
    (tmp_path / "lessons").mkdir()
    monkeypatch.chdir(tmp_path)
    d = dialog(folder=Path("lessons"))
    assert d.result_values()[0] == tmp_path / "lessons" / "attention.png"
    d.path.setText("fig.svg")
    assert d.result_values()[0] == tmp_path / "lessons" / "fig.svg"


@pytest.mark.parametrize("name", ["~fig.png", "~$fig.png", "~nosuch/x.png"])
def test_a_name_starting_with_a_tilde_is_a_name(dialog, tmp_path, name):
    """Path.expanduser raised "Could not determine home directory": Save did nothing."""
    d = dialog(write=lambda *values: None)
    d.path.setText(name)
    d.accept()
    assert d.result() == d.DialogCode.Accepted
    assert d.result_values()[0] == tmp_path / name


def test_names_the_system_refuses_are_said_in_the_dialog(dialog, tmp_path, asked):
    """A 300-character name raised ENAMETOOLONG out of the check for an existing file, and a
    NUL raised ValueError in the writer: Save did nothing, with a traceback on stderr."""
    said = []
    d = dialog(write=lambda *values: said.append(values) or "Cannot write it: too long.")
    d.path.setText("x" * 300 + ".png")
    d.accept()
    assert said and d.problem.text() == "Cannot write it: too long."
    d.path.setText("a\0b.png")
    d.accept()
    assert d.problem.text() == "A file name cannot hold a NUL character." and len(said) == 1


def test_a_remembered_folder_the_system_refuses_is_ignored(dialog, tmp_path):
    from PySide6.QtCore import QSettings

    for garbage in ("/tmp/" + "x" * 300, "relative/folder", "5", "\0"):
        QSettings().setValue("exportFigure/directory", garbage)
        d = dialog()  # raised OSError (name too long): Export Figure never opened
        assert d.directory == tmp_path


@pytest.mark.parametrize(
    ("all_stages", "typed", "written"),
    [
        (True, "name", "name.pdf"),
        (True, "name.v2", "name.v2.pdf"),
        (False, "name", "name.png"),
        (False, "name.v2", "name.v2.png"),
    ],
)
def test_a_name_without_the_formats_extension_gets_it(
    dialog, tmp_path, asked, all_stages, typed, written
):
    """ "name" typed under PDF was written as a PDF named name, which no viewer opens on a
    double click; the command line writes name.pdf for the same -o, and so does the dialog,
    showing the name it writes and asking before replacing that file."""
    (tmp_path / written).write_bytes(b"old")
    said = []
    d = dialog(all_stages=all_stages, write=lambda *values: said.append(values))
    choose(d, "pdf" if all_stages else "png")
    d.path.setText(typed)
    d.accept()
    assert asked["questions"] == [f"“{written}” already exists in “{tmp_path}”. Replace it?"]
    assert d.result() != d.DialogCode.Accepted and not said
    assert d.path.text() == written
    asked["answer"] = QMessageBox.StandardButton.Yes
    d.accept()
    assert d.result() == d.DialogCode.Accepted
    assert said[0][:2] == (tmp_path / written, "pdf" if all_stages else "png")
