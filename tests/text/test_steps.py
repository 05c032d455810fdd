"""text.steps and text.titles write every stage's and every array's words from the engine's
structural facts: a reason exactly where a stage is skipped, for every skip code the engine
gives, and a symbol and title for every array the engine knows; in Vietnamese too, with the
same numbers, and no English a translation missed."""

import dataclasses

import pytest

from attn_explorer.engine import ARRAY_INFO, PRESETS, compute, preset
from attn_explorer.engine.config import ConfigError
from attn_explorer.text.steps import step_text
from attn_explorer.text.titles import ARRAY_LABELS, array_label
from tests.text.words import (
    CODE,
    KEPT_IN_VIETNAMESE,
    VIETNAMESE_PLAIN,
    latin_words,
    outside_brackets,
)

# Settings that change a stage's or an array's words, each tried on every example.
VARIATIONS = (
    {},
    {"scale": False},
    {"scale": False, "temperature": 0.5},
    {"temperature": 0.5},
    {"mask_method": "renormalize", "causal": True},
    {"causal": True, "valid_len": 2},
    {"causal": True, "mask_before_scaling": True},
    {"causal": True, "mask_before_scaling": True, "scale": False, "temperature": 2.0},
    {"dropout": 0.5},
    {"dropout": 0.5, "training": False},
    {"dropout": 0.5, "dropout_seed": 7},
    {"projection": "none"},
    {"num_heads": 2, "d_out": 4, "head_layout": "split", "out_proj": True, "qkv_bias": True},
    {"num_heads": 2, "d_out": 2, "head_layout": "split"},
    {"num_heads": 4, "d_out": 2, "head_layout": "stacked"},
)


def traces():
    """A trace of every example under every variation the engine computes."""
    for name, example in PRESETS.items():
        for changes in VARIATIONS:
            config = dataclasses.replace(example.config, **changes)
            try:
                yield f"{name} {changes}", compute(config)
            except ConfigError:
                continue  # e.g. projection "none" with a d_out of its own


def words_of(trace) -> list[str]:
    """Every text the step-through and the matrices write about `trace`."""
    texts = []
    for step in trace.steps:
        text = step_text(step)
        texts += [text.title, text.formula, text.formula_html, text.reason]
    texts += [array_label(trace.config, name)[1] for name in trace.names]
    return texts


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_stage_has_a_reason_exactly_where_it_is_skipped(name):
    trace = compute(PRESETS[name].config)
    for number, step in enumerate(trace.steps, start=1):
        text = step_text(step)
        assert bool(text.reason) == (not step.applies) == bool(step.skip)
        assert text.title.startswith(f"{number}. ")  # numbered in the order computed
        assert text.formula and text.formula_html


@pytest.mark.parametrize(
    ("changes", "key", "reason"),
    [
        ({"projection": "none"}, "projections", "No projection (projection 'none'): Q = K = V"),
        ({"scale": False}, "scale", "Not scaled: √d_k scaling is off and the temperature is 1."),
        ({}, "mask", "No mask: attention is not causal and there is no padding."),
        ({"dropout": 0.5, "training": False}, "dropout", "No dropout: evaluation mode"),
        ({}, "dropout", "No dropout: p = 0."),
        ({}, "concat", "One head: nothing to concatenate."),
        ({}, "out_proj", "No output projection (out_proj is off): out = Z_cat."),
    ],
)
def test_every_skip_code_has_its_reason(changes, key, reason):
    trace = compute(dataclasses.replace(preset("v2").config, **changes))
    assert step_text(trace.step(key)).reason.startswith(reason)


def test_every_array_has_a_symbol_and_a_title():
    assert list(ARRAY_LABELS) == list(ARRAY_INFO)


def test_without_projections_the_reason_names_day_43_as_learners_know_it():
    trace = compute(preset("happy").config)
    assert step_text(trace.step("projections")).reason == (
        "No projection (projection 'none'): Q = K = V = X, as in "
        "Day 43 – A deeper look at scaled dot-product attention."
    )


