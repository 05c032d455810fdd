"""The arguments the window's command line and `export` share: where the state comes from
(a session, --preset, --tokens) and --set, its switches, its refusals in words and the
values it keeps exactly."""

import json

import numpy as np
import pytest

from attn_explorer.engine import preset
from attn_explorer.io.session import save_session
from attn_explorer.model.state import ExplorerState
from tests.cli.conftest import export_here


@pytest.mark.parametrize(
    ("sets", "valid_len"),
    [(["valid_len=3"], 3), (["valid_len=3", "padding=false"], None), (["padding=on"], 6)],
)
def test_setting_the_valid_length_turns_padding_on_unless_padding_is_set(
    tmp_path, capsys, sets, valid_len
):
    """`--set valid_len=3` was kept while padding stayed off: the export was unpadded."""
    out = tmp_path / "x.json"
    status, _, err = export_here(
        capsys, "--preset", "v1", *[a for s in sets for a in ("--set", s)], "-o", out
    )
    assert status == 0, err
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["config"]["valid_len"] == valid_len
    hidden = np.array(data["arrays"]["weights"]["data"])[0][:, valid_len or 6 :]
    assert hidden.size == 6 * (6 - (valid_len or 6)) and not hidden.any()


@pytest.mark.parametrize(
    ("sets", "dropout_seed"),
    [(["dropout_seed=7"], 7), (["reseed_dropout=false", "dropout_seed=7"], None)],
)
def test_setting_the_dropout_seed_turns_reseeding_on_unless_reseeding_is_set(
    tmp_path, capsys, sets, dropout_seed
):
    out = tmp_path / "x.json"
    args = ["--set", "dropout=0.5", *[a for s in sets for a in ("--set", s)]]
    status, _, err = export_here(capsys, "--preset", "v1", *args, "-o", out)
    assert status == 0, err
    assert json.loads(out.read_text(encoding="utf-8"))["config"]["dropout_seed"] == dropout_seed


def test_the_window_command_line_turns_the_same_switches_on():
    """`attn-explorer --set valid_len=3` opens the window through the same state_from_args."""
    import argparse

    from attn_explorer.cli.arguments import state_from_args

    args = argparse.Namespace(
        session=None, preset="v1", tokens=None, d_in=None, set=["valid_len=2", "dropout_seed=9"]
    )
    config = state_from_args(args).config()
    assert (config.valid_len, config.dropout_seed) == (2, 9)


def test_random_tokens_alone_start_from_the_default_example(tmp_path, capsys, qapp):
    """`export --tokens 5 -o out.png` was refused ("give a session file or --preset NAME")
    although the window's command line opens the default example with 5 random tokens."""
    from attn_explorer.model.state import default_state, random_sequence

    out = tmp_path / "out.png"
    status, printed, err = export_here(capsys, "--tokens", "5", "-o", out)
    assert status == 0, err
    assert printed.strip() == str(out)
    from PySide6.QtGui import QImage

    # The seven matrices, following token 2 (its worked lines below them).
    assert (QImage(str(out)).width(), QImage(str(out)).height()) == (1500, 1060)
    status, _, err = export_here(capsys, "--tokens", "5", "--d-in", "4", "-o", tmp_path / "x.json")
    assert status == 0, err
    data = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))
    assert data["q_tokens"] == ["t1", "t2", "t3", "t4", "t5"]
    assert data["arrays"]["x"]["data"] == [list(r) for r in random_sequence(5, 4).embeddings]
    assert data["config"]["causal"] == default_state().controls.causal


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (
            "causal=maybe",
            "--set causal: 'maybe' is not true or false; allowed: true or false (or yes/no, "
            "on/off, 1/0)",
        ),
        (
            "num_heads=two",
            "--set num_heads: 'two' is not a whole number; allowed: a whole number from 1 to 16",
        ),
        (
            "seed=1.5",
            "--set seed: '1.5' is not a whole number; allowed: a whole number from 0 to 9999",
        ),
        (
            "dropout=half",
            "--set dropout: 'half' is not a number; allowed: a number from 0 to 0.9, with at "
            "most 2 decimals",
        ),
        (
            "projection=Linear",
            "--set projection: 'Linear' is not among the choices; allowed: none, rand or linear",
        ),
    ],
)
def test_a_set_value_of_the_wrong_kind_is_said_in_words(tmp_path, capsys, item, message):
    """--set causal=maybe said "is not a valid bool", num_heads "a valid int": Python's type
    names, where a session's own check says "must be true or false" or "a whole number"."""
    status, _, err = export_here(capsys, "--preset", "v1", "--set", item, "-o", tmp_path / "x.json")
    assert (status, err) == (2, f"attn-explorer export: {message}\n")


