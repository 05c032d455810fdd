"""The status bar's one-line summaries and a data file's note, in English and in Vietnamese:
the same settings and numbers (a decimal point in every language), the words translated."""

import dataclasses

from attn_explorer.engine import compute, preset
from attn_explorer.text.data_notes import json_notes
from attn_explorer.text.summaries import config_summary, shapes_summary
from tests.text.words import (
    CODE,
    KEPT_IN_VIETNAMESE,
    VIETNAMESE_PLAIN,
    latin_words,
    outside_brackets,
)

BUSY = dict(dropout=0.1, dropout_seed=3, temperature=0.5, scale=False, valid_len=4, out_proj=True)


def test_a_busy_config_in_english():
    config = dataclasses.replace(preset("mha").config, **BUSY)
    assert config_summary(config) == (
        "linear · d_out 2 · 2 heads (split) · causal · valid 4 · unscaled · T 0.5 · "
        "dropout 0.1 · dropout seed 3 · out_proj · seed 123"
    )
    assert config_summary(preset("happy").config) == "none · 1 head"


def test_a_busy_config_in_vietnamese(vietnamese):
    config = dataclasses.replace(preset("mha").config, **BUSY)
    assert config_summary(config) == (
        "linear · d_out 2 · 2 đầu (split) · causal · độ dài hợp lệ 4 · không chia √d_k · "
        "T 0.5 · dropout 0.1 · seed dropout 3 · out_proj · seed 123"
    )
    assert config_summary(preset("cross").config) == (
        "linear · d_out 4 · 2 đầu (split) · cross-attention · out_proj · seed 123"
    )
    assert config_summary(preset("happy").config) == "none · 1 đầu"
    assert shapes_summary(compute(preset("cross").config)) == (
        "X 4×3 → Q 2×4×2, K,V 2×6×2 → α 2×4×6 → out 4×4"
    )


def test_the_data_note_in_vietnamese(vietnamese):
    note = json_notes(preset("causal").config)  # masks the raw scores first
    assert note.startswith("null là -inf (một attention score bị che) hoặc, chỉ trong ")
    assert note.endswith(
        "; che trước khi chia, như trong Build a Large Language Model (From Scratch), "
        "chương 3 (§3.5.1): masked_scores là attention score thô với -inf ở ô bị che (đúng ma "
        "trận `masked` của bài), scaled_scores là masked_scores / sqrt(d_k), tức giá trị "
        "softmax nhận vào"
    )


def _said() -> list[str]:
    configs = [
        dataclasses.replace(preset("mha").config, **BUSY),
        preset("cross").config,
        preset("causal").config,
        preset("happy").config,
    ]
    return [config_summary(c) for c in configs] + [json_notes(c) for c in configs]


def test_no_english_is_left_in_vietnamese(vietnamese):
    for text in _said():
        assert not latin_words(text, CODE | KEPT_IN_VIETNAMESE | VIETNAMESE_PLAIN), text


def test_no_english_escapes_the_translation(pseudo):
    for text in _said():
        assert not latin_words(outside_brackets(text), CODE), text
