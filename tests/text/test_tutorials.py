"""The tutorials are named as learners know them, in each language, and never by the file
numbers they have among us ("Tutorial 000"), in the code's strings or in the catalogue."""

import ast
import dataclasses
import re
from pathlib import Path

import pytest

import attn_explorer.text
from attn_explorer.engine import PRESETS, compute
from attn_explorer.text import catalogues
from attn_explorer.text.data_notes import json_notes
from attn_explorer.text.examples import EXAMPLES, example_text
from attn_explorer.text.steps import step_text
from attn_explorer.text.tutorials import TUTORIALS, tutorial, tutorial_title

FILE_NUMBER = re.compile(r"[Tt]utorials?\s+00[0-4]|\b00[0-4]\b")


def test_the_names_in_english():
    assert [tutorial(key) for key in TUTORIALS] == [
        "Build a Large Language Model (From Scratch), chapter 3",
        "the step-by-step notebook on trainable weights (§3.4.1)",
        "Dive into Deep Learning, Multi-head attention",
        "Day 43 – A deeper look at scaled dot-product attention",
        "Self-Attention (blog)",
    ]
    assert tutorial("llm", "§3.5.3 CausalAttention") == (
        "Build a Large Language Model (From Scratch), chapter 3 (§3.5.3 CausalAttention)"
    )
    assert tutorial_title("llm") == (
        "Build a Large Language Model (From Scratch), chapter 3: Implementing attention mechanisms"
    )


def test_the_names_in_vietnamese(vietnamese):
    assert [tutorial(key) for key in TUTORIALS] == [
        "Build a Large Language Model (From Scratch), chương 3",
        "notebook từng bước về trọng số có thể huấn luyện (§3.4.1)",
        "Dive into Deep Learning, Chú ý nhiều đầu",
        "Ngày 43 – Sâu hơn về Scaled Dot-Product Attention",
        "Self-Attention (blog)",
    ]
    assert tutorial("llm", "§3.5.3 CausalAttention") == (
        "Build a Large Language Model (From Scratch), chương 3 (§3.5.3 CausalAttention)"
    )
    assert [tutorial_title(key) for key in TUTORIALS] == [
        "Build a Large Language Model (From Scratch), chương 3: Triển khai cơ chế Attention",
        "Notebook từng bước về trọng số có thể huấn luyện (§3.4.1)",
        "Dive into Deep Learning: Chú ý nhiều đầu",
        "Ngày 43 – Sâu hơn về Scaled Dot-Product Attention",
        "Self-Attention (blog)",
    ]


def _everything_said() -> list[str]:
    said = []
    for name in EXAMPLES:
        said += dataclasses.astuple(example_text(name))
    for example in PRESETS.values():
        for projection in ("none", "linear"):
            config = dataclasses.replace(
                example.config, projection=projection, causal=True, mask_before_scaling=True
            )
            if config.problems():
                continue  # heads without projections would be identical
            trace = compute(config)
            said.append(json_notes(config))
            for step in trace.steps:
                said += dataclasses.astuple(step_text(step))
    return said


@pytest.mark.parametrize("language", ["en", "vi"])
def test_nothing_said_names_a_tutorial_by_file_number(language, request):
    if language == "vi":
        request.getfixturevalue("vietnamese")
    said = _everything_said()
    assert any("Build a Large Language Model" in text for text in said)
    assert not [text for text in said if FILE_NUMBER.search(text)]


def test_no_string_of_the_text_package_names_a_tutorial_by_file_number():
    """As /work/shared/tools/file-numbers.py checks: string literals other than docstrings
    (comments and docstrings speak to developers, who know the files by number)."""
    found = []
    for path in sorted(Path(attn_explorer.text.__file__).parent.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        found += [
            f"{path.name}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and re.search(r"[Tt]utorials?\s+00[0-4]", node.value)
        ]
    assert not found


def test_no_entry_of_the_text_catalogue_names_a_tutorial_by_file_number():
    pytest.importorskip("babel")
    for entry in catalogues.read(catalogues.po_path("vi", "text")):
        for text in (entry.id, entry.string):
            texts = text if isinstance(text, tuple) else (text,)
            assert not any(re.search(r"[Tt]utorials?\s+00[0-4]", t or "") for t in texts)
