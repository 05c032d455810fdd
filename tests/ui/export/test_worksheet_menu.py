"""File → Export Worksheet…: the dialog's choices, the file chosen, the worksheet of the
current settings written; its refusals in the window's language."""

from PySide6.QtCore import QSettings

from attn_explorer.engine.variants import variants
from attn_explorer.io.session import load_session
from attn_explorer.ui.export import export_actions
from attn_explorer.ui.export.worksheet_dialog import WorksheetDialog
from attn_explorer.ui.i18n import SETTING
from tests.ui.export.worksheet_pdf_text import exercises, page_texts


def _action(window, text):
    return next(a for a in window.files.menu.actions() if a.text() == text)


def test_the_menu_writes_the_worksheet_of_the_current_settings(
    window, wait_settled, tmp_path, dialogs, monkeypatch
):
    window.load_preset("v1")
    wait_settled(window)
    shown = {}

    def choose(dialog):  # the learner's choice: the scores and the weights, on Letter
        shown["boxes"] = list(dialog.boxes)
        shown["ok"] = dialog.buttons.buttons()[0].isEnabled()
        dialog.boxes["head_contexts"].setChecked(False)
        dialog.boxes["scores"].setChecked(True)
        dialog.paper.setCurrentIndex(dialog.paper.findData("letter"))
        return 1

    monkeypatch.setattr(WorksheetDialog, "exec", choose)
    monkeypatch.setattr(
        export_actions.QFileDialog, "getSaveFileName", lambda *a: (str(tmp_path / "v1"), "")
    )
    _action(window, "Export &Worksheet…").trigger()
    assert dialogs["critical"] == []
    assert shown["boxes"][:3] == ["queries", "keys", "values"] and shown["ok"]
    out = tmp_path / "v1.pdf"  # the extension added
    text = "\n".join(page_texts(out))
    assert "Attention worksheet: SelfAttention_v1" in text
    assert "attn-explorer --preset v1" in text  # the example opens it again
    assert "3. Scores" in text and "Answer key: Exercise 1 of 1, seed 123" in text
    assert window.statusBar().currentMessage() == f"Exported worksheet {out}"


def test_variants_from_the_menu_write_their_sessions(window, wait_settled, tmp_path, dialogs):
    window.load_preset("happy")
    wait_settled(window)
    out = tmp_path / "class.pdf"
    assert window.files.export_worksheet_to(out, ("weights",), variants=2, paper="a4")
    expected = variants(window.trace.config, 2)
    assert list(exercises(out)) == [v.seed for v in expected]
    for number, config in enumerate(expected, start=1):
        assert load_session(tmp_path / f"class-exercise-{number}.json").config() == config
    assert window.statusBar().currentMessage() == (
        f"Exported worksheet {out} and the sessions of its 2 exercises beside it"
    )


def test_an_edited_exercise_opens_from_a_session_beside_it(window, wait_settled, tmp_path, dialogs):
    window.doc.set_control("seed", 42)
    wait_settled(window)
    config = window.trace.config
    assert config.seed == 42
    out = tmp_path / "edited.pdf"
    assert window.files.export_worksheet_to(out, ("weights",))
    # No example computes this and no saved session holds it: a session beside it opens it.
    assert load_session(tmp_path / "edited-exercise-1.json").config() == config
    assert "attn-explorer edited-exercise-1.json" in "\n".join(page_texts(out))


def test_a_refusal_is_said_in_vietnamese(window, tmp_path, dialogs):
    window.set_language("vi")
    try:
        assert not window.files.export_worksheet_to(tmp_path / "x.pdf", ("x",))
        texts = [a.text() for a in window.files.menu.actions()]
        assert "Xuất ph&iếu bài tập…" in texts
    finally:
        window.set_language("en")
        QSettings().remove(SETTING)
    ((title, text),) = dialogs["critical"]
    assert title == "Không thể xuất phiếu bài tập"
    assert text == (
        "x được cho sẵn trên phiếu (một đầu vào, hoặc trọng số rút ra từ seed); hãy để trống "
        "một mảng được tính từ nó, ví dụ weights."
    )
    assert not (tmp_path / "x.pdf").exists()


def test_the_dialog_in_vietnamese_and_pseudo_translated(qapp, vietnamese):
    from attn_explorer.engine import compute, preset

    dialog = WorksheetDialog(compute(preset("dropout").config))
    try:
        assert dialog.windowTitle() == "Xuất phiếu bài tập"
        assert dialog.variants.specialValueText() == "không: chính bài này như hiện tại"
        assert dialog.paper.itemText(0) == "A4"
        weights = dialog.boxes["weights_dropped"]
        assert weights.text() == "Trọng số sau dropout α_d  (weights_dropped)"
        assert weights.isChecked() is False and dialog.boxes["weights"].isChecked()
        for box in dialog.boxes.values():
            box.setChecked(False)
        assert not dialog.buttons.buttons()[0].isEnabled()  # nothing to compute, no file
    finally:
        dialog.deleteLater()


def test_the_dialog_leaves_no_english_untranslated(qapp, pseudo):
    from attn_explorer.engine import compute, preset
    from tests.untranslated import shown_texts, untranslated

    trace = compute(preset("mha").config)
    dialog = WorksheetDialog(trace)
    try:
        # The arrays' code names in brackets are what --blank takes, in every language.
        names = set(dialog.boxes)
        assert untranslated(shown_texts(dialog), names) == set()
    finally:
        dialog.deleteLater()
