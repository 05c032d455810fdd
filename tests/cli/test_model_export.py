"""`attn-explorer export --model`: a real model's head as data, its model view as a figure, and
one line for every refusal."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from attn_explorer.cli.export import main

if importlib.util.find_spec("transformers") is None:  # imported by the tests that use it
    pytest.skip("transformers is not installed", allow_module_level=True)

from tests.lens import conftest as lens

TEXT = lens.TEXT
# The tiny models, built once per session (tests/lens/conftest.py).
gpt2_folder = lens.gpt2_folder
bert_folder = lens.bert_folder


def test_a_heads_weights_as_npz_equal_the_models(gpt2_folder, tmp_path, capsys):
    out = tmp_path / "head.npz"
    args = ["--model", str(gpt2_folder), "--text", TEXT, "--layer", "2", "--head", "3"]
    assert main([*args, "--view", "weights", "--format", "npz", "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == str(out)
    from attn_explorer.lens.capture import forward
    from attn_explorer.lens.loading import load

    _, _, attentions = forward(load(str(gpt2_folder), "cpu"), TEXT)
    with np.load(out) as data:
        np.testing.assert_allclose(data["weights"][0], attentions[1][0, 2].numpy(), atol=1e-5)


def test_the_model_view_as_png(bert_folder, tmp_path, capsys):
    from PySide6.QtGui import QImage

    out = tmp_path / "grid.png"
    assert (
        main(["--model", str(bert_folder), "--text", TEXT, "--view", "model", "-o", str(out)]) == 0
    )
    image = QImage(str(out))
    assert image.width() > 3 * 20 and image.height() > 2 * 20


def test_a_heads_script_and_json(gpt2_folder, tmp_path):
    out = tmp_path / "head.json"
    assert (
        main(
            ["--model", str(gpt2_folder), "--text", "the cat", "--view", "weights", "-o", str(out)]
        )
        == 0
    )
    assert json.loads(out.read_text())["config"]["tokens"] == ["the", "␣cat"]


@pytest.mark.parametrize(
    ("extra", "status", "said"),
    [
        (["--layer", "4"], 2, "has layers 1 to 3; there is no layer 4."),
        (["--head", "5"], 2, "has heads 1 to 4 in each layer; there is no head 5."),
        (["--text", "the cat " * 40], 2, "reads at most 64."),
        (["--view", "model", "--format", "npz"], 2, "--view model is a figure"),
    ],
)
def test_refusals_are_one_line(gpt2_folder, tmp_path, capsys, extra, status, said):
    args = ["--model", str(gpt2_folder), "--text", "the cat", "--view", "weights"]
    assert main([*args, *extra, "-o", str(tmp_path / "x.npz")]) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and err.startswith("attn-explorer export: ")


@pytest.mark.parametrize(
    ("device", "said"),
    [("cuda", "torch sees no CUDA device here"), ("mps", "torch sees no Apple MPS device here")],
)
def test_a_device_torch_does_not_see_is_refused_in_one_line(
    gpt2_folder, tmp_path, capsys, monkeypatch, device, said
):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    args = [
        "--model",
        str(gpt2_folder),
        "--text",
        "the cat",
        "--view",
        "weights",
        "--device",
        device,
    ]
    assert main([*args, "-o", str(tmp_path / "x.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{said}: use --device cpu." in err


def test_a_folder_without_a_model_is_refused(tmp_path, capsys):
    assert main(["--model", str(tmp_path), "--text", "a", "-o", str(tmp_path / "x.png")]) == 2
    assert "holds no model" in capsys.readouterr().err


@pytest.mark.parametrize("family", ["gpt2", "bert"])
def test_the_script_loads_the_model_and_prints_the_heads_numbers(
    family,
    gpt2_folder,
    bert_folder,
    tmp_path,
):
    from tests.io.test_code_export import parse_printout
    from tests.scripts import run_in_process

    folder = gpt2_folder if family == "gpt2" else bert_folder
    out = tmp_path / "head.py"
    args = ["--model", str(folder), "--text", TEXT, "--layer", "2", "--head", "3"]
    assert main([*args, "--view", "weights", "-o", str(out)]) == 0
    result = run_in_process(out)
    assert result.returncode == 0, result.stderr
    blocks = parse_printout(result.stdout)
    from attn_explorer.lens.capture import forward
    from attn_explorer.lens.loading import load

    _, _, attentions = forward(load(str(folder), "cpu"), TEXT)
    np.testing.assert_allclose(blocks["weights"], attentions[1][0, 2].numpy(), atol=1e-5)
    difference = float(result.stdout.rsplit(":", 1)[1])
    assert difference < 1e-5
