"""Every reason the engine gives for refusing a config reaches the learner in their language,
with the engine's numbers, while `str(ConfigError)` stays the English a Python user reads."""

import gettext
import math
import re
import string
from collections import Counter
from dataclasses import replace

import pytest

from attn_explorer.engine import AttentionConfig, ConfigError, Problem, compute, preset
from attn_explorer.engine.given import GivenWeights
from attn_explorer.engine.words import PROBLEMS
from attn_explorer.text import i18n
from attn_explorer.text.problems import GROUP, or_list, problem_text

X3 = ((0.1, 0.2), (0.3, 0.4), (0.5, 0.6))
T3 = ("a", "b", "c")
KV = dict(kv_tokens=("x", "y"), kv_embeddings=((1.0, 2.0), (3.0, 4.0)))
# Rows whose hidden keys take all of softmax's weight at temperature 0.01 (see
# tests/engine/test_config_errors.py): method 1 cannot renormalize their visible ones.
COLD = (
    (0.25, -0.26, 1.28),
    (0.21, -1.07, 0.72),
    (2.61, 1.89, -1.41),
    (-2.53, -1.25, 0.08),
    (-4.65, -0.44, -2.49),
    (-1.46, -1.09, -0.63),
)


def config(**fields) -> AttentionConfig:
    return AttentionConfig(**{"tokens": T3, "embeddings": X3, **fields})


def kv(tokens, embeddings) -> AttentionConfig:
    return config(kv_tokens=tokens, kv_embeddings=embeddings)


def many(n: int, **fields) -> AttentionConfig:
    return config(tokens=tuple(f"t{i}" for i in range(n)), embeddings=((0.1,),) * n, **fields)


# A real head's weights, 2 wide in and out: W_q = W_k = W_v = I.
GIVEN = GivenWeights(
    w_query=[[[1, 0], [0, 1]]], w_key=[[[1, 0], [0, 1]]], w_value=[[[1, 0], [0, 1]]]
)

# One config per problem code: refused by `problems()`, or by `compute` for what only the
# computation finds.
CASES = {
    "tokens_not_strings": config(tokens=(1, 2, 3)),
    "no_tokens": config(tokens=(), embeddings=()),
    "embeddings_not_table": config(embeddings=(0.1, 0.2, 0.3)),
    "rows_mismatch": config(tokens=("a", "b")),
    "no_dimension": config(embeddings=((), (), ())),
    "row_width": config(embeddings=((0.1, 0.2), (0.3,), (0.5, 0.6))),
    "not_a_number": config(embeddings=((0.1, "x"), (0.3, 0.4), (0.5, 0.6))),
    "nan": config(embeddings=((0.1, math.nan), (0.3, 0.4), (0.5, 0.6))),
    "infinite": config(embeddings=((0.1, 0.2), (-math.inf, 0.4), (0.5, 0.6))),
    "too_large": config(embeddings=((0.1, 0.2), (1e308, 0.4), (0.5, 0.6))),
    "cross_incomplete": config(kv_tokens=("x",)),
    "kv_tokens_not_strings": kv((1,), ((1.0, 2.0),)),
    "kv_no_tokens": kv((), ()),
    "kv_embeddings_not_table": kv(("x",), (1.0, 2.0)),
    "kv_rows_mismatch": kv(("x", "y"), ((1.0, 2.0),)),
    "kv_no_dimension": kv(("x",), ((),)),
    "kv_row_width": kv(("x", "y"), ((1.0, 2.0), (3.0,))),
    "kv_not_a_number": kv(("x",), ((1.0, "z"),)),
    "kv_nan": kv(("x",), ((1.0, math.nan),)),
    "kv_infinite": kv(("x",), ((math.inf, 1.0),)),
    "kv_too_large": kv(("x",), ((1.0, -1e300),)),
    "kv_width": kv(("x",), ((1.0, 2.0, 3.0),)),
    "unknown_projection": config(projection="conv"),
    "unknown_head_layout": config(head_layout="mixed"),
    "unknown_mask_method": config(mask_method="zero"),
    "unknown_ablate_mode": config(ablate_mode="half"),
    "ablate_not_heads": config(ablate=("2",)),
    "ablate_range": config(ablate=(3,)),
    "not_bool": config(causal="yes"),
    "d_out_not_int": config(d_out=2.5),
    "d_out_below_1": config(d_out=0),
    "heads_not_int": config(num_heads=1.5),
    "heads_below_1": config(num_heads=0),
    "heads_without_projection": config(projection="none", num_heads=2),
    "heads_do_not_split": config(d_out=5, num_heads=2, head_layout="split"),
    "dropout_range": config(dropout=1.0),
    "temperature_not_positive": config(temperature=0.0),
    "valid_len_not_int": config(valid_len=1.5),
    "valid_len_range": config(valid_len=4),
    "causal_cross": config(causal=True, **KV),
    "seed_range": config(seed=-1),
    "given_d_in": config(embeddings=((0.1,), (0.2,), (0.3,)), given=GIVEN),
    "given_heads": config(num_heads=2, d_out=4, given=GIVEN),
    "given_d_out": config(d_out=3, given=GIVEN),
    "dropout_seed_range": config(dropout_seed=-1),
    "too_big": many(8192),
    "too_big_heads": many(2048, num_heads=16),
    "temperature_overflow": config(projection="none", temperature=1e-40),
    "overflow": config(embeddings=((1e30, 1e30), (0.3, 0.4), (0.5, 0.6)), projection="none"),
    "method_1_underflow": replace(
        preset("causal").config, embeddings=COLD, temperature=0.01, mask_method="renormalize"
    ),
}


