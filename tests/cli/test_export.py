"""`attn-explorer export`: headless figures, data and code; one-line failures, no traceback."""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest
from pypdf import PdfReader

from attn_explorer.engine import compute, preset
from attn_explorer.io.session import save_session
from attn_explorer.model.state import ExplorerState


def run(*args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "attn_explorer", "export", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


@pytest.fixture
def session(tmp_path):
    path = tmp_path / "mha.json"
    save_session(path, ExplorerState.from_config(preset("mha").config))
    return path


def test_svg_of_one_view_from_a_session_without_a_display(session, tmp_path):
    out = tmp_path / "out.svg"
    done = run(session, "--view", "weights", "--format", "svg", "-o", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    root = ET.parse(out).getroot()
    assert "journey" in " ".join(
        "".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")
    )


def svg_texts(path) -> str:
    root = ET.parse(path).getroot()
    texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    return " ".join(texts.split())


def test_the_matrices_of_a_session_show_the_scores_and_weights_it_chose(tmp_path):
    state = ExplorerState.from_config(preset("dropout").config)
    view = replace(state.view, scores_array="scores", weights_array="weights_dropped")
    path = tmp_path / "chosen.json"
    save_session(path, replace(state, view=view))
    done = run(path, "--format", "svg", "-o", tmp_path / "m.svg")
    assert done.returncode == 0, done.stderr
    texts = svg_texts(tmp_path / "m.svg")
    assert "Scores ω = Q·Kᵀ" in texts and "Weights after dropout" in texts
    assert "Masked scores" not in texts and "Attention weights" not in texts


def test_all_steps_as_a_pdf_from_a_preset(tmp_path):
    out = tmp_path / "steps.pdf"
    done = run(
        "--preset",
        "causal-class",
        "--all-steps",
        "-o",
        out,
        env_extra={"QT_QPA_PLATFORM": "offscreen"},
    )
    assert done.returncode == 0, done.stderr
    assert len(PdfReader(out).pages) == 10


def test_png_at_2x_with_size(tmp_path):
    out = tmp_path / "stage.png"
    done = run(
        "--preset", "v1", "--stage", "softmax", "--scale", "2", "--size", "900x600", "-o", out
    )
    assert done.returncode == 0, done.stderr
    from PySide6.QtGui import QImage

    assert (QImage(str(out)).width(), QImage(str(out)).height()) == (1800, 1200)


def test_data_and_script(tmp_path, session):
    done = run(session, "--format", "npz", "-o", tmp_path / "d.npz")
    assert done.returncode == 0, done.stderr
    expected = compute(preset("mha").config)
    with np.load(tmp_path / "d.npz", allow_pickle=False) as data:
        np.testing.assert_array_equal(data["context"], expected.context)
    done = run(session, "-o", tmp_path / "d.json")
    assert done.returncode == 0 and "arrays" in json.loads((tmp_path / "d.json").read_text())
    done = run("--preset", "mha", "-o", tmp_path / "mha.py")
    assert done.returncode == 0, done.stderr
    script = subprocess.run(
        [sys.executable, tmp_path / "mha.py"], capture_output=True, text=True, timeout=120
    )
    assert "0.3190" in script.stdout or "0.318" in script.stdout


@pytest.mark.parametrize(
    ("args", "status", "words"),
    [
        (["-o", "x.png"], 2, "give a session file, --preset NAME or --tokens N"),
        (["--preset", "nope", "-o", "x.png"], 2, "no preset 'nope'"),
        (["--preset", "v1"], 2, "the following arguments are required: -o/--output"),
        (["missing.json", "-o", "x.png"], 1, "missing.json"),
        (["--preset", "v1", "--view", "banana", "-o", "x.png"], 2, "has no array 'banana'"),
        (
            ["--preset", "v1", "--head", "3", "--view", "weights", "-o", "x.png"],
            2,
            "--head must be a head's number from 1 to 1 or 'all', not 3",
        ),
        (["--preset", "v1", "--head", "two", "-o", "x.png"], 2, "--head must be a number"),
        (["--preset", "v1", "-o", "x.gif"], 2, "cannot tell the format"),
        (["--preset", "v1", "--size", "big", "-o", "x.png"], 2, "--size must look like"),
        (["--preset", "mha", "--set", "d_out=5", "-o", "x.png"], 2, "cannot be split into 2 heads"),
        (["--preset", "v1", "--stage", "nope", "-o", "x.png"], 2, "invalid choice: 'nope'"),
        (["--preset", "mha", "--query", "9", "-o", "x.png"], 2, "from 1 to 6, not 9"),
        (
            ["--preset", "v1", "-o", "missing/x.svg"],
            1,
            "Cannot write missing/x.svg: the folder missing does not exist.",
        ),
        (
            ["--preset", "v1", "-o", "missing/x.pdf"],
            1,
            "Cannot write missing/x.pdf: the folder missing does not exist.",
        ),
        (
            ["--preset", "v1", "--size", "8000x8000", "--scale", "4", "-o", "x.png"],
            2,
            "32000×32000 pixels (3.8 GB in memory); choose a smaller size or scale",
        ),
        (["--preset", "v1", "--query", "0", "-o", "x.csv"], 2, "from 1 to 6, not 0"),
        # Flags a data export would silently ignore, as if obeyed:
        (
            ["--preset", "mha", "--all-steps", "--format", "npz", "-o", "all.npz"],
            2,
            "--all-steps only applies to figures (png, svg, pdf); npz holds every array",
        ),
        (["--preset", "v1", "--view", "weights", "-o", "w.csv"], 2, "--view only applies"),
        (["--preset", "v1", "--size", "800x600", "-o", "x.py"], 2, "--size only applies"),
        (["--preset", "v1", "--query", "2", "-o", "x.json"], 2, "--query only applies"),
        (["--preset", "mha", "--head", "all", "-o", "x.png"], 2, "--head all needs an array"),
    ],
)
def test_bad_input_fails_in_one_line(tmp_path, args, status, words):
    done = run(*[str(tmp_path / a) if a.endswith((".json",)) else a for a in args])
    assert done.returncode == status
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("attn-explorer export: ") and words in lines[0]
    assert "Traceback" not in done.stderr


def test_corrupt_session_fails_cleanly(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "attn_explorer.session", "version": 1, "queries": [')
    done = run(bad, "-o", tmp_path / "x.png")
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and not (tmp_path / "x.png").exists()


def test_exported_arrays_are_bit_for_bit_those_the_window_computes(tmp_path, qtbot):
    """Matrix products round differently on one kernel thread and on two: the export ran on
    torch's default two while the window's engine thread computes a small trace on one."""
    from attn_explorer.ui.engine_thread import EngineBridge

    rng = np.random.default_rng(5)
    config = replace(
        preset("v2").config,
        tokens=tuple(f"t{i}" for i in range(7)),
        embeddings=tuple(map(tuple, rng.normal(size=(7, 15)).round(3))),
        d_out=64,
        qkv_bias=True,
        scale=False,
    )
    bridge = EngineBridge()
    try:
        with qtbot.waitSignal(bridge.computed, timeout=30_000) as shown:
            bridge.request(config)
    finally:
        bridge.shutdown()
    path = tmp_path / "s.json"
    save_session(path, ExplorerState.from_config(config))
    done = run(path, "-o", tmp_path / "x.npz")
    assert done.returncode == 0, done.stderr
    exported = np.load(tmp_path / "x.npz")
    for name in ("queries", "scores", "weights", "context"):
        np.testing.assert_array_equal(exported[name], shown.args[0].trace[name], err_msg=name)


def test_cross_attention_without_a_second_sequence_uses_the_queries_as_the_window_does(
    tmp_path,
):
    done = run("--preset", "v1", "--set", "cross=true", "-o", tmp_path / "x.json")
    assert done.returncode == 0, done.stderr
    config = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))["config"]
    assert config["kv_tokens"] == config["tokens"]


def test_a_folder_format_named_like_a_file_writes_the_folder_and_formats_must_match(tmp_path):
    """-o causal.csv made a folder named causal.csv; --format svg -o looks.png wrote SVG text
    into a .png."""
    done = run("--preset", "causal", "-o", tmp_path / "causal.csv")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "causal" / "weights_head1.csv").is_file()
    assert not (tmp_path / "causal.csv").exists()
    done = run("--preset", "v1", "--format", "svg", "-o", tmp_path / "looks.png")
    assert done.returncode == 2
    assert "--format svg does not match the name 'looks.png'" in done.stderr
    assert not (tmp_path / "looks.png").exists()
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "scores.csv").write_text("student,grade\n")
    done = run("--preset", "v1", "--format", "csv", "-o", tmp_path / "course")
    assert done.returncode == 1 and "already holds other files (scores.csv)" in done.stderr
    assert (tmp_path / "course" / "scores.csv").read_text() == "student,grade\n"


