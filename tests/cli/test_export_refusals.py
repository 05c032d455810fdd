"""`attn-explorer export` refuses bad input in one line, with status 2 for an argument and 1
for a session or an output that cannot be read or written, before anything is written."""

import os
from dataclasses import replace

import pytest

from attn_explorer.engine import preset
from attn_explorer.io.session import save_session
from attn_explorer.model.state import ExplorerState
from tests.cli.conftest import export_here, run


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
def test_bad_input_fails_in_one_line(tmp_path, capsys, qapp, monkeypatch, args, status, words):
    """In this process, from a folder of its own (the relative names are written nowhere
    else); test_corrupt_session_fails_cleanly runs a refusal as a process."""
    monkeypatch.chdir(tmp_path)
    args = [str(tmp_path / a) if a.endswith((".json",)) else a for a in args]
    try:
        returned, out, err = export_here(capsys, *args)
    except SystemExit as stop:  # argparse's own refusals end the process there
        returned = stop.code
        out, err = capsys.readouterr()
    assert returned == status
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("attn-explorer export: ") and words in lines[0]
    assert "Traceback" not in err and out == ""


def test_corrupt_session_fails_cleanly(tmp_path):
    """A refusal from `python -m attn_explorer export` as a process: its exit status, and one
    line on stderr, with nothing else a real interpreter prints on its way out."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "attn_explorer.session", "version": 1, "queries": [')
    done = run(bad, "-o", tmp_path / "x.png")
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr and not (tmp_path / "x.png").exists()


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


@pytest.mark.parametrize(
    "args", [["-o", "x.png"], ["-o", "x.svg"], ["-o", "x.pdf"], ["--all-steps", "-o", "x.pdf"]]
)
def test_a_figure_name_that_is_not_utf8_is_refused_not_written_under_another_name(
    tmp_path, capsys, qapp, args
):
    """-o $'fig\\xff.png' wrote a file named 'fig\\ufffd.png' and printed the name asked for;
    an SVG left that file behind and failed. Qt, which writes figures, cannot name such a file."""
    bad = os.fsdecode(b"fig\xff")
    args = [str(tmp_path / (bad + a[1:])) if a.startswith("x.") else a for a in args]
    status, out, err = export_here(capsys, "--preset", "v1", *args)
    assert (status, out) == (1, "")
    assert err == (
        f"attn-explorer export: Cannot write {tmp_path}/fig\\xff.{args[-1][-3:]}: the figure "
        "writer needs a name in UTF-8; choose another name.\n"
    )
    assert list(tmp_path.iterdir()) == []


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


@pytest.mark.parametrize("fmt", ["svg", "pdf", "png", "npz", "json", "py"])
def test_an_export_the_disk_cannot_hold_fails_and_keeps_the_earlier_file(
    tmp_path, capsys, qapp, fmt, disk_full_after
):
    """A full disk left a truncated file over the earlier export; for SVG and PDF the export
    even printed the file's name and exited 0. (Every format's file of the example is over
    the 4 KB the disk holds: 6.5 KB the smallest, the script.)"""
    out = tmp_path / f"lesson.{fmt}"
    out.write_bytes(b"the earlier export")
    with disk_full_after(4096):
        status, printed, err = export_here(capsys, "--preset", "mha", "-o", out)
    assert (status, printed) == (1, "")
    assert err == f"attn-explorer export: Cannot write {out}: file too large.\n"
    assert out.read_bytes() == b"the earlier export"
    assert [p.name for p in tmp_path.iterdir()] == [out.name], "a temporary file stayed"


@pytest.mark.parametrize("fmt", ["csv", "npy"])
def test_a_folder_export_the_disk_cannot_hold_leaves_nothing_it_made(
    tmp_path, capsys, fmt, disk_full_after
):
    """A full disk failed the export with status 1 but left its new folder behind, empty."""
    out = tmp_path / f"data.{fmt}"
    with disk_full_after(512):
        status, printed, err = export_here(capsys, "--preset", "mha", "-o", out)
    assert (status, printed) == (1, ""), err
    assert err.startswith(f"attn-explorer export: Cannot write {tmp_path / 'data'}")
    assert err.endswith(": file too large.\n")
    assert list(tmp_path.iterdir()) == []


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


HUGE = "9" * 5000  # int() refuses a number of more than 4,300 digits


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--set", f"seed={HUGE}"], "--set seed: '99999"),
        (["--set", f"dropout_seed=-{HUGE}"], "is below 0; allowed: a whole number from 0 to"),
        (["--set", f"valid_len={HUGE}"], "is above 4096; allowed: a whole number from 1 to 4096"),
        (["--tokens", HUGE], "--tokens must be between 1 and 4096, not 99999"),
        (["--tokens", "3", "--d-in", HUGE], "--d-in must be between 1 and 1024, not 9"),
        (["--head", HUGE], "--head must be a head's number from 1 to 1 or 'all', not 9"),
        (["--query", f"-{HUGE}"], "--query must be a query token's number from 1 to 6, not -9"),
        (["--scale", HUGE], "--scale must be 1, 2 or 4, not 9"),
        (["--size", f"{HUGE}x500"], "--size must be between 200x150 and 8000x8000, not 9"),
        (["--size", f"500x{HUGE}"], "--size must be between 200x150 and 8000x8000, not 5"),
    ],
)
def test_a_number_of_thousands_of_digits_is_refused_naming_the_option_and_its_range(
    tmp_path, capsys, args, words
):
    """`--set seed=999…9` (5,000 digits) ended in "internal error: ValueError: Exceeds the
    limit (4300 digits)" with status 1; --tokens, --d-in, --query and --scale said "invalid
    int value" and the 5,000 digits. The value is shown shortened, with its length."""
    out = tmp_path / "x.png"
    status, stdout, err = export_here(capsys, "--preset", "v1", *args, "-o", out)
    assert (status, stdout) == (2, ""), err[:300]
    assert err.count("\n") == 1 and err.startswith("attn-explorer export: "), err[:300]
    assert words in err and len(err) < 250, err[:300]
    assert " characters)" in err  # how long the value was
    assert list(tmp_path.iterdir()) == []
