"""The export dialog: the format follows the path's extension without mangling the path."""

from pathlib import Path

import pytest

from attn_explorer.ui.export_dialog import ExportFigureDialog, default_scale


@pytest.fixture
def dialog(qtbot, tmp_path):
    def make(all_stages: bool = False) -> ExportFigureDialog:
        d = ExportFigureDialog("weights", (820, 700), tmp_path, "attention", all_stages, 1.0)
        qtbot.addWidget(d)
        return d

    return make


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
