"""explain() in Vietnamese: the sentence a Vietnamese learner reads under a hovered cell, with
the same numbers as the English one (decimal point), and no English left untranslated."""

import dataclasses
import functools
import re

from attn_explorer.engine import AttentionConfig, compute, explain, preset
from attn_explorer.engine.arrays import ARRAY_INFO
from attn_explorer.text import i18n

NB = "\u00a0"


@functools.cache
def traces() -> dict[str, object]:
    """Every kind of derivation: each mask method and order, dropout on and off, heads split
    and stacked with an output projection, cross-attention, padding, no projection, a sum too
    long to write out, and scores large enough that softmax subtracts the row maximum."""
    causal = preset("causal").config
    configs = {
        "v1": preset("v1").config,
        "causal": causal,
        "method 1, T = 2": dataclasses.replace(
            causal, mask_method="renormalize", mask_before_scaling=False, temperature=2.0
        ),
        "method 1, one token": AttentionConfig(
            tokens=("solo",), embeddings=[[0.3, 0.4]], causal=True, mask_method="renormalize"
        ),
        "not scaled": dataclasses.replace(preset("v1").config, scale=False),
        "dropout": preset("dropout").config,
        "dropout off": dataclasses.replace(preset("dropout").config, training=False),
        "mha": dataclasses.replace(preset("mha").config, qkv_bias=True),
        "wrapper": preset("wrapper").config,
        "cross": preset("cross").config,
        "padding": preset("padding").config,
        "padding and causal, method 1": dataclasses.replace(
            preset("padding").config, causal=True, mask_method="renormalize"
        ),
        "no projection": preset("happy").config,
        "twenty terms": AttentionConfig(
            tokens=("a", "b"), embeddings=[[0.1] * 20, [0.2] * 20], d_out=3
        ),
        "huge scores": AttentionConfig(
            tokens=("a", "b"), embeddings=[[40.0, 30.0], [-20.0, 50.0]], projection="none"
        ),
    }
    return {name: compute(config) for name, config in configs.items()}


def _cells(trace, name: str, limit: int = 4):
    info = ARRAY_INFO[name]
    for head in range(trace.heads) if info.per_head else [0]:
        rows, cols = trace.matrix(name, head).shape
        for i in range(min(rows, limit)):
            for j in range(min(cols, limit)):
                yield head, i, j


def _every_explanation():
    for label, trace in traces().items():
        for name in trace.arrays:
            for head, i, j in _cells(trace, name):
                yield label, name, head, i, j


def _numbers(text: str) -> list[str]:
    """The computed numbers (a sentence may put its row and column indices in another order)."""
    return re.findall(r"[-−]?\d+\.\d+(?:e[-+]\d+)?|[-−]?∞", text)


def test_a_score_and_a_scaled_score_in_vietnamese(vietnamese):
    assert explain(traces()["v1"], "scores", 0, 1, 0) == (
        "ω[2,1] = q2·k1 = 0.4306×0.3669 + 1.4551×0.7646 = 1.2705\n"
        "Mức độ query 2 “journey” khớp với key 1 “Your”."
    )
    assert explain(traces()["v1"], "scaled_scores", 0, 1, 0) == (
        "ω̃[2,1] = ω[2,1] / √2 = 1.2705 / 1.4142 = 0.8984\n"
        "Chia cho √d_k (d_k = 2, kích thước của một key)."
    )
    assert explain(traces()["method 1, T = 2"], "scaled_scores", 0, 1, 0) == (
        "ω̃[2,1] = ω[2,1] / (√2 · 2) = 0.4656 / 2.8284 = 0.1646\n"
        "Chia cho √d_k (d_k = 2, kích thước của một key) và nhiệt độ T = 2."
    )


def test_a_masked_cell_says_why_in_vietnamese(vietnamese):
    causal = traces()["causal"]
    assert explain(causal, "mask", 0, 1, 3) == (
        "M[2,4] = True: bị che vì key 4 đứng sau query 2 (mặt nạ causal)."
    )
    assert explain(causal, "masked_scores", 0, 1, 3).startswith(
        "ωₘ[2,4] = −∞: bị che vì key 4 đứng sau query 2 (mặt nạ causal).\n"
        "Attention score thô được che trước khi chia (masked_fill, rồi softmax(masked / √d_k))"
    )
    assert explain(causal, "mask", 0, 1, 0) == (
        "M[2,1] = False: query 2 “journey” được phép chú ý tới key 1 “Your”."
    )
    assert explain(traces()["padding"], "mask", 0, 0, 5) == (
        "M[1,6] = True: bị che vì key 6 là padding, nằm ngoài độ dài hợp lệ 4."
    )


def test_a_softmax_weight_in_vietnamese(vietnamese):
    text = explain(traces()["v1"], "weights", 0, 1, 0).replace(NB, " ")
    assert text.startswith("α[2,1] = exp(ω̃[2,1]) / Σⱼ' exp(ω̃[2,j']) = exp(0.8984) / (")
    assert text.endswith(
        "= 2.4556 / 16.3685 = 0.1500\n"
        "Phần attention mà query 2 “journey” dành cho key 1 “Your”; tổng của hàng bằng 1."
    )
    causal = traces()["causal"]
    assert "\n4 key bị che góp exp(−∞) = 0 vào tổng.\n" in explain(causal, "weights", 0, 1, 1)
    assert explain(causal, "weights", 0, 1, 3) == (
        "α[2,4] = 0: bị che vì key 4 đứng sau query 2 (mặt nạ causal)."
    )