def export_here(capsys, *args):
    """The export command in this process (no display needed for data): status, out, err."""
    from attn_explorer.cli.export import main

    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


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


def test_random_tokens_alone_start_from_the_default_example(tmp_path, capsys):
    """`export --tokens 5 -o out.png` was refused ("give a session file or --preset NAME")
    although the window's command line opens the default example with 5 random tokens."""
    from attn_explorer.model.state import default_state, random_sequence

    out = tmp_path / "out.png"
    done = run("--tokens", "5", "-o", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
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
    ("args", "fmt"),
    [
        (["--view", "weights", "--scale", "2", "-o", "w.svg"], "svg"),
        (["--scale", "4", "--format", "pdf", "-o", "m"], "pdf"),
        (["--all-steps", "--scale", "2", "-o", "steps"], "pdf"),
        (["--all-steps", "--scale", "2", "--format", "svg", "-o", "steps"], "svg"),
    ],
)
def test_a_scale_for_a_vector_figure_is_refused(tmp_path, capsys, args, fmt):
    """--scale 2 -o w.svg wrote the same SVG as without it, as if it had been obeyed."""
    args = [str(tmp_path / a) if a in ("w.svg", "m", "steps") else a for a in args]
    status, out, err = export_here(capsys, "--preset", "v1", *args)
    assert (status, out) == (2, "")
    assert err == (
        f"attn-explorer export: --scale only applies to png; {fmt} is drawn as vectors, "
        "sharp at any zoom\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--view", "context", "--head", "2"], "--view context is the same for every head"),
        (["--view", "context", "--head", "all"], "--view context is the same for every head"),
        (["--view", "mask", "--head", "1"], "--view mask is the same for every head"),
    ],
)
def test_a_head_that_would_change_nothing_is_refused(tmp_path, capsys, args, message):
    """--view context --head 2 drew the one output of both heads, as if head 2's."""
    status, out, err = export_here(capsys, "--preset", "mha", *args, "-o", tmp_path / "x.png")
    assert (status, out) == (2, "")
    assert err == f"attn-explorer export: {message}: --head would change nothing\n"
    assert not (tmp_path / "x.png").exists()