TEMPERATURE = "allowed: a number from 0.01 to 100, with at most 2 decimals"


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (
            "dropout=0.123",
            "--set dropout: '0.123' has more than 2 decimals; allowed: a number "
            "from 0 to 0.9, with at most 2 decimals",
        ),
        (
            "temperature=99.999",
            f"--set temperature: '99.999' has more than 2 decimals; {TEMPERATURE}",
        ),
        ("temperature=nan", f"--set temperature: 'nan' is not a number; {TEMPERATURE}"),
        ("temperature=inf", f"--set temperature: 'inf' is infinite; {TEMPERATURE}"),
        ("temperature=-inf", f"--set temperature: '-inf' is infinite; {TEMPERATURE}"),
        ("temperature=1e308", f"--set temperature: '1e308' is above 100; {TEMPERATURE}"),
        ("temperature=1e999", f"--set temperature: '1e999' is above 100; {TEMPERATURE}"),
        ("temperature=-0", f"--set temperature: '-0' is below 0.01; {TEMPERATURE}"),
        ("temperature=", f"--set temperature: no value given; {TEMPERATURE}"),
        (
            "temperature=1,5",
            "--set temperature: '1,5' is not a number (a decimal takes a point: 1.5); "
            + TEMPERATURE,
        ),
        ("temperature=1_0", f"--set temperature: '1_0' is not a number; {TEMPERATURE}"),
        ("seed=-1", "--set seed: '-1' is below 0; allowed: a whole number from 0 to 9999"),
        ("d_out=65", "--set d_out: '65' is above 64; allowed: a whole number from 1 to 64"),
    ],
)
def test_a_set_value_the_control_cannot_hold_as_given_is_refused_in_one_line(
    tmp_path, capsys, item, message
):
    """--set dropout=0.123 was silently computed as 0.12, the two decimals its box holds;
    nan, inf and -0 said "is nan, outside 0.01 to 100", an empty value or 1,5 "is not a
    number", without what the field takes."""
    status, out, err = export_here(
        capsys, "--preset", "v1", "--set", item, "-o", tmp_path / "x.json"
    )
    assert (status, out, err) == (2, "", f"attn-explorer export: {message}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("items", "dropout", "temperature"),
    [
        (["dropout=0.12", "temperature=99.99"], 0.12, 99.99),
        (["dropout=-0", "temperature=0.01"], 0.0, 0.01),
        (["dropout=0.9", "temperature=1e2"], 0.9, 100.0),
        (["dropout=.5", "temperature=+2.50"], 0.5, 2.5),
    ],
)
def test_a_set_value_the_control_holds_is_kept_exactly(
    tmp_path, capsys, items, dropout, temperature
):
    sets = [arg for item in items for arg in ("--set", item)]
    status, _, err = export_here(capsys, "--preset", "v1", *sets, "-o", tmp_path / "x.json")
    assert status == 0, err
    config = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))["config"]
    assert (config["dropout"], config["temperature"]) == (dropout, temperature)
    assert str(config["dropout"]) == str(dropout)  # 0.0, not -0.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--preset", "causal", "--set", "valid_len=10"],
            "--set valid_len: '10' does not fit the other settings: Valid length 10 is outside "
            "1 to 6: at least one key must stay visible and there are 6 keys; allowed here: a "
            "whole number from 1 to 6, the number of keys",
        ),
        (
            ["--preset", "mha", "--set", "num_heads=3"],
            "--set num_heads: '3' does not fit the other settings: d_out 2 cannot be split into "
            "3 heads: with the split layout d_out must be a multiple of the number of heads; "
            "allowed here: 1 or 2 (the split layout needs d_out 2 divisible by them)",
        ),
        (
            ["--preset", "wrapper", "--set", "d_out=3", "--set", "head_layout=split"],
            "--set d_out: '3' does not fit the other settings: d_out 3 cannot be split into 2 "
            "heads: with the split layout d_out must be a multiple of the number of heads; "
            "allowed here: a multiple of 2 from 2 to 64, the number of heads",
        ),
        (
            ["--preset", "simple", "--set", "num_heads=2"],
            "--set num_heads: '2' does not fit the other settings: Without projections "
            "(Q = K = V = X) all 2 heads would be identical: use one head, or the rand or linear "
            "projection; allowed here: 1 (without projections every head is Q = K = V = X)",
        ),
        (
            ["--preset", "cross", "--set", "causal=yes"],
            "--set causal: 'yes' does not fit the other settings: A causal mask needs as many "
            "queries as keys (4 queries, 6 keys): switch causal off for cross-attention; "
            "allowed here: false while there are 4 queries and 6 keys",
        ),
        (
            ["--preset", "wrapper", "--tokens", "4096", "--set", "num_heads=16"],
            "--set num_heads: '16' does not fit the other settings: 16 heads × 4096 queries × "
            "4096 keys is 268,435,456 attention weights, more than the 33,554,432 this explorer "
            "computes: use fewer tokens or heads; allowed here: a whole number from 1 to 2",
        ),
        (
            ["--preset", "padding", "--tokens", "1"],
            "--tokens 1: the session masks the keys after the valid length 4, more than 1 "
            "token; add --set valid_len=1 or --set padding=false",
        ),
        (
            ["--preset", "padding", "--tokens", "3"],
            "--tokens 3: the session masks the keys after the valid length 4, more than 3 "
            "tokens; add --set valid_len=N (from 1 to 3) or --set padding=false",
        ),
    ],
)
def test_a_value_in_range_the_session_cannot_compute_is_refused_as_an_argument(
    tmp_path, capsys, args, message
):
    """`--set valid_len=10` on six tokens passed the control's range and failed late as
    "this configuration cannot be computed" with status 1, naming no argument."""
    status, out, err = export_here(capsys, *args, "-o", tmp_path / "x.json")
    assert (status, out, err) == (2, "", f"attn-explorer export: {message}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("sets", "valid_len"),
    [(["valid_len=2"], 2), (["padding=false"], None), (["valid_len=3"], 3)],
)
def test_fewer_random_tokens_than_the_valid_length_take_the_commands_own_padding(
    tmp_path, capsys, sets, valid_len
):
    """`--preset padding --tokens 3` lowered the valid length 4 to 3 without a word (no key
    masked any more); it is refused, and the command's own valid length or padding wins."""
    out = tmp_path / "x.json"
    sets = [a for s in sets for a in ("--set", s)]
    status, _, err = export_here(capsys, "--preset", "padding", "--tokens", "3", *sets, "-o", out)
    assert (status, err) == (0, "")
    assert json.loads(out.read_text(encoding="utf-8"))["config"]["valid_len"] == valid_len


