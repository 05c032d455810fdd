"""Generated PyTorch scripts run on their own and print the engine's numbers."""

import ast
import io
import re
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_explorer.engine import PRESETS, AttentionConfig, ConfigError, compute, preset
from attn_explorer.io.code_export import pytorch_script
from tests.scripts import run_in_process, run_script

# Each varied case names the options it forces; sizes, seeds and values are drawn at random.
VARIED = [
    dict(projection="none", causal=True, dropout=0.3),
    dict(projection="none", head_layout="split", out_proj=True, dropout=0.5, valid_len=2),
    dict(projection="none", scale=False, temperature=2.0, training=False, dropout=0.4),
    dict(projection="rand", num_heads=3, d_out=2, dropout=0.2),
    dict(projection="rand", head_layout="split", num_heads=2, d_out=4, out_proj=True, dropout=0.3),
    dict(projection="rand", causal=True, mask_method="renormalize", temperature=0.5),
    dict(qkv_bias=True, num_heads=2, d_out=3, out_proj=True, dropout=0.4),
    dict(head_layout="split", qkv_bias=True, num_heads=3, d_out=6, dropout=0.3, training=False),
    dict(head_layout="split", num_heads=2, d_out=4, causal=True, dropout=0.6),
    dict(causal=True, valid_len=2, mask_method="renormalize", out_proj=True),
    dict(cross=True, valid_len=3, num_heads=2, d_out=2),
    dict(cross=True, head_layout="split", num_heads=2, d_out=4, out_proj=True, dropout=0.5),
    dict(cross=True, mask_method="renormalize", valid_len=1, qkv_bias=True, dropout=0.8),
    dict(scale=False, temperature=3.7, num_heads=4, d_out=1),
    dict(scale=True, temperature=0.25, qkv_bias=True, training=False),
    dict(num_heads=2, d_out=2, dropout=0.5, dropout_seed=42),
    dict(head_layout="split", num_heads=2, d_out=4, causal=True, dropout=0.3, dropout_seed=0),
]


def varied_config(index: int) -> AttentionConfig:
    rng = np.random.default_rng(7000 + index)
    fields = dict(VARIED[index])
    cross = fields.pop("cross", False)
    n_q, d_in = int(rng.integers(2, 7)), int(rng.integers(1, 5))
    config = AttentionConfig(
        tokens=tuple(f"q{i}" for i in range(n_q)),
        embeddings=rng.uniform(-1, 1, size=(n_q, d_in)).round(2),
        seed=int(rng.integers(0, 10_000)),
        **fields,
    )
    if cross:
        n_k = int(rng.integers(3, 8))
        config = replace(
            config,
            kv_tokens=tuple(f"k{i}" for i in range(n_k)),
            kv_embeddings=rng.uniform(-1, 1, size=(n_k, d_in)).round(2),
        )
    return config


ODD = AttentionConfig(
    tokens=('say "hi"', "it's", "back\\slash", "two\nlines", '"""', "😀 مرحبا", ""),
    embeddings=tuple((0.1 * i, 0.5 - 0.1 * i) for i in range(7)),
    causal=True,
    dropout=0.25,
    num_heads=2,
)

CASES = {
    **{f"preset-{name}": p.config for name, p in PRESETS.items()},
    **{f"varied-{i}": varied_config(i) for i in range(len(VARIED))},
    "odd-tokens": ODD,
    # Heads switched off: a hook before out_proj, or the output itself without one.
    "ablate-mha": replace(PRESETS["mha"].config, ablate=(2,)),
    "ablate-mean-cross": replace(PRESETS["cross"].config, ablate=(1,), ablate_mode="mean"),
    "ablate-wrapper": replace(PRESETS["wrapper"].config, ablate=(1,)),
}


