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
