"""`attn-explorer export`: figures, data and code from a session or a preset without a window,
the same figures and numbers the window shows."""

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest
from pypdf import PdfReader

from attn_explorer.engine import compute, preset
from attn_explorer.io.session import save_session
from attn_explorer.model.state import ExplorerState
from tests.cli.conftest import export_here, run, svg_texts
from tests.scripts import run_in_process

# The example whose stages draw the fewest matrices (no weights: three stages are skipped),
# for the tests of where every stage goes rather than of what a stage shows.
FEWEST = "simple"


def test_svg_of_one_view_from_a_session_without_a_display(session, tmp_path):
    """`python -m attn_explorer export` end to end, in a process with no display and no
    QT_QPA_PLATFORM: the one figure export run as a process (the others run in this one)."""
    out = tmp_path / "out.svg"
    done = run(session, "--view", "weights", "--format", "svg", "-o", out)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    root = ET.parse(out).getroot()
    assert "journey" in " ".join(
        "".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")
    )


def test_the_matrices_of_a_session_show_the_scores_and_weights_it_chose(tmp_path, capsys, qapp):
    state = ExplorerState.from_config(preset("dropout").config)
    view = replace(state.view, scores_array="scores", weights_array="weights_dropped")
    path = tmp_path / "chosen.json"
    save_session(path, replace(state, view=view))
    status, _, err = export_here(capsys, path, "--format", "svg", "-o", tmp_path / "m.svg")
    assert status == 0, err
    texts = svg_texts(tmp_path / "m.svg")
    assert "Scores ω = Q·Kᵀ" in texts and "Weights after dropout" in texts
    assert "Masked scores" not in texts and "Attention weights" not in texts


def test_all_steps_as_a_pdf_from_a_preset_named_without_its_extension(tmp_path, capsys, qapp):
    """--all-steps -o steps wrote a PDF literally named steps, which no viewer opens on a
    double click; the export dialog names it steps.pdf, and so does the command line, which
    prints the path it wrote. (Every format's name and extension: the test below.)"""
    status, out, err = export_here(
        capsys, "--preset", "causal-class", "--all-steps", "-o", tmp_path / "steps"
    )
    assert status == 0, err
    assert out == f"{tmp_path / 'steps.pdf'}\n"
    assert [p.name for p in tmp_path.iterdir()] == ["steps.pdf"]
    assert len(PdfReader(tmp_path / "steps.pdf").pages) == 10


def test_png_at_2x_with_size(tmp_path, capsys, qapp):
    out = tmp_path / "stage.png"
    status, _, err = export_here(
        capsys, "--preset", "v1", "--stage", "softmax", "--scale", "2", "--size", "900x600",
        "-o", out,
    )  # fmt: skip
    assert status == 0, err
    from PySide6.QtGui import QImage

    assert (QImage(str(out)).width(), QImage(str(out)).height()) == (1800, 1200)


def test_data_and_script(tmp_path, session, capsys):
    """The script is run in this process: tests/io/test_code_export.py runs one as
    `python script.py` and checks it prints what it prints here."""
    status, _, err = export_here(capsys, session, "--format", "npz", "-o", tmp_path / "d.npz")
    assert status == 0, err
    expected = compute(preset("mha").config)
    with np.load(tmp_path / "d.npz", allow_pickle=False) as data:
        np.testing.assert_array_equal(data["context"], expected.context)
    status, _, err = export_here(capsys, session, "-o", tmp_path / "d.json")
    assert status == 0 and "arrays" in json.loads((tmp_path / "d.json").read_text())
    status, _, err = export_here(capsys, "--preset", "mha", "-o", tmp_path / "mha.py")
    assert status == 0, err
    script = run_in_process(tmp_path / "mha.py")
    assert script.returncode == 0, script.stderr
    assert "0.3190" in script.stdout or "0.318" in script.stdout