def test_the_stages_read_as_the_tutorials_steps_in_vietnamese(vietnamese):
    trace = compute(preset("causal-class").config)  # masks the raw scores first: mask is 4.
    titles = [step_text(step).title for step in trace.steps]
    assert titles == [
        "Bước 1. Embedding đầu vào X",
        "Bước 2. Tính Q, K, V bằng phép chiếu",
        "Bước 3. Tính attention score ω = Q·Kᵀ",
        "Bước 4. Áp dụng mặt nạ",
        "Bước 5. Chia attention score cho √d_k",
        "Bước 6. Chuẩn hóa bằng softmax",
        "Bước 7. Áp dụng dropout",
        "Bước 8. Tính context vector Z = α·V",
        "Bước 9. Phép nối",
        "Bước 10. Áp dụng phép chiếu đầu ra",
    ]
    mask = step_text(trace.step("mask"))
    assert mask.formula == (
        "ωₘ[i,j] = −∞ nếu M[i,j], ngược lại bằng ω[i,j]  (causal: key j > query i bị che); "
        "attention score thô được che trước, rồi mới chia"
    )
    assert mask.formula_html.startswith("ω<sub>m</sub>[i,j] = −∞ nếu M[i,j], ngược lại bằng")
    assert step_text(trace.step("dropout")).reason == "Không có dropout: p = 0."
    assert step_text(trace.step("concat")).reason == "Chỉ có một đầu: không có gì để nối."


def test_vietnamese_formulas_keep_the_numbers_with_a_decimal_point(vietnamese):
    config = dataclasses.replace(
        preset("dropout").config, temperature=0.5, scale=False, mask_before_scaling=False
    )
    trace = compute(config)
    scale = step_text(trace.step("scale"))
    assert scale.title == "Bước 4. Chia attention score cho nhiệt độ"
    assert scale.formula == "ω̃ = ω / T,  T = 0.5"
    dropout = step_text(trace.step("dropout"))
    assert dropout.formula == (
        "α_d = α ⊙ keep / (1 − p),  keep ~ Bernoulli(1 − p),  p = 0.5, 1/(1 − p) = 2"
        "  (keep được sinh ngẫu nhiên sau torch.manual_seed(123))"
    )
    config = dataclasses.replace(preset("mha").config, dropout=0.1, mask_method="renormalize")
    trace = compute(config)
    assert step_text(trace.step("dropout")).formula.endswith("p = 0.1, 1/(1 − p) = 1.11111")
    assert step_text(trace.step("softmax")).formula == (
        "α = softmax(ω̃) ⊙ (1 − M) / Σ_không che  (cách 1: softmax của mọi attention score ω̃, "
        "các trọng số bị che đặt về 0, mỗi hàng chia cho tổng phần không bị che)"
    )
    assert step_text(trace.step("context")).formula == (
        "Z_h = α_d·V cho mỗi đầu h  (z_i = Σⱼ α_d[i,j]·vⱼ)"
    )
    assert step_text(trace.step("projections")).formula.endswith(
        "(mỗi W = .weightᵀ của nn.Linear tương ứng; đầu h dùng cột h)"
    )


def test_vietnamese_array_titles(vietnamese):
    config = dataclasses.replace(preset("mha").config, dropout=0.5)
    assert [array_label(config, name) for name in ("scores", "weights", "head_contexts")] == [
        ("ω", "Attention score ω = Q·Kᵀ"),
        ("α", "Trọng số trước dropout"),
        ("Z", "Context vector của từng đầu Z = α_d·V"),
    ]
    unscaled = dataclasses.replace(preset("v2").config, scale=False, mask_method="renormalize")
    assert array_label(unscaled, "weights_unmasked") == ("softmax(ω)", "softmax(ω), mọi key")
    assert array_label(unscaled, "scaled_scores") == ("ω", "Attention score ω (không chia)")


def test_every_stage_and_array_is_in_vietnamese(vietnamese):
    allowed = CODE | KEPT_IN_VIETNAMESE | VIETNAMESE_PLAIN
    missed = {}
    for what, trace in traces():
        for text in words_of(trace):
            if words := latin_words(text, allowed):
                missed.setdefault(tuple(words), (what, text))
    assert not missed, missed
    # and each stage is numbered as the tutorials number their steps
    for step in compute(preset("v2").config).steps:
        assert step_text(step).title.startswith("Bước ")


def test_no_english_escapes_the_translation(pseudo):
    missed = {}
    for what, trace in traces():
        for text in words_of(trace):
            shown = outside_brackets(text)
            if words := latin_words(shown, CODE):
                missed.setdefault(tuple(words), (what, text))
    assert not missed, missed