def refusal(code: str) -> Problem | ConfigError:
    """The first problem of case `code`, or the ConfigError its computation raises."""
    found = CASES[code].problems()
    if found:
        return found[0]
    with pytest.raises(ConfigError) as caught:
        compute(CASES[code])
    return caught.value


def english(found: Problem | ConfigError) -> str:
    return found.message if isinstance(found, Problem) else str(found)


class WordsDropped(gettext.NullTranslations):
    """A translation that keeps only a sentence's placeholders, bracketed: whatever English
    is left in a shown sentence did not go through the catalogue."""

    @staticmethod
    def _fields(message: str) -> str:
        kept = " ".join(
            "{" + name + (":" + spec if spec else "") + "}"
            for _, name, spec, _ in string.Formatter().parse(message)
            if name is not None
        )
        return f"⟪{kept}⟫"

    def gettext(self, message):
        return self._fields(message)

    def ngettext(self, singular, plural, n):
        return self._fields(singular if n == 1 else plural)

    def pgettext(self, context, message):
        return self._fields(message)


@pytest.fixture
def words_dropped():
    i18n.use_translations(WordsDropped(), "pseudo")
    yield
    i18n.set_language("en")


def test_every_problem_code_has_a_case():
    assert set(CASES) == set(PROBLEMS)


@pytest.mark.parametrize("code", sorted(CASES))
def test_in_english_a_problem_reads_as_its_message(code):
    found = refusal(code)
    assert found.code == code
    assert problem_text(found) == english(found)


@pytest.mark.parametrize("code", sorted(CASES))
def test_in_vietnamese_every_problem_is_translated_with_the_same_numbers(code):
    found = refusal(code)
    said_in_english = english(found)
    i18n.set_language("vi")
    try:
        said = problem_text(found)
    finally:
        i18n.set_language("en")
    assert said != said_in_english
    # Every number of the English is there (the Vietnamese may say "về 0" for "zero").
    assert Counter(re.findall(r"\d+", said_in_english)) <= Counter(re.findall(r"\d+", said))
    assert not re.search(r"\d,\d", said)  # no comma in any number


@pytest.mark.parametrize("code", sorted(CASES))
def test_pseudo_translated_every_problem_is_one_bracketed_sentence(code, pseudo):
    said = problem_text(refusal(code))
    assert said.startswith("⟪") and said.endswith("⟫")


# What a sentence with its words dropped may still hold: the cases' tokens and values as
# Python writes them, the settings' names and choices, and float32's exponent.
SYMBOLS = {"t0", "conv", "mixed", "zero", "none", "rand", "linear", "stacked", "split"}
SYMBOLS |= {"neg_inf", "renormalize", "causal", "yes", "e", "half", "zeros", "mean"}


