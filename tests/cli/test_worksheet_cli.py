"""`attn-explorer worksheet`: the PDF and its sessions written, the paths printed, and every
refusal one line with export's statuses (2 for an argument, 1 for a file)."""

import os

import pytest

from attn_explorer.engine import preset
from attn_explorer.engine.variants import variants
from attn_explorer.io.session import load_session
from tests.ui.export.worksheet_pdf_text import exercises, page_texts


def worksheet_here(capsys, *args):
    from attn_explorer.cli.worksheet import main

    try:
        status = main([str(a) for a in args])
    except SystemExit as refused:  # argparse's own refusals exit, as in a process
        status = refused.code
    out, err = capsys.readouterr()
    return status, out, err


def test_a_preset_with_set_names_the_command_that_opens_it(qapp, capsys, tmp_path):
    out = tmp_path / "v1"
    status, printed, err = worksheet_here(
        capsys, "--preset", "v1", "--set", "seed=7", "--blank", "weights", "-o", out
    )
    assert (status, err) == (0, "")
    assert printed.splitlines() == [str(tmp_path / "v1.pdf")]  # ".pdf" added
    text = "\n".join(page_texts(tmp_path / "v1.pdf"))
    assert "attn-explorer --preset v1 --set seed=7" in text
    assert "Exercise 1 of 1, seed 7" in text


def test_variants_write_their_sessions_and_follow_the_sessions_seed(qapp, capsys, tmp_path):
    out = tmp_path / "class.pdf"
    status, printed, _ = worksheet_here(
        capsys,
        "--preset",
        "happy",
        "--blank",
        "weights,head_contexts",
        "--variants",
        "2",
        "--paper",
        "letter",
        "-o",
        out,
    )
    assert status == 0
    sessions = [tmp_path / "class-exercise-1.json", tmp_path / "class-exercise-2.json"]
    assert printed.splitlines() == [str(out), *map(str, sessions)]
    expected = variants(preset("happy").config, 2)
    assert [load_session(p).config() for p in sessions] == list(expected)
    assert list(exercises(out)) == [v.seed for v in expected]


def test_vietnamese(qapp, capsys, tmp_path):
    out = tmp_path / "bai.pdf"
    status, _, _ = worksheet_here(
        capsys, "--preset", "causal", "--blank", "weights", "--lang", "vi", "-o", out
    )
    assert status == 0
    assert "Phiếu bài tập attention" in page_texts(out)[0]
    status, _, err = worksheet_here(
        capsys, "--lang", "vi", "--preset", "causal", "--blank", "x", "-o", out
    )
    assert status == 2
    assert err == (
        "attn-explorer worksheet: x được cho sẵn trên phiếu (một đầu vào, hoặc trọng số rút ra "
        "từ seed); hãy để trống một mảng được tính từ nó, ví dụ weights\n"
    )


@pytest.mark.parametrize(
    ("args", "status", "words"),
    [
        (["--blank", "weights", "-o", "w.pdf"], 2, "give a session file, --preset NAME"),
        (["--preset", "v1", "-o", "w.pdf"], 2, "the following arguments are required: --blank"),
        (["--preset", "v1", "--blank", "x", "-o", "w.pdf"], 2, "x is given on the sheet"),
        (["--preset", "v1", "--blank", "banana", "-o", "w.pdf"], 2, "no array 'banana'"),
        (["--preset", "v1", "--blank", "weights,", "-o", "w.pdf"], 2, "--blank: name the"),
        (["--preset", "v1", "--blank", "weights", "-o", "w.png"], 2, "name a .pdf file, not"),
        (["--preset", "v1", "--blank", "weights", "-o", "-"], 2, "cannot go to standard output"),
        (
            ["--preset", "v1", "--blank", "weights", "--variants", "0", "-o", "w.pdf"],
            2,
            "--variants must be between 1 and 200, not 0",
        ),
        (["--preset", "v1", "--blank", "weights", "--paper", "a3", "-o", "w.pdf"], 2, "'a3'"),
        (
            ["--tokens", "14", "--blank", "weights", "-o", "w.pdf"],
            2,
            "has 14 columns: its grid does not fit across the page (A4)",
        ),
        (["missing.json", "--blank", "weights", "-o", "w.pdf"], 1, "missing.json"),
        (
            ["--preset", "v1", "--blank", "weights", "-o", "nowhere/w.pdf"],
            1,
            "Cannot write nowhere/w.pdf: the folder nowhere does not exist.",
        ),
    ],
)
def test_refusals(qapp, capsys, tmp_path, monkeypatch, args, status, words):
    monkeypatch.chdir(tmp_path)
    got, printed, err = worksheet_here(capsys, *args)
    assert got == status
    assert printed == ""
    assert err.startswith("attn-explorer worksheet: ") and err.count("\n") == 1
    assert words in err
    assert not (tmp_path / "w.pdf").exists()


def test_the_command_is_reached_from_attn_explorer(tmp_path, capsys, qapp, monkeypatch):
    """`attn-explorer --lang vi worksheet …` (the entry point's dispatch, --lang before the
    command), with no display named: the command asks Qt for its offscreen platform itself,
    as export does. That such a command runs in a process with no display at all is shown
    by export's process (tests/cli/test_export.py, the one figure export run as a process)."""
    from attn_explorer.cli.window import main

    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.delenv("DISPLAY", raising=False)
    out = tmp_path / "w.pdf"
    command = ["--lang", "vi", "worksheet", "--preset", "happy", "--blank", "weights"]
    status = main([*command, "-o", str(out)])
    printed, err = capsys.readouterr()
    assert (status, err) == (0, "")
    assert printed == f"{out}\n"
    assert os.environ["QT_QPA_PLATFORM"] == "offscreen"
    assert "Đáp án" in "\n".join(page_texts(out))