@pytest.mark.parametrize("view", ["keys", "values", "w_query", "w_out", "b_out"])
def test_a_query_on_a_figure_without_query_rows_is_refused(tmp_path, capsys, view):
    """Only a matrix with a row per query token outlines the followed query."""
    status, out, err = export_here(
        capsys, "--preset", "mha", "--view", view, "--query", "3", "-o", tmp_path / "x.png"
    )
    assert (status, out) == (2, "")
    assert err == (
        f"attn-explorer export: --view {view} has no row per query to outline: "
        "--query would change nothing\n"
    )


def test_an_explicit_head_1_for_data_is_refused_as_any_other_head(tmp_path, capsys):
    """--head 1 -o x.npz passed (only a head other than 1 was noticed) though the file holds
    both heads of mha."""
    status, _, err = export_here(capsys, "--preset", "mha", "--head", "1", "-o", tmp_path / "x.npz")
    assert status == 2
    assert err == (
        "attn-explorer export: --head only applies to figures (png, svg, pdf); npz holds every "
        "array\n"
    )


@pytest.mark.parametrize(
    ("args", "title"),
    [
        (["--view", "keys", "--head", "2"], "Keys K · head 2"),
        (["--view", "context", "--query", "3"], "Context (output)"),
        (["--stage", "out_proj", "--query", "3"], "Output projection"),
        (["--stage", "softmax", "--head", "2", "--query", "3"], "Softmax"),
        # A loop over the stages with --head 2 stopped at the three that show every head.
        (["--stage", "embeddings", "--head", "2"], "Embeddings"),
        (["--stage", "concat", "--head", "2"], "Concat"),
        (["--stage", "out_proj", "--head", "2", "--query", "3"], "Output projection"),
        (["--head", "2", "--query", "3"], "Attention · head 2"),
    ],
)
def test_a_head_or_query_the_figure_shows_is_accepted(tmp_path, capsys, qapp, args, title):
    out = tmp_path / "x.svg"
    status, printed, err = export_here(capsys, "--preset", "mha", *args, "-o", out)
    assert status == 0, err
    assert printed.strip() == str(out)
    assert title in svg_texts(out)