@pytest.fixture(scope="module")
def printouts(tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every case's script written to disk and run once, in this process (torch loads slowly)."""
    directory = tmp_path_factory.mktemp("scripts")
    done = {}
    for name, config in CASES.items():
        path = directory / f"{name}.py"
        path.write_text(pytorch_script(config), encoding="utf-8")
        done[name] = run_in_process(path)
    return done


def test_a_script_run_as_a_process_prints_what_it_prints_in_process(printouts, tmp_path):
    """`python script.py`, as a user runs it, end to end: the printout the other tests read
    from the scripts run in this process is the one a process of its own prints."""
    path = tmp_path / "odd-tokens.py"
    path.write_text(pytorch_script(CASES["odd-tokens"]), encoding="utf-8")
    result = run_script(path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == printouts["odd-tokens"].stdout
    assert "😀 مرحبا" in result.stdout


def test_a_script_run_in_process_leaves_torch_as_it_was(tmp_path):
    """The scripts seed torch's global RNG: the other tests in this process must not notice."""
    import torch

    path = tmp_path / "dropout.py"
    path.write_text(pytorch_script(CASES["preset-dropout"]), encoding="utf-8")
    dtype = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        before = torch.get_rng_state()
        assert run_in_process(path).returncode == 0
        assert torch.equal(torch.get_rng_state(), before)
        assert torch.get_default_dtype() == torch.float64
    finally:
        torch.set_default_dtype(dtype)


def parse_printout(text: str) -> dict[str, np.ndarray]:
    """Blocks "title (r x c):" followed by r lines ending in c numbers."""
    blocks, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        match = re.fullmatch(r"(\S.*) \((\d+) x (\d+)\):", lines[i])
        if match:
            rows, cols = int(match[2]), int(match[3])
            body = lines[i + 1 : i + 1 + rows]
            blocks[match[1]] = np.array([[float(v) for v in ln.split()[-cols:]] for ln in body])
            blocks[match[1] + " labels"] = body
            i += rows + 1
        else:
            i += 1
    return blocks


@pytest.mark.parametrize("case", list(CASES))
def test_script_prints_the_engines_numbers(case, printouts):
    config = CASES[case]
    result = printouts[case]
    assert result.returncode == 0, result.stderr
    trace = compute(config)
    blocks = parse_printout(result.stdout)
    np.testing.assert_allclose(blocks["context"], trace.context, atol=1e-5, rtol=0)
    for h in range(trace.heads):
        title = f"weights, head {h + 1}"
        np.testing.assert_allclose(blocks[title], trace.weights[h], atol=1e-5, rtol=0)
        dropped = f"weights after dropout, head {h + 1}"
        if config.dropout_active:
            np.testing.assert_allclose(blocks[dropped], trace.weights_dropped[h], atol=1e-5)
        else:
            assert dropped not in blocks
    assert f"weights, head {trace.heads + 1}" not in blocks
    for label, token in zip(blocks["context labels"], config.tokens, strict=True):
        assert label.startswith(f"  {token!r}")


NARROW = [
    (case, encoding) for case in ("preset-cross", "odd-tokens") for encoding in ("cp1252", "ascii")
]


@pytest.fixture(scope="module")
def narrow_printouts(tmp_path_factory) -> dict[tuple[str, str], subprocess.CompletedProcess]:
    """Scripts with Vietnamese, Arabic and emoji tokens run where stdout cannot encode them."""
    directory = tmp_path_factory.mktemp("narrow")
    for case in {case for case, _ in NARROW}:
        (directory / f"{case}.py").write_text(pytorch_script(CASES[case]), encoding="utf-8")
    return {run: run_in_process(directory / f"{run[0]}.py", run[1]) for run in NARROW}


@pytest.mark.parametrize(("case", "encoding"), NARROW)
def test_a_console_that_cannot_show_a_token_still_gets_every_number(
    case, encoding, narrow_printouts
):
    """Tokens like "của" or "😀" stopped the script with UnicodeEncodeError on such a console
    (a Windows pipe, PYTHONIOENCODING=cp1252); they are now printed as escapes."""
    config, result = CASES[case], narrow_printouts[case, encoding]
    assert result.returncode == 0, result.stderr
    trace = compute(config)
    blocks = parse_printout(result.stdout)
    np.testing.assert_allclose(blocks["context"], trace.context, atol=1e-5, rtol=0)
    for h in range(trace.heads):
        np.testing.assert_allclose(blocks[f"weights, head {h + 1}"], trace.weights[h], atol=1e-5)
    shown = [repr(t).encode(encoding, "backslashreplace").decode(encoding) for t in config.tokens]
    assert any(label != repr(token) for label, token in zip(shown, config.tokens, strict=True))
    for line, label in zip(blocks["context labels"], shown, strict=True):
        assert line.startswith(f"  {label}")


def test_tutorial_numbers_appear(printouts):
    mha = parse_printout(printouts["preset-mha"].stdout)
    assert np.round(mha["context"][0], 4).tolist() == [0.3190, 0.4858]
    v1 = parse_printout(printouts["preset-v1"].stdout)
    journey = [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]
    assert np.round(v1["weights, head 1"][1], 4).tolist() == journey
    assert np.round(v1["context"][1], 4).tolist() == [0.3061, 0.8210]
    assert "  'journey'    0.306100    0.821030" in printouts["preset-v1"].stdout
    wrapper = parse_printout(printouts["preset-wrapper"].stdout)
    assert np.round(wrapper["context"][1], 4).tolist() == [-0.5874, 0.0058, 0.5891, 0.3257]


def test_dropout_preset_prints_kept_cells_doubled(printouts):
    blocks = parse_printout(printouts["preset-dropout"].stdout)
    weights, dropped = blocks["weights, head 1"], blocks["weights after dropout, head 1"]
    kept = dropped != 0
    np.testing.assert_allclose(dropped[kept], 2 * weights[kept], atol=2e-6)
    assert 0 < kept.sum() < np.count_nonzero(weights)
    # The book's §3.5.2 printed row 3: the reseed before the forward pass is in the script.
    assert np.round(dropped[2], 4).tolist() == [0.7599, 0.6194, 0.6206, 0, 0, 0]
    assert "torch.manual_seed(DROPOUT_SEED)" in pytorch_script(preset("dropout").config)


@pytest.mark.parametrize("case", ["preset-mha", "varied-1", "odd-tokens"])
def test_scripts_need_only_torch(case):
    tree = ast.parse(pytorch_script(CASES[case]))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported == {"math", "sys", "torch"}  # the standard library, and torch


def test_scripts_pass_pyflakes_checks(tmp_path):
    for name, config in CASES.items():
        (tmp_path / f"{name}.py").write_text(pytorch_script(config), encoding="utf-8")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--isolated",
            "--no-cache",
            "--select",
            "E9,F",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_header_says_what_is_reproduced_and_how_to_run():
    script = pytorch_script(preset("mha").config)
    docstring = ast.get_docstring(ast.parse(script))
    assert "2 heads of width 1 split from one W (MultiHeadAttention)" in docstring
    assert "mask: causal" in docstring
    assert "output projection out_proj = nn.Linear(2, 2)" in docstring
    assert "torch.manual_seed(123)" in docstring
    assert "python <this file>" in docstring


BOOK = "Build a Large Language Model (From Scratch), chapter 3"
DAY_43 = "Day 43 – A deeper look at scaled dot-product attention"


@pytest.mark.parametrize(
    ("name", "source", "kind"),
    [
        ("simple", f"({BOOK}, §3.3)", "Attention, not scaled,"),
        ("happy", f"({DAY_43})", "Scaled dot-product attention"),
    ],
)
def test_a_script_without_weights_names_its_tutorial_and_says_nothing_is_random(name, source, kind):
    """The `simple` example (the book's §3.3, not scaled) was called scaled dot-product
    attention from Day 43, and its seed was said to draw weights it does not have. The
    tutorials are named as learners know them, not by the number of a file."""
    tree = ast.parse(pytorch_script(preset(name).config))
    header = ast.get_docstring(tree)
    assert f"projection: no projection: Q = K = V = X {source}" in header
    assert "(this seed draws nothing: no weights, and no dropout mask follows it)" in header
    module = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    assert ast.get_docstring(module) == f"{kind} with Q = K = V = X\n{source}: no weights."


def test_the_classes_name_the_book_and_its_section():
    """The classes said "Tutorial 000's CausalAttention", the number of a file in our folder
    of tutorials, which no learner knows the book by."""
    script = pytorch_script(preset("mha").config)
    assert f"MultiHeadAttention from {BOOK} (§3.6.2):" in script
    script = pytorch_script(preset("wrapper").config)
    assert f"the wrapper of\n    {BOOK} (§3.6.1)." in script
    assert f"CausalAttention from {BOOK} (§3.5.3):" in script
    header = ast.get_docstring(ast.parse(pytorch_script(preset("dropout").config)))
    assert f"so the dropout masks follow from it ({BOOK}, §3.5.2)" in header
    assert f"(-inf on the raw scores, then divided, as in {BOOK})" in header
    assert not re.search(r"(?i)tutorial \d", script + header)


@pytest.mark.parametrize(
    ("changes", "draws"),
    [
        # The output projection's weights come from the seed, projections or not.
        ({"out_proj": True}, True),
        # The dropout mask follows its own seed: the module's seed draws nothing.
        ({"dropout": 0.5, "training": True, "dropout_seed": 7}, False),
        ({"dropout": 0.5, "training": True}, True),
    ],
)
def test_a_script_says_the_seed_draws_nothing_exactly_when_it_does(changes, draws):
    """The scripts judged the seed by the projection and dropout alone: with no projection but
    an output projection they said nothing was random while its weights came from the seed,
    and with the dropout reseeded they said the seed drew the random weights."""
    config = replace(preset("simple").config, **changes)
    script = pytorch_script(config)
    header = ast.get_docstring(ast.parse(script))
    assert ("this seed draws nothing" in header) is not draws
    assert ("nothing here draws from it" in script) is not draws
    assert config.seed_draws is draws


def test_an_impossible_config_is_refused():
    bad = AttentionConfig(
        tokens=("a",), embeddings=((1.0,),), d_out=5, num_heads=2, head_layout="split"
    )
    with pytest.raises(ConfigError, match="cannot be split into 2 heads"):
        pytorch_script(bad)


def literal(script: str, name: str):
    for node in ast.parse(script).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == name:
            return ast.literal_eval(node.value)
    raise KeyError(name)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(max_size=12), min_size=1, max_size=4),
    st.floats(-1e6, 1e6, allow_nan=False),
)
def test_any_token_text_gives_valid_python(tokens, value):
    config = AttentionConfig(
        tokens=tuple(tokens), embeddings=tuple((value, 1.0) for _ in tokens), projection="none"
    )
    script = pytorch_script(config)
    compile(script, "attention.py", "exec")
    assert literal(script, "TOKENS") == tokens
    assert literal(script, "EMBEDDINGS") == [[value, 1.0]] * len(tokens)