def test_exported_arrays_are_bit_for_bit_those_the_window_computes(tmp_path, qtbot, capsys):
    """Matrix products round differently on one kernel thread and on two: the export ran on
    torch's default two while the window's engine thread computes a small trace on one.

    The export runs in this process, on two threads when it starts, as a process of its own
    starts unless OMP_NUM_THREADS says otherwise (the tests set it to 1)."""
    import torch

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
    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        status, _, err = export_here(capsys, path, "-o", tmp_path / "x.npz")
    finally:
        torch.set_num_threads(threads)
    assert status == 0, err
    exported = np.load(tmp_path / "x.npz")
    for name in ("queries", "scores", "weights", "context"):
        np.testing.assert_array_equal(exported[name], shown.args[0].trace[name], err_msg=name)


def test_cross_attention_without_a_second_sequence_uses_the_queries_as_the_window_does(
    tmp_path, capsys
):
    status, _, err = export_here(
        capsys, "--preset", "v1", "--set", "cross=true", "-o", tmp_path / "x.json"
    )
    assert status == 0, err
    config = json.loads((tmp_path / "x.json").read_text(encoding="utf-8"))["config"]
    assert config["kv_tokens"] == config["tokens"]


def test_a_folder_format_named_like_a_file_writes_the_folder_and_formats_must_match(
    tmp_path, capsys
):
    """-o causal.csv made a folder named causal.csv; --format svg -o looks.png wrote SVG text
    into a .png."""
    status, _, err = export_here(capsys, "--preset", "causal", "-o", tmp_path / "causal.csv")
    assert status == 0, err
    assert (tmp_path / "causal" / "weights_head1.csv").is_file()
    assert not (tmp_path / "causal.csv").exists()
    status, _, err = export_here(
        capsys, "--preset", "v1", "--format", "svg", "-o", tmp_path / "looks.png"
    )
    assert status == 2
    assert "--format svg does not match the name 'looks.png'" in err
    assert not (tmp_path / "looks.png").exists()
    (tmp_path / "course").mkdir()
    (tmp_path / "course" / "scores.csv").write_text("student,grade\n")
    status, _, err = export_here(
        capsys, "--preset", "v1", "--format", "csv", "-o", tmp_path / "course"
    )
    assert status == 1 and "already holds other files (scores.csv)" in err
    assert (tmp_path / "course" / "scores.csv").read_text() == "student,grade\n"


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


def test_stages_named_like_a_file_go_to_a_new_folder_of_that_name_only(tmp_path, capsys, qapp):
    """--all-steps -o steps.png made a folder named steps.png, as -o causal.csv once made a
    folder causal.csv; the window's dialog drops the extension for a folder of stages. The
    format read from the name, as PNG or SVG alike; the stages in a folder named without an
    extension, with --format, are exported twice by the last test here."""
    status, out, err = export_here(
        capsys, "--preset", FEWEST, "--all-steps", "-o", tmp_path / "steps.svg"
    )
    assert status == 0, err
    assert out.splitlines()[0] == str(tmp_path / "steps" / "01-embeddings.svg")
    assert [p.name for p in tmp_path.iterdir()] == ["steps"]
    assert len(list((tmp_path / "steps").iterdir())) == len(out.splitlines()) == 10


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


@pytest.mark.parametrize(
    ("args", "written"),
    [
        (["--format", "svg", "-o", "name"], "name.svg"),
        (["--format", "npz", "-o", "name.v2"], "name.v2.npz"),
        (["--format", "py", "-o", "name."], "name.py"),
    ],
)
def test_a_file_named_without_its_formats_extension_gets_it(tmp_path, capsys, qapp, args, written):
    """A file named as typed opens in no viewer on a double click: "name" is name.svg,
    "name.v2" name.v2.npz, "name." name.py, and the path printed is the one written. Every
    format names its file the one way (`_output_path`); the stages' PDF, whose format
    comes from --all-steps, is named so in the test of all steps as a PDF above."""
    args = [str(tmp_path / a) if a.startswith("name") else a for a in args]
    status, out, err = export_here(capsys, "--preset", FEWEST, *args)
    assert status == 0, err
    assert out == f"{tmp_path / written}\n"
    assert [p.name for p in tmp_path.iterdir()] == [written]


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