def test_the_query_help_names_the_default_the_export_uses(tmp_path, capsys, qapp):
    """The help said "(default 2)"; the export follows the session's query."""
    from attn_explorer.cli.export import _parser

    help_text = " ".join(_parser().format_help().split())
    assert (
        "the followed query token, from 1 (default: the session's or the example's followed "
        "query: 2, or 3 in the dropout example)"
    ) in help_text
    state = ExplorerState.from_config(preset("v1").config)
    path = tmp_path / "s.json"
    save_session(path, replace(state, view=replace(state.view, query=4)))
    pictures = {}
    for name, extra in (("own", []), ("five", ["--query", "5"]), ("two", ["--query", "2"])):
        out = tmp_path / f"{name}.png"
        status, _, err = export_here(capsys, path, *extra, "-o", out)
        assert status == 0, err
        pictures[name] = out.read_bytes()
    assert pictures["own"] == pictures["five"] != pictures["two"]


def test_a_failed_write_says_which_file_and_why_without_an_errno(tmp_path, capsys, qapp):
    """The export printed "cannot write: [Errno 2] No such file or directory: '…/x.py'"."""
    (tmp_path / "taken").write_text("notes\n")
    for args, message in [
        (
            ["-o", tmp_path / "gone" / "x.py"],
            f"Cannot write {tmp_path}/gone/x.py: the folder {tmp_path}/gone does not exist.",
        ),
        (
            ["--format", "csv", "-o", tmp_path / "taken"],
            f"Cannot write {tmp_path}/taken: a file of that name is in the way.",
        ),
        (
            ["--all-steps", "--format", "png", "-o", tmp_path / "taken"],
            f"Cannot write {tmp_path}/taken: a file of that name is in the way.",
        ),
    ]:
        status, _, err = export_here(capsys, "--preset", "v1", *args)
        assert status == 1
        assert err.startswith(f"attn-explorer export: {message}"), err
        assert "Errno" not in err and len(err.splitlines()) == 1
    assert (tmp_path / "taken").read_text() == "notes\n"


@pytest.mark.parametrize(
    ("saved_head", "args", "title"),
    [
        (1, [], "Attention weights · head 2"),
        (1, ["--head", "1"], "Attention weights · head 1"),
        # The window shows a chosen head the trace lacks as its last head.
        (4, [], "Attention weights · head 2"),
    ],
)
def test_the_head_follows_the_session_unless_given(tmp_path, capsys, qapp, saved_head, args, title):
    """A session saved showing head 2 exported head 1 unless --head 2 was given, while
    --query already followed the session's query."""
    state = ExplorerState.from_config(preset("mha").config)
    path = tmp_path / "s.json"
    save_session(path, replace(state, view=replace(state.view, head=saved_head)))
    out = tmp_path / "w.svg"
    status, _, err = export_here(capsys, path, "--view", "weights", *args, "-o", out)
    assert status == 0, err
    assert title in svg_texts(out)
    status, _, err = export_here(capsys, "--preset", "mha", "--view", "weights", "-o", out)
    assert status == 0, err
    assert "Attention weights · head 1" in svg_texts(out)
    from attn_explorer.cli.export import _parser

    help_text = " ".join(_parser().format_help().split())
    assert "head number from 1, or 'all' (default: the session's head, else 1)" in help_text