def test_method_1_in_vietnamese(vietnamese):
    trace = traces()["method 1, T = 2"]
    assert explain(trace, "weights_zeroed", 0, 1, 0).endswith(
        "= 0.1847 (không bị che).\n"
        "Cách 1, bước hai: các trọng số bị che được đặt về 0; tổng của hàng 2 giờ là 0.3512,"
        " không còn là 1."
    )
    assert explain(trace, "row_sums", 0, 1, 0) == (
        "Σ_visible[2] = 0.18472 + 0.16652 = 0.3512\n"
        "Cách 1, bước ba: 2 trọng số không bị che của hàng 2 được chia cho tổng này để tổng của"
        " chúng lại bằng 1; 4 key bị che đã chiếm 0.6488."
    )


def test_a_dropped_weight_in_vietnamese(vietnamese):
    trace = traces()["dropout"]
    assert explain(trace, "dropout_keep", 0, 1, 0) == (
        "keep[2,1] = 0: bị bỏ (xác suất p = 0.5); trọng số trở thành 0."
    )
    assert explain(trace, "weights_dropped", 0, 1, 0) == (
        "α_d[2,1] = α[2,1] × keep / (1 − p) = 0.5517 × 0 / 0.5000 = 0.0000\n"
        "Bị bỏ theo mặt nạ keep (xác suất p = 0.5)."
    )
    assert explain(traces()["dropout off"], "weights_dropped", 0, 1, 0) == (
        "α[2,1] = 0.5517: không có dropout (chế độ đánh giá), trọng số softmax được dùng"
        " nguyên vẹn."
    )


def test_a_context_and_an_output_cell_in_vietnamese(vietnamese):
    text = explain(traces()["v1"], "head_contexts", 0, 1, 0).replace(NB, " ")
    assert text.startswith("z2[1] = Σⱼ α[2,j]·vⱼ[1] = 0.1500×0.1855 + 0.2264×0.3951")
    assert text.endswith(
        "= 0.3061\n"
        "Chiều 1 của context vector ứng với query 2 “journey”: trung bình có trọng số của các"
        " value."
    )
    lines = explain(traces()["v1"], "context", 0, 1, 1).replace(NB, " ").splitlines()
    assert lines[0] == "out2[2] = z2[2]: không có phép chiếu đầu ra, đầu ra chính là Z."
    assert lines[1].endswith("= 0.8210")
    mha = traces()["mha"]
    assert explain(mha, "concat", 0, 1, 1).startswith("Z_cat[2,2] = z2[1] của đầu 2 = ")
    assert explain(mha, "weights", 1, 2, 0).endswith("\n(đầu 2 trong 2 đầu)")


def test_a_long_sum_counts_its_terms_in_vietnamese(vietnamese):
    assert "(20 số hạng)" in explain(traces()["twenty terms"], "queries", 0, 0, 0)


def test_vietnamese_writes_the_numbers_english_writes():
    """Same numbers in the same order in both languages, each with a decimal point: the
    translations reorder no derivation and drop no number."""
    english = {cell: explain(traces()[cell[0]], *cell[1:]) for cell in _every_explanation()}
    i18n.set_language("vi")
    try:
        for cell, text in english.items():
            vietnamese = explain(traces()[cell[0]], *cell[1:])
            assert _numbers(vietnamese) == _numbers(text), cell
            assert vietnamese.count("\n") == text.count("\n"), cell
            assert not re.search(r"\d,\d{3}", vietnamese), cell  # no decimal comma
    finally:
        i18n.set_language("en")


# What a derivation writes outside any sentence: its formulas' symbols.
SYMBOLS = ("Σ_visible", "Z_cat", "softmax", "exp", "keep", "out")


def untranslated(text: str) -> list[str]:
    """The English words of `text` outside ⟪…⟫ (a pseudo-translated sentence, nested ones
    included) that are no symbol of a formula."""
    previous = None
    while previous != text:
        previous, text = text, re.sub("⟪[^⟪⟫]*⟫", "", text)
    for symbol in SYMBOLS:
        text = text.replace(symbol, "")
    return re.findall("[A-Za-z]{3,}", text)


def test_the_pseudo_check_finds_english_outside_the_brackets():
    assert untranslated("⟪Query ⟪key 4⟫ hidden⟫ = 0.1500") == []
    assert untranslated("α[2,1] = softmax(ω̃)[2,1] ⟪x⟫ (visible)") == ["visible"]
    assert untranslated("⟪a ⟪b⟫ c⟫ (20 terms)") == ["terms"]


def test_no_english_escapes_translation(pseudo):
    for label, name, head, i, j in _every_explanation():
        text = explain(traces()[label], name, head, i, j)
        assert untranslated(text) == [], (label, name, head, i, j, text)