def test_the_books_script_masks_first_and_prints_its_masked_matrix(printouts):
    """The book (chapter 3) prints masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    and then takes softmax(masked / keys.shape[-1]**0.5): the causal example's script does the
    same."""
    script = pytorch_script(PRESETS["causal"].config)
    assert "masked = scores.masked_fill(mask, -torch.inf)" in script
    assert "torch.softmax(masked / divisor, dim=-1)" in script
    result = printouts["preset-causal"]
    assert result.returncode == 0, result.stderr
    masked = parse_printout(result.stdout)["masked scores (raw, -inf where hidden), head 1"]
    shown = [[f"{v:.4f}" for v in row] for row in masked.tolist()]
    assert shown[1] == ["0.4656", "0.1723", "-inf", "-inf", "-inf", "-inf"]
    assert shown[4] == ["0.2183", "0.0874", "0.0882", "0.0177", "0.0786", "-inf"]
    assert shown[5] == ["0.3408", "0.1270", "0.1290", "0.0198", "0.1290", "0.0078"]
    weights = parse_printout(result.stdout)["weights, head 1"]
    assert [f"{v:.4f}" for v in weights[1, :2]] == ["0.5517", "0.4483"]
    # The D2L examples scale first, and print no masked scores of their own.
    assert "masked scores" not in printouts["preset-padding"].stdout


