"""Help → Lessons: every section names an example that exists and a stage it has, and every
number listed for a section is what the engine computes for its example, to the digits the
tutorial prints."""

import functools
import re

import numpy as np
import pytest

from attn_explorer.engine import PRESETS, STEP_KEYS, compute
from attn_explorer.text import i18n
from attn_explorer.text.lessons import (
    TUTORIALS,
    exact_rows,
    follows,
    rows,
    sections,
    slips,
)

SECTIONS = sections()
PRINTED = [
    pytest.param(section, printed, id=f"{tutorial.key}-{section.number or s}-{printed.code}")
    for s, (tutorial, section) in enumerate(SECTIONS)
    for printed in section.printed
]


@functools.cache
def trace(name):
    return compute(PRESETS[name].config)


def at_4_decimals(value: float) -> str:
    text = f"{value:.4f}"
    return "0.0000" if text == "-0.0000" else text


@pytest.mark.parametrize(("section", "printed"), PRINTED)
def test_every_number_listed_is_the_engines_to_4_decimals(section, printed):
    engine = np.asarray(trace(section.preset)[printed.array][printed.index], dtype=float)
    engine = engine * printed.times
    listed = np.asarray(rows(printed.values), dtype=float)
    assert engine.size == listed.size, "the engine's array has another shape"
    engine = engine.reshape(listed.shape)
    assert [[at_4_decimals(v) for v in row] for row in engine] == [
        [at_4_decimals(v) for v in row] for row in listed
    ]


def test_the_chapters_sections_are_the_books_in_its_order():
    chapter = TUTORIALS[0]
    numbered = [(s.number, s.title, s.preset, s.stage) for s in chapter.sections]
    assert numbered == [
        (
            "3.3.1",
            "A simple self-attention mechanism without trainable weights",
            "simple",
            "softmax",
        ),
        ("3.3.2", "Computing attention weights for all input tokens", "simple", "context"),
        ("3.4.1", "Computing the attention weights step by step", "v1", "softmax"),
        ("3.4.2", "Implementing a compact self-attention Python class", "v1", "context"),
        ("3.4.2", "Implementing a compact self-attention Python class", "v2", "context"),
        ("3.5.1", "Applying a causal attention mask", "causal", "mask"),
        ("3.5.2", "Masking additional attention weights with dropout", "dropout", "dropout"),
        ("3.5.3", "Implementing a compact causal attention class", "causal-class", "context"),
        ("3.6.1", "Stacking multiple single-head attention layers", "wrapper", "concat"),
        ("3.6.2", "Implementing multi-head attention with weight splits", "mha", "out_proj"),
    ]


def test_every_section_opens_an_example_on_a_stage_it_has():
    assert len(TUTORIALS) == 5
    for _tutorial, section in SECTIONS:
        assert section.preset in PRESETS, section.title
        assert section.stage is None or section.stage in STEP_KEYS, section.title
        assert section.note.strip() and section.title.strip()
    used = {section.preset for _, section in SECTIONS}
    assert used == set(PRESETS)  # every example is some section's


def test_the_dropout_section_lists_the_weights_it_keeps_of_starts():
    chapter = TUTORIALS[0]
    dropout = next(s for s in chapter.sections if s.number == "3.5.2")
    weights = next(p for p in dropout.printed if p.code == "dropout(attn_weights)")
    assert exact_rows(weights)[2] == ["0.7599", "0.6194", "0.6206", "0.0000", "0.0000", "0.0000"]
    assert PRESETS["dropout"].query == 2  # the example follows that row


def test_the_slips_of_day_43_are_found_where_its_arithmetic_goes_wrong():
    day_43 = next(t for t in TUTORIALS if t.key == "day-43")
    found = {section.stage: slips(p) for section in day_43.sections for p in section.printed}
    assert found["embeddings"] == found["scores"] == found["scale"] == set()
    # The first row of weights is right; "am" and "happy" are wrong in every column.
    assert found["softmax"] == {(r, c) for r in (1, 2) for c in range(3)}
    # 0.53 for 0.5207 in the first row is rounding (products rounded to 2 decimals before
    # adding), and the rows of "am" and "happy" are their weights × V done right: no slip,
    # as "Check my numbers" says.
    assert found["context"] == set()
    context = next(p for s in day_43.sections for p in s.printed if p.array == "context")
    assert follows(context) == {(r, c) for r in (1, 2) for c in range(3)}


