"""Worksheets on paper (`ui/export/worksheet_pdf.py`, `worksheet_files.py`), read back from the
PDF: the key is `compute()` of its exercise, each exercise opens from what it prints, the paper
is the one asked for, Vietnamese prints, and a grid too large for the page is refused."""

from pathlib import Path

import pypdf
import pytest

from attn_explorer.engine import compute, preset
from attn_explorer.engine.variants import variant
from attn_explorer.io.session import load_session
from attn_explorer.text.numbers import num
from attn_explorer.text.worksheet import worksheet
from attn_explorer.ui.export.worksheet_files import (
    WorksheetError,
    WorksheetRequest,
    make_worksheet,
    session_path,
)
from attn_explorer.ui.export.worksheet_pdf import WorksheetTooLargeError, worksheet_pdf
from tests.ui.export.worksheet_pdf_text import exercises, page_texts, tables


def _expected(trace, name, head=0):
    matrix = trace.matrix(name, head)
    return [[num(v) for v in row] for row in matrix.tolist()]


def test_each_exercises_key_is_the_computation_of_the_seed_it_prints(qapp, tmp_path):
    original = preset("causal").config
    request = WorksheetRequest(original, ("scores", "weights", "head_contexts"), variants=3)
    out = tmp_path / "class.pdf"
    written = make_worksheet(request, out)
    assert written == [out, *(session_path(out, k) for k in (1, 2, 3))]
    found = exercises(out)
    assert len(found) == 3  # three different seeds printed
    keys = []
    for number, (seed, parts) in enumerate(found.items(), start=1):
        # The printed seed alone (with the original) gives the exercise, whose computation
        # the key holds, value for value.
        config = variant(original, seed)
        trace = compute(config)
        tokens = config.tokens
        key = tables(parts["key"], tokens, tokens)
        assert key == [_expected(trace, "scores"), _expected(trace, "weights")]
        assert tables(parts["key"], tokens, ("1", "2")) == [_expected(trace, "head_contexts")]
        # Its sheet gives X as drawn, and prints the grids empty.
        x = tables(parts["sheet"], tokens, ("1", "2", "3"))
        assert x == [[[f"{v:g}" for v in row] for row in config.embeddings]]
        assert tables(parts["sheet"], tokens, tokens) == []
        sheet_text = "\n".join(parts["sheet"])
        assert f"Exercise {number} of 3, seed {seed}" in sheet_text
        assert f"attn-explorer class-exercise-{number}.json" in sheet_text
        # The session it names opens this very exercise.
        assert load_session(session_path(out, number)).config() == config
        keys.append(key)
    assert keys[0] != keys[1] != keys[2] != keys[0]  # neighbours cannot copy


def test_the_exercise_itself_names_the_command_that_made_it(qapp, tmp_path):
    request = WorksheetRequest(
        preset("v1").config,
        ("weights",),
        source="SelfAttention_v1",
        open_with="attn-explorer --preset v1",
    )
    out = tmp_path / "v1.pdf"
    assert make_worksheet(request, out) == [out]  # no session: the command opens it
    parts = exercises(out)[123]
    text = "\n".join(parts["sheet"])
    assert "Attention worksheet: SelfAttention_v1" in text
    assert "attn-explorer --preset v1" in text
    tokens = preset("v1").config.tokens
    journey = tables(parts["key"], tokens, tokens)[0][1]
    assert journey == ["0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820"]
    # The key begins on a page of its own.
    pages = page_texts(out)
    assert pages[-1].split("\n")[1] == "Answer key: Exercise 1 of 1, seed 123"


@pytest.mark.parametrize(("paper", "size"), [("a4", (595, 842)), ("letter", (612, 792))])
def test_the_paper_is_the_one_asked_for(qapp, paper, size):
    trace = compute(preset("wrapper").config)
    data = worksheet_pdf([worksheet(trace, ("weights", "context"))], paper)
    import io

    reader = pypdf.PdfReader(io.BytesIO(data))
    assert len(reader.pages) >= 2
    for page in reader.pages:
        box = page.mediabox
        assert (round(float(box.width)), round(float(box.height))) == size


def test_a_vietnamese_worksheet_prints_its_letters(qapp, tmp_path, vietnamese):
    request = WorksheetRequest(
        preset("happy").config, ("weights", "head_contexts"), open_with="attn-explorer"
    )
    out = tmp_path / "bai.pdf"
    make_worksheet(request, out)
    pages = page_texts(out)
    text = "\n".join(pages)
    for words in (
        "Phiếu bài tập attention",
        "Đề 1 trong 1, seed 123",
        "Dữ kiện",
        "Công thức",
        "Bài làm",
        "Họ và tên:",
        "Trọng số attention",  # its α is a line of its own in the PDF's text
        "Đáp án: Đề 1 trong 1, seed 123",
    ):
        assert words in text, words
    key = tables(exercises(out)[123]["key"], ("I", "am", "happy"), ("I", "am", "happy"))
    # Tutorial "Ngày 43"'s exact weights, with decimal points.
    assert key[0] == [
        ["0.2994", "0.3321", "0.3685"],
        ["0.2514", "0.3260", "0.4227"],
        ["0.2078", "0.3149", "0.4773"],
    ]


def test_the_tutorials_sizes_fit_and_a_larger_grid_is_refused_not_cut(qapp, tmp_path):
    from attn_explorer.engine import AttentionConfig

    eight = AttentionConfig(
        tokens=tuple(f"token{i}" for i in range(8)),
        embeddings=tuple(tuple(0.1 * ((i + j) % 9) for j in range(8)) for i in range(8)),
        d_out=4,
        num_heads=2,
        causal=True,
    )
    trace = compute(eight)
    for paper in ("a4", "letter"):
        assert worksheet_pdf([worksheet(trace, ("scores", "weights", "context"))], paper)
    big = AttentionConfig(
        tokens=tuple(f"t{i}" for i in range(14)),
        embeddings=tuple((0.1 * (i % 9), 0.2, 0.3) for i in range(14)),
    )
    with pytest.raises(WorksheetTooLargeError, match=r"14 columns.*A4.*which takes"):
        worksheet_pdf([worksheet(compute(big), ("weights",))])
    out = tmp_path / "big.pdf"
    with pytest.raises(WorksheetTooLargeError):
        make_worksheet(WorksheetRequest(big, ("weights",), variants=2), out)
    assert not out.exists() and not session_path(out, 1).exists()  # nothing written


def test_an_input_cannot_be_blanked(qapp, tmp_path):
    out = tmp_path / "x.pdf"
    with pytest.raises(WorksheetError, match="x is given on the sheet"):
        make_worksheet(WorksheetRequest(preset("v1").config, ("x",)), out)
    assert not Path(out).exists()
