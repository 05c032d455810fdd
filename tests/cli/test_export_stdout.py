"""`attn-explorer export -o -` (or `-o /dev/stdout`): a format that is one file streamed to
standard output for a script to read, with nothing else on it; the others are refused in one
line that names the formats that can go there."""

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attn_explorer.engine import compute, preset
from tests.cli.conftest import export_here

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("out", ["-", "/dev/stdout"])
@pytest.mark.parametrize("fmt", ["json", "py"])
def test_a_file_format_streams_to_standard_output_and_nothing_else(
    tmp_path, monkeypatch, capsys, out, fmt
):
    """`-o -` wrote a file named "-.json" and printed its name; `-o /dev/stdout` wrote
    /dev/stdout.json (as root) or failed with "permission denied"."""
    monkeypatch.chdir(tmp_path)
    status, printed, err = export_here(capsys, "--preset", "mha", "--format", fmt, "-o", out)
    assert (status, err) == (0, "")
    assert list(tmp_path.iterdir()) == [], "a file was written"
    status, _, err = export_here(capsys, "--preset", "mha", "-o", f"file.{fmt}")
    assert status == 0, err
    assert printed == (tmp_path / f"file.{fmt}").read_text(encoding="utf-8")


def test_npz_streams_to_standard_output_as_bytes(tmp_path, monkeypatch, capsysbinary):
    from attn_explorer.cli.export import main

    monkeypatch.chdir(tmp_path)
    status = main(["--preset", "mha", "--format", "npz", "-o", "-"])
    printed, err = capsysbinary.readouterr()
    assert (status, err) == (0, b"")
    assert list(tmp_path.iterdir()) == []
    trace = compute(preset("mha").config)
    with np.load(io.BytesIO(printed)) as data:
        assert data["q_tokens"].tolist() == list(trace.q_tokens)
        for name in trace.names:
            np.testing.assert_array_equal(data[name], trace.arrays[name])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["-o", "-"], "-o - writes to standard output: add --format json, npz or py"),
        (
            ["-o", "/dev/stdout"],
            "-o /dev/stdout writes to standard output: add --format json, npz or py",
        ),
        (
            ["--format", "csv", "-o", "-"],
            "--format csv cannot go to standard output: only json, npz or py can; "
            "name a folder with -o",
        ),
        (
            ["--format", "npy", "-o", "/dev/stdout"],
            "--format npy cannot go to standard output: only json, npz or py can; "
            "name a folder with -o",
        ),
        (
            ["--format", "png", "-o", "-"],
            "--format png cannot go to standard output: only json, npz or py can; "
            "name a file with -o",
        ),
        (
            ["--all-steps", "--format", "pdf", "-o", "-"],
            "--format pdf cannot go to standard output: only json, npz or py can; "
            "name a file with -o",
        ),
    ],
)
def test_what_cannot_go_to_standard_output_is_refused_in_one_line(
    tmp_path, monkeypatch, capsys, args, message
):
    monkeypatch.chdir(tmp_path)
    status, printed, err = export_here(capsys, "--preset", "mha", *args)
    assert (status, printed) == (2, "")
    assert err == f"attn-explorer export: {message}\n"
    assert list(tmp_path.iterdir()) == []


def test_a_pipe_reads_the_export_from_a_process(tmp_path):
    """What a script sees: the data alone on a pipe, nothing on stderr, no file anywhere.

    One process, for what only a process shows (its real standard output a pipe, its stderr,
    its exit): bytes through `/dev/stdout`. That `-` is the same place, and that json and py
    stream their files' text, the tests above show in this process."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = ["export", "--preset", "v1", "--format", "npz", "-o", "/dev/stdout"]
    done = subprocess.run(
        [sys.executable, "-m", "attn_explorer", *command],
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=180,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert list(tmp_path.iterdir()) == []
    with np.load(io.BytesIO(done.stdout)) as data:
        assert data["q_tokens"].tolist() == list(preset("v1").config.tokens)
