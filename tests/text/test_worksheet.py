"""A worksheet's words (`text.worksheet`): what is given, the formulas of the stages asked, the
grids to fill, and a key that is the computation's own numbers with each row's derivation."""

import re

import pytest

from attn_explorer.engine import compute, preset
from attn_explorer.text.numbers import num
from attn_explorer.text.steps import step_text
from attn_explorer.text.worksheet import (
    Line,
    Table,
    blank_problem,
    blankable,
    worksheet,
)
from tests.text.test_explain_i18n import untranslated


def _texts(blocks):
    return [b.text for b in blocks if isinstance(b, Line)]


def _tables(blocks):
    return [b for b in blocks if isinstance(b, Table)]


def test_the_causal_sheet_gives_the_inputs_and_blanks_what_is_asked():
    trace = compute(preset("causal").config)
    sheet = worksheet(trace, ("weights", "scores"), source="causal", open_with="attn-explorer x")
    given = [t for t in _tables(sheet.exercise) if not t.blank]
    assert [t.name for t in given] == ["x", "w_query", "w_key", "w_value"]
    x = given[0]
    assert x.rows == ("Your", "journey", "starts", "with", "one", "step")
    assert x.cells[1] == ("0.55", "0.87", "0.66")  # as typed, not 0.5500
    assert given[1].cells[0] == tuple(num(v) for v in trace.w_query[0, 0])
    blanks = [t for t in _tables(sheet.exercise) if t.blank]
    assert [t.name for t in blanks] == ["scores", "weights"]  # in the order computed
    assert blanks[1].cols == x.rows and blanks[1].rows == x.rows
    texts = _texts(sheet.exercise)
    assert "Exercise 1 of 1, seed 789" in texts
    assert "attn-explorer x" in texts
    # The step-through's own formulas, from the projections to softmax; not the context's.
    for key in ("projections", "scores", "mask", "scale", "softmax"):
        words = step_text(trace.step(key))
        assert words.title in texts and words.formula in texts
    assert step_text(trace.step("context")).title not in texts
    assert "Write −∞ where the mask hides a score." not in texts  # no score blanked is masked


def test_the_key_holds_every_blanked_value_and_a_worked_line_per_row():
    trace = compute(preset("v1").config)
    sheet = worksheet(trace, ("weights", "head_contexts"))
    keys = _tables(sheet.key)
    assert [t.name for t in keys] == ["weights", "head_contexts"]
    assert keys[0].cells[1] == ("0.1500", "0.2264", "0.2199", "0.1311", "0.0906", "0.1820")
    assert keys[1].cells[1] == ("0.3061", "0.8210")
    worked = [t for t in sheet.key if isinstance(t, Line) and t.style == "worked"]
    assert len(worked) == 12  # six rows of each
    # Row 2's line works out cell [2,2]: journey's weight for itself, 0.2264.
    assert worked[1].text.startswith("α[2,2]") and worked[1].text.endswith("= 0.2264")
    assert worked[7].text.startswith("z2[2]") and worked[7].text.endswith("= 0.8210")


def test_a_worked_line_skips_a_cell_the_mask_hides():
    trace = compute(preset("padding").config)  # keys 5 and 6 are padding
    sheet = worksheet(trace, ("weights",))
    worked = [t.text for t in sheet.key if isinstance(t, Line) and t.style == "worked"]
    assert worked[4].startswith("α[5,1]") and worked[5].startswith("α[6,1]")


def test_every_head_has_its_grid_and_the_output_projection_is_given_where_asked():
    trace = compute(preset("mha").config)
    sheet = worksheet(trace, ("weights", "context"))
    blanks = [(t.name, t.head) for t in _tables(sheet.exercise) if t.blank]
    assert blanks == [("weights", 0), ("weights", 1), ("context", None)]
    titles = [t.title for t in _tables(sheet.exercise)]
    assert "Attention weights α, head 2" in titles
    given = {t.name for t in _tables(sheet.exercise) if not t.blank}
    assert {"w_out", "b_out"} <= given
    only_weights = worksheet(trace, ("weights",))
    assert "w_out" not in {t.name for t in _tables(only_weights.exercise)}


def test_dropout_gives_its_keep_mask_and_masked_scores_ask_for_minus_infinity():
    trace = compute(preset("dropout").config)
    sheet = worksheet(trace, ("masked_scores", "weights_dropped"))
    keep = next(t for t in _tables(sheet.exercise) if t.name == "dropout_keep")
    assert set(c for row in keep.cells for c in row) == {"0", "1"}
    assert "Write −∞ where the mask hides a score." in _texts(sheet.exercise)
    key = next(t for t in _tables(sheet.key) if t.name == "masked_scores")
    assert key.cells[0][1] == "−∞"


def test_what_cannot_be_blanked_is_said():
    trace = compute(preset("v1").config)
    assert blank_problem(trace, "weights") is None
    assert "x is given on the sheet" in blank_problem(trace, "x")
    assert "w_query is given" in blank_problem(trace, "w_query")
    assert "drawn at random" in blank_problem(trace, "dropout_keep")
    said = blank_problem(trace, "banana")
    assert "no array 'banana'" in said and "scores, scaled_scores" in said
    # The dialog's list leaves out what is another array under a second name here.
    assert blankable(trace) == (
        "queries",
        "keys",
        "values",
        "scores",
        "scaled_scores",
        "weights",
        "head_contexts",
    )
    assert "concat" in blankable(compute(preset("wrapper").config))


def test_a_vietnamese_sheet(vietnamese):
    trace = compute(preset("happy").config)
    sheet = worksheet(trace, ("weights",), open_with="attn-explorer --preset happy")
    texts = _texts(sheet.exercise) + _texts(sheet.key)
    assert "Đề 1 trong 1, seed 123" in texts
    assert "Dữ kiện" in texts and "Công thức" in texts and "Bài làm" in texts
    assert "Đáp án: Đề 1 trong 1, seed 123" in texts
    assert "Điền mọi ô, lấy 4 chữ số thập phân." in texts
    assert (
        "Để kiểm tra kết quả, hãy mở đề này trong attn_explorer và dùng Kiểm tra số của tôi:"
        in texts
    )
    key = _tables(sheet.key)[0]
    assert key.cells[1] == ("0.2514", "0.3260", "0.4227")  # decimal points
    assert key.title == "Trọng số attention α"
    assert not any(re.search(r"\d,\d{4}", t) for t in texts)


def test_no_english_escapes_translation(pseudo):
    trace = compute(preset("dropout").config)
    sheet = worksheet(trace, ("masked_scores", "weights_dropped", "context"), source="x")
    for block in (*sheet.exercise, *sheet.key):
        texts = [block.title] if isinstance(block, Table) else [block.text]
        if isinstance(block, Line) and block.style == "command":
            continue  # a command line is typed as it is
        for text in texts:
            # Bernoulli names a distribution, as the step-through's formula writes it.
            assert untranslated(text.replace("Bernoulli", "")) == [], text


@pytest.mark.parametrize("name", ["simple", "happy", "causal", "dropout", "wrapper", "cross"])
def test_every_blankable_array_of_every_example_makes_a_sheet(name):
    trace = compute(preset(name).config)
    sheet = worksheet(trace, blankable(trace))
    assert {t.name for t in _tables(sheet.key)} == set(blankable(trace))
