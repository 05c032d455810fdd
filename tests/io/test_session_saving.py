"""Saving a session: atomic (a failed rename, a full disk or a crash leaves the old file),
through links, keeping the mode, never over a pipe, a device or a read-only file."""

import os
import stat

import pytest

from attn_explorer.io import session
from attn_explorer.io.session import (
    SessionError,
    load_session,
    save_session,
)
from tests.io.conftest import assert_untouched, preset_state

# ---------------------------------------------------------------------------- atomic saving


def test_failed_rename_leaves_the_old_file(existing, monkeypatch):
    def broken_replace(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(session.os, "replace", broken_replace)
    with pytest.raises(SessionError, match=r"^Cannot save session\.json: Permission denied\.$"):
        save_session(existing[0], preset_state("mha"))
    assert_untouched(existing)


def test_disk_full_halfway_through_the_write_leaves_the_old_file(existing, monkeypatch):
    real_fdopen = os.fdopen

    class HalfWriter:
        def __init__(self, file):
            self.file = file

        def write(self, data):
            self.file.write(data[: len(data) // 2])
            raise OSError(28, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.file, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

    monkeypatch.setattr(session.os, "fdopen", lambda fd, mode: HalfWriter(real_fdopen(fd, mode)))
    with pytest.raises(SessionError, match="No space left on device"):
        save_session(existing[0], preset_state("mha"))
    assert_untouched(existing)


def test_a_crash_before_the_rename_leaves_the_old_file(existing, monkeypatch):
    def crash(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(session.os, "fsync", crash)
    with pytest.raises(KeyboardInterrupt):
        save_session(existing[0], preset_state("mha"))
    assert_untouched(existing)


def test_saving_into_a_missing_directory_names_it(tmp_path):
    """It said "No such file or directory", as if s.json alone were missing."""
    with pytest.raises(SessionError) as refusal:
        save_session(tmp_path / "nowhere" / "s.json", preset_state("v1"))
    assert (
        str(refusal.value) == f"Cannot save s.json: the folder {tmp_path}/nowhere does not exist."
    )
    (tmp_path / "notes").write_text("mine\n")
    with pytest.raises(SessionError) as refusal:
        save_session(tmp_path / "notes" / "s.json", preset_state("v1"))
    assert str(refusal.value) == f"Cannot save s.json: {tmp_path}/notes is a file, not a folder."
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
def test_overwriting_keeps_the_file_mode(existing):
    path = existing[0]
    path.chmod(0o640)
    save_session(path, preset_state("mha"))
    assert path.stat().st_mode & 0o777 == 0o640
    assert load_session(path) == preset_state("mha")


@pytest.mark.skipif(os.name != "posix", reason="symbolic links")
def test_saving_through_a_link_replaces_the_file_it_points_to(tmp_path):
    """A lesson kept in a shared folder and linked from the desktop: saving replaced the link
    with a plain file, and the shared file kept the old session."""
    shared = tmp_path / "shared" / "lesson.json"
    shared.parent.mkdir()
    save_session(shared, preset_state("v1"))
    link = tmp_path / "lesson.json"
    link.symlink_to(shared)
    save_session(link, preset_state("mha"))
    assert link.is_symlink() and link.resolve() == shared
    assert load_session(shared) == preset_state("mha")
    assert sorted(p.name for p in shared.parent.iterdir()) == ["lesson.json"]  # no temp left


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_saving_over_a_pipe_or_device_is_refused_not_replaced(tmp_path):
    """The rename put a plain file in place of whatever was there: a pipe, or (as root)
    /dev/full itself."""
    pipe = tmp_path / "lesson.json"
    os.mkfifo(pipe)
    with pytest.raises(SessionError) as caught:
        save_session(pipe, preset_state("v1"))
    assert str(caught.value) == (
        "Cannot save lesson.json: it is not a regular file (a device or a pipe)."
    )
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["lesson.json"]


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_session_is_not_replaced(existing):
    path = existing[0]
    path.chmod(0o444)
    with pytest.raises(SessionError, match=r"^Cannot save session\.json: Permission denied\.$"):
        save_session(path, preset_state("mha"))
    assert_untouched(existing)
