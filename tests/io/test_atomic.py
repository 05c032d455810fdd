"""Exports are written beside their target and renamed over it: a failure keeps the old file."""

import os
import stat
import threading

import pytest

from attn_explorer.io import atomic


def test_a_failure_inside_the_block_keeps_the_old_file(tmp_path):
    path = tmp_path / "w.npz"
    path.write_bytes(b"earlier export")
    with pytest.raises(RuntimeError), atomic.replacing(path) as file:
        file.write(b"half of a new one")
        raise RuntimeError
    assert path.read_bytes() == b"earlier export"
    assert [p.name for p in tmp_path.iterdir()] == ["w.npz"]


def test_a_folder_that_refuses_new_files_is_named_not_the_temporary_file(tmp_path):
    with pytest.raises(FileNotFoundError) as caught:
        atomic.write_text(tmp_path / "gone" / "w.py", "print(1)\n")
    assert caught.value.filename == str(tmp_path / "gone" / "w.py")
    with pytest.raises(IsADirectoryError) as caught:
        atomic.check_writable(tmp_path)
    assert caught.value.filename == str(tmp_path)


@pytest.mark.skipif(os.name != "posix", reason="POSIX links and modes")
def test_a_link_keeps_pointing_at_the_file_and_the_file_keeps_its_mode(tmp_path):
    real = tmp_path / "real.json"
    real.write_text("old")
    real.chmod(0o640)
    (tmp_path / "link.json").symlink_to(real)
    atomic.write_text(tmp_path / "link.json", "new")
    assert (tmp_path / "link.json").is_symlink() and real.read_text() == "new"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_file_is_refused_not_replaced(tmp_path):
    """Writing into a read-only file was refused; a rename would replace it all the same."""
    path = tmp_path / "keep.csv"
    path.write_text("mine")
    path.chmod(0o444)
    with pytest.raises(PermissionError) as caught:
        atomic.write_text(path, "export")
    assert caught.value.filename == str(path) and path.read_text() == "mine"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_pipe_is_written_through_not_replaced(tmp_path):
    """`-o /dev/stdout` (a pipe to jq): there is nothing to replace, and no folder to write a
    temporary file in."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    atomic.write_bytes(pipe, b'{"weights": []}\n')
    reader.join(timeout=10)
    assert received == [b'{"weights": []}\n']
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe"]


HOUR_AGO = 3600.0


def _aged(path, seconds=HOUR_AGO):
    """`path`, last written `seconds` ago."""
    import time

    then = time.time() - seconds
    os.utime(path, (then, then))
    return path


@pytest.mark.skipif(os.name != "posix", reason="POSIX file locks")
def test_a_save_removes_the_temporary_files_killed_saves_left_in_its_folder_and_nothing_else(
    tmp_path,
):
    """Killed during a save, a `.NAME.<hex>.partial` file stayed for ever (25 of 220 kills).
    A later save into the folder removes it; only its exact pattern, unlocked and old."""
    import fcntl

    left = tmp_path / ".data.json.0123456789ab.partial"
    left.write_bytes(b"half a session")
    _aged(left)
    kept = {
        ".data.json.0123456789AB.partial": "hex in capitals: not a name we make",
        ".data.json.0123456789a.partial": "eleven hex digits",
        "data.json.0123456789ab.partial": "not hidden",
        ".data.json.0123456789ab.partial.bak": "another ending",
        ".mine.partial": "no hex part",
        ".fresh.json.aaaaaaaaaaaa.partial": "written a moment ago: a save just begun",
        ".saving.json.bbbbbbbbbbbb.partial": "locked: a save in progress, however old",
    }
    for name in kept:
        (tmp_path / name).write_bytes(b"someone's")
        if name != ".fresh.json.aaaaaaaaaaaa.partial":
            _aged(tmp_path / name)
    (tmp_path / ".dir.json.cccccccccccc.partial").mkdir()  # a folder, not a file of ours
    _aged(tmp_path / ".dir.json.cccccccccccc.partial")
    (tmp_path / ".link.json.dddddddddddd.partial").symlink_to(tmp_path / "data.json")
    kept[".dir.json.cccccccccccc.partial"] = kept[".link.json.dddddddddddd.partial"] = "no file"
    with open(tmp_path / ".saving.json.bbbbbbbbbbbb.partial", "rb") as saving:
        fcntl.flock(saving, fcntl.LOCK_EX)  # as a save in progress holds it
        atomic.write_text(tmp_path / "data.json", "{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*kept, "data.json"])
    assert (tmp_path / "data.json").read_text() == "{}"


@pytest.mark.skipif(os.name != "posix", reason="POSIX file locks")
def test_the_files_of_a_folder_export_in_progress_are_not_taken_for_stale(tmp_path):
    """A folder export keeps each finished file under its temporary name until all are
    written: a save into that folder meanwhile must leave them, however long ago written."""
    with atomic.together() as files:
        with files.replacing(tmp_path / "a.csv") as file:
            file.write(b"a")
        (pending,) = tmp_path.iterdir()
        _aged(pending)
        atomic.write_text(tmp_path / "notes.txt", "meanwhile")
        with files.replacing(tmp_path / "b.csv") as file:
            file.write(b"b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "b.csv", "notes.txt"]
    assert (tmp_path / "a.csv").read_bytes() == b"a"


@pytest.mark.skipif(os.name != "posix", reason="POSIX file locks and signals")
def test_the_file_of_a_save_killed_half_way_goes_at_the_next_save_but_not_before(tmp_path):
    """Another process saving into the folder keeps its file while it lives, however long it
    takes; once it is killed (`kill -9`), the next save removes what it left."""
    import signal
    import subprocess
    import sys

    script = (
        "import sys, time\n"
        "from attn_explorer.io import atomic\n"
        "with atomic.replacing(sys.argv[1]) as file:\n"
        "    file.write(b'half')\n"
        "    file.flush()\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(120)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path / "big.json")], stdout=subprocess.PIPE
    )
    try:
        assert child.stdout.readline() == b"writing\n"
        (partial,) = tmp_path.iterdir()
        _aged(partial)  # a save that has been running for an hour
        atomic.write_text(tmp_path / "other.json", "{}")
        assert partial.exists()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
    atomic.write_text(tmp_path / "other.json", "{}")
    assert [p.name for p in tmp_path.iterdir()] == ["other.json"]