def test_a_session_that_cannot_be_computed_stays_the_sessions_fault(tmp_path, capsys):
    """A problem the session had before the command changed anything is status 1, as before,
    even with a --set of an unrelated field."""
    state = ExplorerState.from_config(preset("causal").config).with_controls(
        padding=True, valid_len=9
    )
    path = tmp_path / "s.json"
    save_session(path, state)
    status, _, err = export_here(capsys, path, "--set", "seed=5", "-o", tmp_path / "x.json")
    assert (status, err) == (
        1,
        "attn-explorer export: this configuration cannot be computed: Valid length 9 is outside "
        "1 to 6: at least one key must stay visible and there are 6 keys.\n",
    )


def test_the_mask_order_is_set_on_the_command_line(tmp_path, capsys):
    """`--set mask_before_scaling=on` exports tutorial 000's order: the masked scores are the
    raw ones, divided by √2 after; off, the scores are divided first and then masked. The
    weights are the same either way."""
    data = {}
    for order in ("on", "off"):
        out = tmp_path / f"{order}.json"
        status, _, err = export_here(
            capsys, "--preset", "padding", "--set", "causal=true",
            "--set", f"mask_before_scaling={order}", "-o", out,
        )  # fmt: skip
        assert status == 0, err
        data[order] = json.loads(out.read_text(encoding="utf-8"))
    for order, first in (("on", True), ("off", False)):
        doc = data[order]
        assert doc["config"]["mask_before_scaling"] is first
        scores, masked, scaled = (
            doc["arrays"][n]["data"][0][1] for n in ("scores", "masked_scores", "scaled_scores")
        )
        assert masked[2:] == [None] * 4
        if first:  # the raw score masked, then divided (√2)
            assert masked[:2] == scores[:2] and scaled[2:] == [None] * 4
            assert scaled[0] == pytest.approx(masked[0] / 2**0.5)
            assert (
                "; masked before scaling, as in Build a Large Language Model (From Scratch), "
                "chapter 3 (§3.5.1): masked_scores are the raw scores with -inf where hidden "
                "(its printed `masked`), scaled_scores are masked_scores / sqrt(d_k), what "
                "softmax reads"
            ) in doc["notes"]
        else:
            assert masked[0] == scaled[0] == pytest.approx(scores[0] / 2**0.5)
            assert None not in scaled and "masked before scaling" not in doc["notes"]
    assert data["on"]["arrays"]["weights"] == data["off"]["arrays"]["weights"]


