"""The summary of what differs between A and B, as a learner reads it in English and in
Vietnamese: the settings, the first stage that differs, each array's largest change."""

from dataclasses import replace

from attn_explorer.engine import compute, preset
from attn_explorer.engine.compare import compare
from attn_explorer.text.compare import summary, summary_lines

MHA = preset("mha").config


def _switched_off_head_2():
    return compare(compute(MHA), compute(replace(MHA, ablate=(2,))))


def test_switching_head_2_off_is_summed_up_in_english():
    assert summary_lines(_switched_off_head_2()) == [
        "B changes ablate (none → 2).",
        "The first stage that differs is 9. Concatenate heads.",
        "Concatenated heads: largest change -0.2216 at row Your, column h2.1.",
        "Context (output): largest change -0.0503 at row Your, column 1.",
    ]


def test_switching_head_2_off_is_summed_up_in_vietnamese(vietnamese):
    lines = summary_lines(_switched_off_head_2())
    assert lines[0] == "B thay đổi ablate (không có → 2)."
    assert lines[1] == "Các mảng bắt đầu khác nhau từ Bước 9. Nối các đầu."
    assert lines[3].endswith(": thay đổi lớn nhất -0.0503 tại hàng Your, cột 1.")


def test_a_setting_turned_off_and_a_shape_that_differs(vietnamese):
    v2 = preset("v2").config
    text = summary(compare(compute(v2), compute(replace(v2, scale=False, d_out=3))))
    assert "B thay đổi d_out (2 → 3), scale (bật → tắt)." in text
    assert "Các mảng bắt đầu khác nhau từ Bước 2. Tính Q, K, V bằng phép chiếu." in text
    assert "không so sánh được, 1×6×2 ở A và 1×6×3 ở B." in text


def test_fewer_tokens_say_what_is_compared():
    fewer = replace(MHA, tokens=MHA.tokens[:4], embeddings=MHA.embeddings[:4])
    lines = summary_lines(compare(compute(MHA), compute(fewer)))
    assert lines[0] == "B changes the query tokens, the query embeddings."
    assert lines[-1].endswith("are equal on the tokens both have; only their sizes differ.")


def test_a_mask_said_as_cells_hidden_on_one_side(vietnamese):
    v2 = preset("v2").config
    text = summary(compare(compute(v2), compute(replace(v2, causal=True))))
    assert "15 ô chỉ bị che ở một bên" in text


def test_nothing_differs():
    assert summary_lines(compare(compute(MHA), compute(MHA))) == [
        "A and B have the same settings and the same tokens.",
        "No stage differs: every array of B equals A's.",
    ]