def test_the_lessons_mark_exactly_what_the_check_finds():
    """One rule, not two: every hand-written printout's slips are the check's `wrong`
    cells, and nothing else."""
    from attn_explorer.engine import PRESETS, compute
    from attn_explorer.engine.check import Given, check

    for tutorial in TUTORIALS:
        for section in tutorial.sections:
            for printed in section.printed:
                if printed.written is None or printed.array == "x":
                    continue
                given = {}
                for s in tutorial.sections:  # the tutorial's own numbers, checked together
                    for p in s.printed:
                        if p.written is not None and p.array != "x" and s.preset == section.preset:
                            given[p.array] = Given.from_rows(
                                [
                                    [(float(t), len(t.partition(".")[2])) for t in row]
                                    for row in rows(p.written)
                                ]
                            )
                result = check(compute(PRESETS[section.preset].config), given)
                wrong = {(c.row, c.col) for c in result.of(printed.array) if c.verdict == "wrong"}
                assert slips(printed) == wrong, printed.code


def test_masked_scores_are_written_as_minus_infinity():
    chapter = TUTORIALS[0]
    causal = next(s for s in chapter.sections if s.number == "3.5.1")
    masked = next(p for p in causal.printed if p.code == "masked")
    assert exact_rows(masked)[0] == ["0.2899", "−∞", "−∞", "−∞", "−∞", "−∞"]


def test_no_tutorial_is_named_by_its_file_number():
    for tutorial, section in SECTIONS:
        for words in (tutorial.title, section.title, section.note, section.part):
            assert not re.search(r"\b00[0-4]\b", words), words


def test_a_vietnamese_reader_gets_the_tutorials_own_headings(vietnamese):
    chapter, notebook, d2l, day_43, blog = TUTORIALS
    assert i18n._(chapter.title) == (
        "Build a Large Language Model (From Scratch), chương 3: Triển khai cơ chế Attention"
    )
    titles = {s.number: i18n._(s.title) for s in chapter.sections}
    assert titles["3.3.1"] == "Self-Attention đơn giản (simple self-attention)"
    assert titles["3.4.1"] == "Tính attention weights từng bước một"
    assert titles["3.5.2"] == "Dropout"
    assert titles["3.6.1"] == "Multi-head bằng cách xếp chồng nhiều lớp single-head attention"
    assert i18n._(d2l.title) == "Dive into Deep Learning: Chú ý nhiều đầu"
    assert [i18n._(s.title) for s in d2l.sections[:2]] == ["Mô hình", "Thực hiện"]
    assert i18n._(day_43.title) == "Ngày 43 – Sâu hơn về Scaled Dot-Product Attention"
    assert i18n._(day_43.sections[4].title) == "Bước 5: Áp Dụng Softmax"
    assert i18n._(notebook.title) == "Notebook từng bước về trọng số có thể huấn luyện (§3.4.1)"
    assert i18n._(blog.sections[0].title) == "Ma Trận Query, Key, Value (Q, K, V Matrix)"
    dropout = next(s for s in chapter.sections if s.number == "3.5.2")
    assert i18n._(dropout.note).endswith(
        "Ví dụ theo dõi “starts”, có các trọng số được giữ là 0.7599, 0.6194, 0.6206."
    )


def test_every_word_of_the_lessons_is_translated(vietnamese):
    for tutorial, section in SECTIONS:
        words = [tutorial.title, section.title, section.note, section.part]
        words += [p.what for p in section.printed]
        for text in filter(None, words):
            assert i18n._(text) != text or text in UNCHANGED, text


# Words the Vietnamese keeps as they are: names of a tutorial, a heading and a term the
# tutorials keep in English, and the classes 3.4.2 prints (code, never marked).
UNCHANGED = {
    "Self-Attention (blog)",
    "Multi-Head Attention",
    "cross-attention",
    "SelfAttention_v1",
    "SelfAttention_v2",
}