@pytest.mark.parametrize(
    ("args", "head"),
    [
        (["--view", "context", "--head", "0", "-o", "x.png"], "0"),
        (["--view", "mask", "--head", "3", "-o", "x.png"], "3"),
        (["--view", "weights", "--head", "5", "-o", "x.png"], "5"),
        (["--stage", "softmax", "--head", "-1", "-o", "x.png"], "-1"),
        (["--head", "0", "-o", "x.npz"], "0"),
    ],
)
def test_a_head_that_does_not_exist_is_named_before_any_other_refusal(tmp_path, capsys, args, head):
    """--view context --head 0 said "--head would change nothing", as if head 0 existed,
    and --head 5 with two heads ended with status 1 as if the export had failed."""
    args = [str(tmp_path / a) if a.startswith("x.") else a for a in args]
    status, out, err = export_here(capsys, "--preset", "mha", *args)
    assert (status, out) == (2, "")
    assert err == (
        f"attn-explorer export: --head must be a head's number from 1 to 2 or 'all', not {head}\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "written"),
    [
        (["-o", "gone/deeper/x.npz"], "gone/deeper/x.npz"),
        (["-o", "gone/deeper/x.json"], "gone/deeper/x.json"),
        (["-o", "gone/deeper/x.csv"], "gone/deeper/x"),
        (["--format", "npy", "-o", "gone/deeper/x"], "gone/deeper/x"),
        (["-o", "gone/deeper/x.py"], "gone/deeper/x.py"),
        (["-o", "gone/deeper/x.png"], "gone/deeper/x.png"),
        (["--view", "weights", "-o", "gone/deeper/x.svg"], "gone/deeper/x.svg"),
        (["--all-steps", "-o", "gone/deeper/steps.pdf"], "gone/deeper/steps.pdf"),
        (["--all-steps", "--format", "png", "-o", "gone/deeper/steps"], "gone/deeper/steps"),
    ],
)
def test_a_missing_folder_is_refused_whatever_the_format(tmp_path, capsys, qapp, args, written):
    """-o gone/deeper/x.npz (.json, .csv, .npy, and --all-steps into a folder) made every
    missing folder on the way, so a mistyped path scattered new folders, while .py and the
    figures failed with "no such file or directory" naming the file, not the folder."""
    args = [str(tmp_path / a) if a.startswith("gone/") else a for a in args]
    status, out, err = export_here(capsys, "--preset", "v1", *args)
    assert (status, out) == (1, "")
    assert err == (
        f"attn-explorer export: Cannot write {tmp_path / written}: the folder "
        f"{tmp_path / 'gone' / 'deeper'} does not exist.\n"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_file_where_the_folder_should_be_is_named(tmp_path, capsys):
    (tmp_path / "notes").write_text("mine\n")
    status, _, err = export_here(capsys, "--preset", "v1", "-o", tmp_path / "notes" / "x.npz")
    assert status == 1
    assert err == (
        f"attn-explorer export: Cannot write {tmp_path}/notes/x.npz: {tmp_path}/notes is a "
        "file, not a folder.\n"
    )
    assert (tmp_path / "notes").read_text() == "mine\n"


def test_stages_to_a_new_folder_make_that_folder_only(tmp_path, capsys, qapp):
    status, _, err = export_here(
        capsys, "--preset", "v1", "--all-steps", "--format", "svg", "-o", tmp_path / "steps"
    )
    assert status == 0, err
    assert len(list((tmp_path / "steps").iterdir())) == 10


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--format", "svg", "-o", "looks.png"],
            "--format svg does not match the name 'looks.png': change one",
        ),
        (
            ["-o", "x.gif"],
            "cannot tell the format from 'x.gif': add --format (png, svg, pdf, csv, npz, npy, "
            "json, py)",
        ),
        (["--size", "big", "-o", "x.png"], "--size must look like 1200x800, not 'big'"),
        (["--size", "100x100", "-o", "x.svg"], "figure size 100×100 is outside 200×150 to"),
        (["--size", "8000x8000", "--scale", "4", "-o", "x.png"], "a 8000×8000 PNG at 4× would"),
        (["--view", "banana", "-o", "x.pdf"], "this configuration has no array 'banana'"),
        (["--size", "200x150", "-o", "x.png"], "this figure needs at least"),
    ],
)
def test_a_refused_argument_exits_2_as_argparse_does(tmp_path, capsys, qapp, args, message):
    """--format svg -o looks.png, an unknown format, a --size or --view the figure cannot
    take ended with status 1, as a failed write does, while argparse's own refusals and the
    other refused flags end with 2."""
    args = [str(tmp_path / a) if a.startswith(("x.", "looks.")) else a for a in args]
    status, out, err = export_here(capsys, "--preset", "v1", *args)
    assert (status, out) == (2, "")
    assert err.startswith(f"attn-explorer export: {message}") and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_followed_query_the_tokens_lack_is_drawn_as_the_last_as_the_window_does(
    tmp_path, capsys, qapp
):
    """A session following token 5 exported with --tokens 3 outlined no row at all; the
    window shows such a query on the last token, as it shows a head the trace lacks."""
    state = ExplorerState.from_config(preset("v1").config)
    path = tmp_path / "s.json"
    save_session(path, replace(state, view=replace(state.view, query=4)))
    pictures = {}
    for name, extra in (("own", []), ("last", ["--query", "3"])):
        out = tmp_path / f"{name}.png"
        status, _, err = export_here(capsys, path, "--tokens", "3", *extra, "-o", out)
        assert status == 0, err
        pictures[name] = out.read_bytes()
    assert pictures["own"] == pictures["last"]