PRESET_NAMES = "simple, v1, v2, causal, dropout, causal-class, wrapper, mha, happy, cross, padding"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--preset", "v1", "--view", ""],
            "--view: no value given; 'matrices' or an array of the trace, e.g. weights",
        ),
        (
            ["--preset", "v1", "--view", "  "],
            "--view: no value given; 'matrices' or an array of the trace, e.g. weights",
        ),
        (
            ["--preset", "", "--tokens", "3"],
            f"--preset: no value given; known presets: {PRESET_NAMES}",
        ),
        (["--preset", " "], f"--preset: no value given; known presets: {PRESET_NAMES}"),
        (["", "--tokens", "3"], "session: no value given; name a saved session file (.json)"),
        (
            ["--preset", "v1", "-o", "", "--format", "png"],
            "-o: no value given; name the file or folder to write",
        ),
    ],
)
def test_an_empty_value_is_refused_not_read_as_no_option(
    tmp_path, capsys, monkeypatch, args, message
):
    """`--view ''` exported the matrices and `--preset ''` the default example (`--tokens`
    made it run), as if the option had not been given: an unset shell variable went
    unnoticed."""
    monkeypatch.chdir(tmp_path)
    if "-o" not in args:
        args = [*args, "-o", "x.png"]
    status, out, err = export_here(capsys, *args)
    assert (status, out, err) == (2, "", f"attn-explorer export: {message}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("sets", "note", "cross"),
    [
        (
            [],
            "attn-explorer export: --tokens 3 replaces the key/value sequence too: "
            "cross-attention is off (--set cross=true keeps it on, keys and values the same "
            "random tokens)\n",
            False,
        ),
        (["--set", "cross=false"], "", False),
        (["--set", "cross=true"], "", True),
    ],
)
def test_random_tokens_say_that_they_turn_cross_attention_off(tmp_path, capsys, sets, note, cross):
    """`--preset cross --tokens 3` exported self-attention without a word: the random tokens
    replace the key/value sequence as well, and cross-attention went off."""
    out = tmp_path / "x.json"
    status, _, err = export_here(capsys, "--preset", "cross", "--tokens", "3", *sets, "-o", out)
    assert (status, err) == (0, note)
    config = json.loads(out.read_text(encoding="utf-8"))["config"]
    assert (config["kv_tokens"] is not None) == cross