# ---------------------------------------------------------------------------- in other languages

NUMBER = re.compile(r"-?\d+\.\d{6}|-inf")
SPOKEN = ["preset-dropout", "preset-mha", "preset-causal", "varied-10", "odd-tokens"]


@pytest.mark.parametrize("case", SPOKEN)
def test_a_vietnamese_script_runs_and_prints_the_same_numbers(
    case, printouts, vietnamese, tmp_path
):
    """The comments, docstrings and printed titles are Vietnamese; the code and so every
    number it prints are those of the English script."""
    path = tmp_path / f"{case}.py"
    path.write_text(pytorch_script(CASES[case]), encoding="utf-8")
    result = run_in_process(path)
    assert result.returncode == 0, result.stderr
    assert NUMBER.findall(result.stdout) == NUMBER.findall(printouts[case].stdout)
    trace = compute(CASES[case])
    blocks = parse_printout(result.stdout)
    np.testing.assert_allclose(blocks["context"], trace.context, atol=1e-5, rtol=0)
    for h in range(trace.heads):
        title = f"trọng số attention, đầu {h + 1}"
        np.testing.assert_allclose(blocks[title], trace.weights[h], atol=1e-5)
    assert result.stdout.startswith("key (các cột của trọng số attention): ")


def test_a_vietnamese_script_says_what_it_reproduces_in_vietnamese(vietnamese):
    script = pytorch_script(preset("dropout").config)
    header = ast.get_docstring(ast.parse(script))
    assert header.startswith(
        "Attention đúng như attn_explorer 0.1.0 đã tính, viết lại bằng PyTorch thuần.\n\n"
        "Tái hiện:\n  - 6 token query, d_in 3\n"
    )
    book = "Build a Large Language Model (From Scratch), chương 3"
    dropout = "  - dropout p = 0.5 trên trọng số attention (chế độ huấn luyện: có tác dụng)\n"
    assert dropout in header
    assert f"để các mặt nạ dropout được sinh từ nó ({book}, §3.5.2)" in header
    assert f'"""CausalAttention trong {book} (§3.5.3):\n' in script
    assert "    module.train()  # chế độ huấn luyện: dropout có tác dụng\n" in script
    assert "TRAINING = True  # dropout chỉ có tác dụng ở chế độ huấn luyện\n" in script
    happy = ast.get_docstring(ast.parse(pytorch_script(preset("happy").config)))
    assert "Q = K = V = X (Ngày 43 – Sâu hơn về Scaled Dot-Product Attention)" in happy