@pytest.mark.parametrize(
    "args", [["-o", "x.png"], ["-o", "x.svg"], ["-o", "x.pdf"], ["--all-steps", "-o", "x.pdf"]]
)
def test_a_figure_name_that_is_not_utf8_is_refused_not_written_under_another_name(tmp_path, args):
    """-o $'fig\\xff.png' wrote a file named 'fig\\ufffd.png' and printed the name asked for;
    an SVG left that file behind and failed. Qt, which writes figures, cannot name such a file."""
    bad = os.fsdecode(b"fig\xff")
    args = [str(tmp_path / (bad + a[1:])) if a.startswith("x.") else a for a in args]
    done = run("--preset", "v1", *args)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"attn-explorer export: Cannot write {tmp_path}/fig\\xff.{args[-1][-3:]}: the figure "
        "writer needs a name in UTF-8; choose another name.\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("fmt", "extra"), [("png", []), ("svg", ["--format", "svg"])])
def test_stages_named_like_a_file_go_to_the_folder_of_that_name(tmp_path, capsys, qapp, fmt, extra):
    """--all-steps -o steps.png made a folder named steps.png, as -o causal.csv once made a
    folder causal.csv; the window's dialog drops the extension for a folder of stages."""
    status, out, err = export_here(
        capsys, "--preset", "v1", "--all-steps", *extra, "-o", tmp_path / f"steps.{fmt}"
    )
    assert status == 0, err
    assert out.splitlines()[0] == str(tmp_path / "steps" / f"01-embeddings.{fmt}")
    assert [p.name for p in tmp_path.iterdir()] == ["steps"]


