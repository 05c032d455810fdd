"""Every example the engine defines has its words, and only those examples have words; each
lesson names its tutorial as learners know it, in English and in Vietnamese."""

import pytest

from attn_explorer.engine import PRESETS
from attn_explorer.text.examples import EXAMPLES, example_text
from tests.text.words import (
    CODE,
    KEPT_IN_VIETNAMESE,
    TOKENS,
    VIETNAMESE_PLAIN,
    latin_words,
    outside_brackets,
)


def test_every_example_has_a_title_and_a_lesson_and_no_other_has():
    assert list(EXAMPLES) == list(PRESETS)  # the menu lists them in the engine's order
    for name in PRESETS:
        words = example_text(name)
        assert words.title.strip() and words.source.strip()


def test_the_dropout_lesson_names_the_tutorials_kept_weights():
    assert example_text("dropout").title == "Dropout 0.5 on the causal weights (reseed 123)"
    assert "0.7599, 0.6194, 0.6206" in example_text("dropout").source


@pytest.mark.parametrize(
    ("name", "opening"),
    [
        ("simple", "Build a Large Language Model (From Scratch), chapter 3 (§3.3): "),
        (
            "v1",
            "Build a Large Language Model (From Scratch), chapter 3 (§3.4 SelfAttention_v1) and "
            "the step-by-step notebook on trainable weights (§3.4.1): ",
        ),
        ("causal-class", "Build a Large Language Model (From Scratch), chapter 3 (§3.5.3 "),
        ("happy", "Day 43 – A deeper look at scaled dot-product attention: "),
        (
            "cross",
            "Dive into Deep Learning, Multi-head attention and Self-Attention (blog): ",
        ),
        ("padding", "Dive into Deep Learning, Multi-head attention: keys beyond valid_lens"),
    ],
)
def test_a_lesson_opens_with_its_tutorial_as_learners_know_it(name, opening):
    assert example_text(name).source.startswith(opening)


def test_the_examples_in_vietnamese(vietnamese):
    dropout = example_text("dropout")
    assert dropout.title == "Dropout 0.5 trên trọng số causal (đặt lại seed 123)"
    assert dropout.source == (
        "Build a Large Language Model (From Scratch), chương 3 (§3.5.2): "
        "torch.manual_seed(123), rồi dropout 0.5 trên trọng số causal của seed 789: "
        "ô được giữ × 2, các ô còn lại bằng 0. Ví dụ theo dõi “starts”, có các trọng số được "
        "giữ là 0.7599, 0.6194, 0.6206 như trong bài (mọi trọng số của “journey” đều bị bỏ)."
    )
    assert example_text("cross").source == (
        "Dive into Deep Learning, Chú ý nhiều đầu và Self-Attention (blog): "
        "query lấy từ decoder, key và value lấy từ encoder."
    )
    assert example_text("happy").source == (
        "Ngày 43 – Sâu hơn về Scaled Dot-Product Attention: "
        "tính scaled dot-product attention bằng tay, chia cho √3."
    )
    assert example_text("v1").source == (
        "Build a Large Language Model (From Scratch), chương 3 (§3.4 SelfAttention_v1) và "
        "notebook từng bước về trọng số có thể huấn luyện (§3.4.1): "
        "W = torch.rand(3, 2), attention score / √2."
    )
    assert example_text("padding").title == "Mặt nạ padding (độ dài hợp lệ 4)"


def test_every_title_and_lesson_is_in_vietnamese(vietnamese):
    allowed = CODE | KEPT_IN_VIETNAMESE | VIETNAMESE_PLAIN | TOKENS
    for name in EXAMPLES:
        words = example_text(name)
        for text in (words.title, words.source):
            assert not latin_words(text, allowed), (name, text)


def test_no_english_escapes_the_translation(pseudo):
    for name in EXAMPLES:
        words = example_text(name)
        for text in (words.title, words.source):
            assert not latin_words(outside_brackets(text), CODE | TOKENS), (name, text)