# A config per branch of the writer: mask first or not, reseeded dropout, cross-attention,
# split and stacked heads, no projection, torch.rand weights, padding, temperature.
EVERY_BRANCH = [
    preset("dropout").config,
    preset("mha").config,
    preset("happy").config,
    preset("simple").config,
    preset("padding").config,
    *(varied_config(i) for i in (1, 2, 4, 5, 10, 12)),
]
# Words in the code of a script that are no identifier of it: a shape's axes in a comment,
# the name of the tutorial class the nn.Linear projection also is.
SHAPES_AND_CLASSES = {"batch", "heads", "SelfAttention_v2"}


def words_outside_marks(text: str) -> list[str]:
    while True:
        shorter = re.sub(r"⟪[^⟪⟫]*⟫", " ", text, flags=re.S)
        if shorter == text:
            return re.findall(r"[A-Za-z][A-Za-z_0-9]+", text)
        text = shorter


def read_texts(script: str) -> list[str]:
    """What a learner reads in a script besides its code: comments (not the #! line),
    docstrings, and the words of what it prints."""
    import tokenize

    tokens = list(tokenize.generate_tokens(io.StringIO(script).readline))
    # One text: a comment of several lines opens its marks on the first and closes them on
    # the last.
    texts = ["\n".join(t.string for t in tokens if t.type == tokenize.COMMENT and t.start[0] > 1)]
    tree = ast.parse(script)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
            texts.append(ast.get_docstring(node) or "")
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("print", "show"):
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant):
                texts.append(first.value)
            elif isinstance(first, ast.JoinedStr):
                texts.append(
                    "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in first.values)
                )
    return texts


@pytest.mark.parametrize("index", range(len(EVERY_BRANCH)))
def test_a_pseudo_translated_script_reads_no_english_outside_the_marks(index, pseudo):
    """Every comment, docstring and printed title goes through the catalogue: pseudo-
    translated, none is left with an English word that is not the script's own code."""
    script = pytorch_script(EVERY_BRANCH[index])
    compile(script, "attention.py", "exec")
    import tokenize

    code = {
        t.string
        for t in tokenize.generate_tokens(io.StringIO(script).readline)
        if t.type == tokenize.NAME
    }
    for text in read_texts(script):
        left = [w for w in words_outside_marks(text) if w not in code | SHAPES_AND_CLASSES]
        assert left == [], text
