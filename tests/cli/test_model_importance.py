"""`attn-explorer export --model … --view importance`: every head switched off alone, written as
the lens measures it (JSON, CSV) and as the window's figure, and one line for a refusal."""

from __future__ import annotations

import csv
import importlib.util
import io
import json

import numpy as np
import pytest

from attn_explorer.cli.export import main

if importlib.util.find_spec("transformers") is None:  # imported by the tests that use it
    pytest.skip("transformers is not installed", allow_module_level=True)

from tests.lens import conftest as lens

TEXT = lens.TEXT
gpt2_folder = lens.gpt2_folder
bert_folder = lens.bert_folder


def _args(folder, *extra):
    return ["--model", str(folder), "--text", TEXT, "--view", "importance", *extra]


def test_json_holds_what_the_lens_measures(gpt2_folder, tmp_path, capsys):
    from attn_explorer.lens.importance import importance
    from attn_explorer.lens.loading import load

    out = tmp_path / "importance"
    assert main(_args(gpt2_folder, "--format", "json", "-o", str(out))) == 0
    assert capsys.readouterr().out.strip() == str(out) + ".json"
    data = json.loads((tmp_path / "importance.json").read_text(encoding="utf-8"))
    direct = importance(load(str(gpt2_folder), "cpu"), TEXT)
    assert data["measure"] == "next-token" and (data["layers"], data["heads"]) == (3, 4)
    np.testing.assert_allclose(data["kl"], direct.primary, rtol=1e-6)
    np.testing.assert_allclose(data["delta_logprob"], direct.secondary, rtol=1e-6, atol=1e-8)


def test_csv_to_standard_output_names_its_measure(bert_folder, capsys):
    assert main(_args(bert_folder, "--format", "csv", "-o", "-")) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["layer", "head", "norm", "share"]
    assert len(rows) == 1 + 2 * 3
    shares = [float(row[3]) for row in rows[1:]]
    assert all(s > 0 for s in shares) and shares == sorted(shares, reverse=True)


def test_the_figure_as_png(gpt2_folder, tmp_path):
    from PySide6.QtGui import QImage

    out = tmp_path / "importance.png"
    assert main(_args(gpt2_folder, "-o", str(out))) == 0
    image = QImage(str(out))
    assert image.width() >= 1100 and image.height() >= 520


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (["-o", "x.npz"], "--view importance writes json, csv, png, svg or pdf"),
        (["--format", "png", "-o", "-"], "--format png cannot go to standard output"),
    ],
)
def test_refusals_are_one_line(gpt2_folder, capsys, extra, said):
    assert main(_args(gpt2_folder, *extra)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err


def test_a_vietnamese_json_says_the_measure_in_vietnamese(gpt2_folder, capsys):
    assert main(_args(gpt2_folder, "--format", "json", "-o", "-", "--lang", "vi")) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["columns"]["kl"] == "trung bình độ phân kỳ KL (nats)"
    assert data["description"].startswith("Tắt riêng từng đầu")
