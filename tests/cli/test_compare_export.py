"""`--ablate` on the command lines and `export --compare`: the same numbers as the engine, A, B
and B − A in npz and json, a figure of the three, and refusals in one line."""

import json
from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import compute, preset
from attn_explorer.engine.compare import compare
from attn_explorer.io.session import save_session
from attn_explorer.model.state import ExplorerState
from tests.cli.conftest import export_here

MHA = preset("mha").config


def test_ablate_gives_the_engine_s_numbers(tmp_path, capsys):
    out = tmp_path / "off.npz"
    status, _, err = export_here(capsys, "--preset", "mha", "--ablate", "2", "-o", out)
    assert status == 0, err
    engine = compute(replace(MHA, ablate=(2,)))
    with np.load(out) as data:
        np.testing.assert_array_equal(data["context"], engine.context)
        np.testing.assert_array_equal(data["concat"], engine.concat)
        assert json.loads(str(data["config_json"]))["ablate"] == [2]


def test_ablate_and_set_ablate_are_one_setting(tmp_path, capsys):
    one, two = tmp_path / "1.json", tmp_path / "2.json"
    assert export_here(capsys, "--preset", "mha", "--ablate", "1,2", "-o", one)[0] == 0
    sets = ("--set", "ablate=2,1", "--set", "ablate_mode=mean")
    assert export_here(capsys, "--preset", "mha", *sets, "-o", two)[0] == 0
    first, second = (json.loads(p.read_text(encoding="utf-8")) for p in (one, two))
    assert first["config"]["ablate"] == second["config"]["ablate"] == [1, 2]
    assert second["config"]["ablate_mode"] == "mean"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--ablate", "3"), "--ablate: there is no head 3; the heads are numbered 1 to 2"),
        (("--ablate", "x"), "--ablate: 'x' is not a whole number; allowed: head numbers"),
        (("--ablate", "17"), "--ablate: '17' is outside 1 to 16"),
        (("--ablate", "1", "--set", "ablate=2"), "give --ablate or --set ablate=…, not both"),
        (("--set", "ablate_mode=half"), "--set ablate_mode: 'half' is not among the choices"),
    ],
)
def test_bad_heads_are_refused_naming_the_argument(tmp_path, capsys, args, said):
    status, _, err = export_here(capsys, "--preset", "mha", *args, "-o", tmp_path / "x.json")
    assert status == 2 and said in err and "Traceback" not in err


def test_compare_npz_holds_a_b_and_b_minus_a(tmp_path, capsys):
    out = tmp_path / "cmp.npz"
    args = ("--preset", "mha", "--ablate", "2", "--compare", "mha", "-o", out)
    status, _, err = export_here(capsys, *args)
    assert status == 0, err
    a, b = compute(MHA), compute(replace(MHA, ablate=(2,)))
    with np.load(out) as data:
        for name in a.names:
            np.testing.assert_array_equal(data[f"a.{name}"], a[name])
            np.testing.assert_array_equal(data[f"b.{name}"], b[name])
        np.testing.assert_array_equal(
            data["b_minus_a.context"], b.context.astype(np.float64) - a.context
        )
        assert str(data["first_stage"]) == "concat"
        assert str(data["summary"]).startswith("B changes ablate (none → 2).")


def test_compare_json_of_one_view_against_a_session(tmp_path, capsys):
    session = tmp_path / "a.json"
    save_session(session, ExplorerState.from_config(preset("v2").config))
    out = tmp_path / "cmp.json"
    args = ("--preset", "v2", "--set", "scale=false", "--compare", session, "--view", "weights")
    status, _, err = export_here(capsys, *args, "-o", out)
    assert status == 0, err
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert list(doc["arrays"]) == ["weights"]
    assert doc["first_stage"] == "scale" and doc["settings_differing"] == ["scale"]
    v2 = preset("v2").config
    found = compare(compute(v2), compute(replace(v2, scale=False)))
    weights = doc["arrays"]["weights"]
    np.testing.assert_allclose(weights["b_minus_a"], found["weights"].diff, atol=1e-7)
    assert weights["largest"] == pytest.approx(found["weights"].largest)


def test_compare_in_vietnamese_says_the_summary_in_vietnamese(tmp_path, capsys):
    out = tmp_path / "cmp.json"
    args = ("--lang", "vi", "--preset", "mha", "--ablate", "2", "--compare", "mha")
    assert export_here(capsys, *args, "-o", out)[0] == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["summary"][0] == "B thay đổi ablate (không có → 2)."


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--compare", "nothing", "-o", "x.json"), "--compare: 'nothing' is neither a session"),
        (("--compare", "mha", "-o", "x.png"), "a --compare figure shows one array: add --view"),
        (("--compare", "mha", "--stage", "scale", "-o", "x.png"), "not a stage"),
        (("--compare", "mha", "-o", "x.py"), "--compare writes png, svg, pdf, npz, json, not py"),
        (("--compare", "mha", "--view", "nope", "-o", "x.png"), "--view nope is not an array"),
    ],
)
def test_compare_refusals(tmp_path, capsys, monkeypatch, args, said):
    monkeypatch.chdir(tmp_path)
    status, _, err = export_here(capsys, "--preset", "mha", *args)
    assert status == 2 and said in err, err


def test_compare_figure_shows_a_b_and_b_minus_a(tmp_path, capsys):
    from tests.cli.conftest import svg_texts

    out = tmp_path / "cmp.svg"
    args = ("--preset", "mha", "--ablate", "2", "--compare", "mha", "--view", "context")
    status, _, err = export_here(capsys, *args, "-o", out)
    assert status == 0, err
    texts = svg_texts(out)
    assert "B changes ablate (none → 2)." in texts
    assert "A · Context (output)" in texts and "B · Context (output)" in texts
    assert "B − A: Context (output)" in texts
    assert "largest change -0.0503 at row Your, column 1" in texts