@pytest.mark.parametrize("code", sorted(CASES))
def test_no_english_word_escapes_the_catalogue(code, words_dropped):
    said = problem_text(refusal(code))
    words = set(re.findall(r"[A-Za-z_]+", said)) - SYMBOLS
    assert not {w for w in words if len(w) > 1}, said


def test_vietnamese_sentences_a_learner_reads(vietnamese):
    assert problem_text(refusal("heads_do_not_split")) == (
        "Không thể chia d_out 5 thành 2 đầu: với bố trí split, d_out phải là bội số của số đầu."
    )
    assert problem_text(refusal("valid_len_range")) == (
        "Độ dài hợp lệ 4 nằm ngoài khoảng 1 đến 3: phải có ít nhất một key không bị che, và chỉ "
        "có 3 key."
    )
    assert problem_text(refusal("dropout_range")) == (
        "Tỉ lệ dropout phải từ 0 trở lên và nhỏ hơn 1 (đang là 1.0): p là xác suất bỏ mỗi "
        "trọng số attention."
    )
    assert problem_text(refusal("unknown_projection")) == (
        "Không có phép chiếu 'conv': hãy chọn none, rand hoặc linear."
    )
    assert problem_text(refusal("row_width")) == (
        "Token 2 ('b') có 1 số nhưng token 1 có 2: mọi embedding phải có cùng số chiều."
    )
    assert problem_text(refusal("too_large")) == (
        "Token 2 ('b'), chiều 1 là 1e+308, quá lớn đối với float32 (khoảng ±3.4e38), độ chính "
        "xác mà bộ tính toán dùng."
    )
    g = GROUP
    assert problem_text(refusal("too_big_heads")) == (
        f"16 đầu × 2048 query × 2048 key là 67{g}108{g}864 trọng số attention, nhiều hơn mức "
        f"33{g}554{g}432 mà chương trình này tính được: hãy dùng ít token hoặc ít đầu hơn."
    )


def test_what_only_the_computation_finds_is_said_in_vietnamese_too(vietnamese):
    assert problem_text(refusal("overflow")) == (
        "Các số bị tràn float32 khi nhân (độ lớn embedding lớn nhất là 1e+30): hãy dùng giá "
        "trị embedding nhỏ hơn."
    )
    assert problem_text(refusal("temperature_overflow")) == (
        "Nhiệt độ 1e-40 nhỏ đến mức các attention score sau khi chia bị tràn float32: hãy "
        "tăng nhiệt độ."
    )
    said = problem_text(refusal("method_1_underflow"))
    assert said.startswith("Với cách 1 (softmax, đặt các trọng số bị che về 0, chuẩn hóa lại)")
    assert "hãy tăng nhiệt độ (0.01) hoặc dùng cách 2 (−∞, rồi softmax)." in said


def test_a_problem_found_before_the_language_changed_is_said_in_the_new_one(vietnamese):
    i18n.set_language("en")
    found = config(d_out=0).problems()[0]
    error = ConfigError.of(found)
    i18n.set_language("vi")
    assert problem_text(found) == "d_out phải ít nhất là 1 (đang là 0)."
    assert problem_text(error) == "d_out phải ít nhất là 1 (đang là 0)."
    assert str(error) == "d_out must be at least 1 (it is 0)."  # Python's reader: English


def test_a_problem_with_a_message_of_its_own_is_said_as_it_is(vietnamese):
    assert problem_text(Problem("other", "Engine error: RuntimeError: x")) == (
        "Engine error: RuntimeError: x"
    )
    assert problem_text(ValueError("plain")) == "plain"


def test_choices_are_listed_with_the_languages_or(vietnamese):
    assert or_list(("a", "b", "c")) == "a, b hoặc c"
    assert or_list(("a",)) == "a"


def test_the_row_sum_column_is_labelled_in_the_language_asked(vietnamese):
    trace = compute(replace(preset("causal").config, mask_method="renormalize"))
    assert trace.axis_labels("row_sum") == ("Σ visible",)  # a data file's header
    assert trace.axis_labels("row_sum", i18n._) == ("Σ không bị che",)
    assert trace.axis_labels("q_tokens", i18n._) == trace.config.tokens  # tokens as typed