def test_an_existing_folder_without_a_format_is_told_how_to_take_the_stages(tmp_path, capsys):
    """--all-steps -o stages/ (an existing folder) wrote the default PDF over the folder:
    'Cannot write stages: is a directory.', status 1; -o . said "cannot tell the format
    from ''"."""
    (tmp_path / "stages").mkdir()
    status, _, err = export_here(capsys, "--preset", "v1", "--all-steps", "-o", tmp_path / "stages")
    assert status == 2
    assert err == (
        f"attn-explorer export: {tmp_path / 'stages'} is a folder: add --format png or "
        "--format svg to write the stages into it, or name a .pdf file\n"
    )
    assert list((tmp_path / "stages").iterdir()) == []
    status, _, err = export_here(capsys, "--preset", "v1", "-o", ".")
    assert status == 2
    assert err.startswith("attn-explorer export: cannot tell the format from '.': add --format")


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


@pytest.mark.parametrize(
    ("shown", "args", "begins"),
    [
        # Saved with every head side by side: both heads, not the session's one head.
        (dict(all_heads=True, heads_array="masked_scores"), [], "Masked scores · all 2 heads"),
        (dict(all_heads=True), ["--head", "2"], "Attention weights · head 2 · linear"),
        # Saved on the step-through: the stage it showed, at its head.
        (dict(tab="steps", stage="softmax", head=1), [], "6. Softmax ·"),
        # What the arguments name wins over what the session showed.
        (dict(tab="steps", stage="softmax"), ["--view", "keys"], "Keys K · head 1 · linear"),
        # The mha example masks the raw scores first (tutorial 000): the mask is stage 4.
        (dict(all_heads=True), ["--stage", "mask"], "4. Mask ·"),
    ],
)
def test_the_figure_is_what_the_session_showed_unless_named(
    tmp_path, capsys, qapp, shown, args, begins
):
    """A session saved with all heads side by side, or on a stage, exported the first
    head's seven matrices: what the teacher had arranged was not what came out."""
    state = ExplorerState.from_config(preset("mha").config)
    path = tmp_path / "s.json"
    save_session(path, replace(state, view=replace(state.view, **shown)))
    out = tmp_path / "f.svg"
    status, _, err = export_here(capsys, path, *args, "-o", out)
    assert status == 0, err
    assert svg_texts(out).startswith(begins), svg_texts(out)[:80]
    if shown.get("tab") == "steps" and not args:
        assert "Scaled masked scores · head 2 6×6" in svg_texts(out)


@pytest.mark.parametrize("fmt", ["svg", "pdf", "png", "npz", "json", "py"])
def test_an_export_the_disk_cannot_hold_fails_and_keeps_the_earlier_file(
    tmp_path, capsys, qapp, fmt, disk_full_after
):
    """A full disk left a truncated file over the earlier export; for SVG and PDF the export
    even printed the file's name and exited 0."""
    out = tmp_path / f"lesson.{fmt}"
    status, _, err = export_here(capsys, "--preset", "mha", "--tokens", "40", "-o", out)
    assert status == 0, err
    before = out.read_bytes()
    with disk_full_after(4096):
        status, printed, err = export_here(capsys, "--preset", "mha", "--tokens", "41", "-o", out)
    assert (status, printed) == (1, "")
    assert err == f"attn-explorer export: Cannot write {out}: file too large.\n"
    assert out.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [out.name], "a temporary file stayed"


def test_a_token_npz_cannot_hold_is_refused_in_one_line(tmp_path, capsys):
    state = ExplorerState.from_config(
        replace(preset("v1").config, tokens=("Your\0", *preset("v1").config.tokens[1:]))
    )
    save_session(tmp_path / "s.json", state)
    status, printed, err = export_here(capsys, tmp_path / "s.json", "-o", tmp_path / "s.npz")
    assert (status, printed) == (1, "")
    assert err.startswith(f"attn-explorer export: Cannot write {tmp_path / 's.npz'}: the token ")
    assert "internal error" not in err and len(err.splitlines()) == 1
    assert not (tmp_path / "s.npz").exists()


