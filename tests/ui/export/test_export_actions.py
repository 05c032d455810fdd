"""File menu, exports: the current figure, all stages, data and a PyTorch script."""

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QMessageBox

from attn_explorer.engine import compute
from attn_explorer.ui.export import export_actions
from attn_explorer.ui.export.figures import FigureSpec
from tests.scripts import run_in_process


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
    seen = []

    def watch(*args, **kwargs):
        seen.append((window.isEnabled(), QApplication.overrideCursor().shape()))
        return [tmp_path / "x.png"]

    monkeypatch.setattr(export_actions, "export_all_stages", watch)
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
    # In this process: tests/io/test_code_export.py runs a script as `python script.py`.
    done = run_in_process(tmp_path / "attn.py")
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
    npz_filter = export_actions._tr(export_actions.DATA_FILTERS["npz"])
    chosen = {"path": str(tmp_path / "lesson.json")}
    monkeypatch.setattr(
        export_actions.QFileDialog, "getSaveFileName", lambda *a: (chosen["path"], npz_filter)
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


def test_data_and_a_script_named_without_their_extension_get_it(
    window, tmp_path, dialogs, monkeypatch
):
    """ "lesson" typed under the NPZ filter was written as an archive named lesson, which
    nothing opens on a double click; the command line writes lesson.npz for -o lesson. The
    file dialog asked about replacing "lesson": replacing lesson.json is asked here."""
    typed = {"name": "lesson", "filter": export_actions._tr(export_actions.DATA_FILTERS["npz"])}
    monkeypatch.setattr(
        export_actions.QFileDialog,
        "getSaveFileName",
        lambda *a: (str(tmp_path / typed["name"]), typed["filter"]),
    )
    window.files.export_data()
    with np.load(tmp_path / "lesson.npz", allow_pickle=False) as data:
        np.testing.assert_array_equal(data["weights"], window.trace.weights)
    (tmp_path / "lesson.json").write_text("my notes\n")
    typed["filter"] = export_actions._tr(export_actions.DATA_FILTERS["json"])
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
    chosen_filter = export_actions._tr(export_actions.DATA_FILTERS[kind]) if kind else ""
    answers = [(str(tmp_path / "gone" / "deeper" / typed), chosen_filter)]
    asked = []

    def save_dialog(parent, title, start, filters, selected=""):
        asked.append((start, selected))
        return answers.pop(0) if answers else (str(tmp_path / typed), selected)

    monkeypatch.setattr(export_actions.QFileDialog, "getSaveFileName", save_dialog)
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