@pytest.mark.parametrize(
    ("args", "written"),
    [
        (["--all-steps", "-o", "name"], "name.pdf"),
        (["--all-steps", "-o", "name.v2"], "name.v2.pdf"),
        (["--all-steps", "-o", "name."], "name.pdf"),
        (["--format", "svg", "-o", "name"], "name.svg"),
        (["--format", "npz", "-o", "name.v2"], "name.v2.npz"),
        (["--format", "py", "-o", "name"], "name.py"),
    ],
)
def test_a_file_named_without_its_formats_extension_gets_it(tmp_path, capsys, qapp, args, written):
    """--all-steps -o name wrote a PDF literally named name, which no viewer opens on a
    double click; the export dialog names it name.pdf, and so does the command line, which
    prints the path it wrote."""
    args = [str(tmp_path / a) if a.startswith("name") else a for a in args]
    status, out, err = export_here(capsys, "--preset", "v1", *args)
    assert status == 0, err
    assert out == f"{tmp_path / written}\n"
    assert [p.name for p in tmp_path.iterdir()] == [written]
    if written.endswith(".pdf"):
        assert len(PdfReader(tmp_path / written).pages) == 10


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


def test_a_name_that_is_not_utf8_is_shown_by_its_bytes_in_every_message(tmp_path, capsys):
    """Such a name was shown as 'fig\\udcff.gif' (Python's stand-in for the byte, escaped
    by the console), in the window as '\ufffd'; its bytes, escaped, are what the file is."""
    bad = os.fsdecode(b"d\xff")
    status, _, err = export_here(capsys, "--preset", "v1", "-o", tmp_path / f"{bad}.gif")
    assert (status, err.split(": add")[0]) == (
        2,
        "attn-explorer export: cannot tell the format from 'd\\xff.gif'",
    )
    status, _, err = export_here(capsys, "--preset", "v1", "-o", tmp_path / bad / "x.json")
    assert (status, err) == (
        1,
        f"attn-explorer export: Cannot write {tmp_path}/d\\xff/x.json: the folder "
        f"{tmp_path}/d\\xff does not exist.\n",
    )
    status, _, err = export_here(capsys, tmp_path / f"{bad}.json", "-o", tmp_path / "x.json")
    assert (status, err) == (
        1,
        "attn-explorer export: d\\xff.json cannot be read: No such file or directory.\n",
    )


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
                "; masked before scaling (tutorial 000's order): masked_scores are the raw "
                "scores with -inf where hidden (its printed `masked`), scaled_scores are "
                "masked_scores / sqrt(d_k), what softmax reads"
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


@pytest.mark.parametrize("size", ["-5x-5", "0x0"])
def test_a_negative_or_zero_figure_size_says_what_sizes_are_allowed(tmp_path, capsys, size):
    """`--size -5x-5` said only "argument --size: expected one argument"."""
    status, out, err = export_here(
        capsys, "--preset", "v1", "--size", size, "-o", tmp_path / "x.png"
    )
    shown = size.replace("x", "×")
    assert (status, out) == (2, "")
    assert err == f"attn-explorer export: figure size {shown} is outside 200×150 to 8000×8000\n"
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


def test_stages_exported_again_in_the_other_order_replace_the_folders_stage_files(tmp_path, capsys):
    """Exported dividing first and then in tutorial 000's order, the folder held twelve
    stage files: 04-scale and 05-mask of the first run beside 04-mask and 05-scale."""
    folder = tmp_path / "steps"
    for order in ("off", "on"):
        status, _, err = export_here(
            capsys, "--preset", "causal", "--set", f"mask_before_scaling={order}",
            "--all-steps", "--format", "svg", "-o", folder,
        )  # fmt: skip
        assert status == 0, err
    names = sorted(p.name for p in folder.iterdir())
    assert len(names) == 10
    assert names[3:5] == ["04-mask.svg", "05-scale.svg"]
    assert svg_texts(folder / "04-mask.svg").startswith("4. Mask ·")
    assert svg_texts(folder / "05-scale.svg").startswith("5. Scaled scores ·")
