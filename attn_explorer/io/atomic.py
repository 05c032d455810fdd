"""Writing an export so that a failure leaves the file that was there, never half of a new one.

Written in place, an export on a disk that fills half-way (or a quota, or a file-size limit)
would leave a truncated figure, archive or script where a good one was, and Qt's SVG and PDF
writers say nothing about it at all. So every export goes to a temporary file next to the
target, is synced, and only then renamed over it.

A save killed half-way (power cut, `kill -9`) leaves its temporary file behind; the next save
into that folder removes such files (see `remove_stale_partials` for which, and why no save
in progress can be one of them).

A target that exists but is no regular file (a device, a pipe: `-o /dev/null`) cannot be
replaced and holds nothing to lose: it is written directly. (`-o -` and `-o /dev/stdout` never
get here: the export command streams to standard output itself.) A read-only file is refused, as
writing into it would be: a rename would replace it all the same. Sessions are written the
same way, but refuse a device or a pipe (see `save_session`).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import secrets
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

try:
    import fcntl
except ImportError:  # Windows: no flock, and no stale file is ever removed
    fcntl = None  # type: ignore[assignment]

# The name of every temporary file made here: ".NAME.<12 lower-case hex digits>.partial".
_PARTIAL = re.compile(r"\..+\.[0-9a-f]{12}\.partial", re.DOTALL)
# A temporary file unlocked and unwritten for this long is no save in progress: the only
# moment a save's file is unlocked is between creating it and locking it, a moment later.
STALE_AFTER = 600.0  # seconds


def check_writable(path: str | os.PathLike[str]) -> None:
    """Raise the OSError that writing `path` would meet, before anything is computed or drawn.

    The error names `path`, not the temporary file the write would use.
    """
    with replacing(path):
        raise _ProbeError  # replacing() removes its temporary file and swallows the probe


class _ProbeError(Exception):
    """Raised inside `check_writable`'s `replacing`: leave, writing nothing."""


@contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write `path`'s new contents into, put in place when the block ends
    without an error; on any error the old file stays and no temporary file remains."""
    with _replacing(path, None) as file:
        yield file


@contextmanager
def _replacing(path: str | os.PathLike[str], locks: list[int] | None) -> Iterator[BinaryIO]:
    """`replacing`; with `locks`, the lock on the temporary file is handed to that list once
    the file is in place, for `Together` to hold until it renames the file in its turn."""
    path = Path(path)
    try:
        mode: int | None = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if mode is not None and not stat.S_ISREG(mode):
        try:
            with open(path, "wb") as file:
                yield file
        except _ProbeError:
            pass
        except OSError as error:
            raise _named(error, path) from None
        return
    # Through a symbolic link the file it points to is replaced, not the link.
    target = Path(os.path.realpath(path))
    if mode is not None and not os.access(target, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    remove_stale_partials(target.parent)
    temp = _temporary(target)
    try:
        # 0o666: the umask decides the mode, as for any file the user saves.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        raise _named(error, path) from None
    lock = _lock(fd)  # held through the rename: the file is never unlocked while in use
    placed = False
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        if mode is not None:
            with contextlib.suppress(OSError):
                os.chmod(temp, stat.S_IMODE(mode))  # keep an existing file's mode
        os.replace(temp, target)
        placed = True
        sync_directory(target.parent)
    except _ProbeError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(error, OSError):
            raise _named(error, path) from None
        raise
    finally:
        if lock is not None and placed and locks is not None:
            locks.append(lock)
        elif lock is not None:
            os.close(lock)


def _temporary(target: Path) -> Path:
    """A new name beside `target` that `_PARTIAL` matches."""
    return target.parent / f".{target.name}.{secrets.token_hex(6)}.partial"


def _lock(fd: int) -> int | None:
    """A duplicate of `fd` holding an exclusive flock on its file, or None without flock.

    A flock belongs to the open file, not the descriptor: held by the duplicate, it stays
    after `fd` is closed, through the rename, until the caller closes the duplicate. The
    kernel drops it when the process dies, which is what marks a file as left behind.
    """
    if fcntl is None:
        return None
    lock = os.dup(fd)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
    except OSError:  # a file system without locks: no cleaner can lock it either
        os.close(lock)
        return None
    return lock


def remove_stale_partials(folder: str | os.PathLike[str]) -> None:
    """Remove from `folder` the temporary files of saves that were killed before the rename.

    A file is removed only if all of these hold, so that no other process's save in progress
    (nor this one's) and nothing not made here is ever removed:
    - its name is exactly ".NAME.<12 lower-case hex digits>.partial", as `_temporary` makes;
    - it is a regular file (not a link, a folder or a pipe) of this user;
    - nobody holds its flock: a save holds it from a moment after creating the file until the
      file is renamed into place (a folder export until the last file is), and the kernel
      drops it when the saving process dies;
    - it was last written more than STALE_AFTER ago, which covers that first moment.
    Without flock (Windows) nothing is removed. Any error leaves the file: tidying is never a
    reason for a save to fail.
    """
    if fcntl is None:
        return
    try:
        with os.scandir(folder) as entries:
            names = [entry.path for entry in entries if _PARTIAL.fullmatch(entry.name)]
    except OSError:
        return
    for name in names:
        with contextlib.suppress(OSError):
            _remove_if_stale(name)


def _remove_if_stale(name: str) -> None:
    # O_NOFOLLOW: a link is not followed (it fails); O_NONBLOCK: a pipe does not hang the open.
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return
        if time.time() - info.st_mtime < STALE_AFTER:
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: a save in progress
            return
        now = os.lstat(name)  # still the file examined, not one renamed there since
        if (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino):
            os.unlink(name)
    finally:
        os.close(fd)


@contextmanager
def as_text(
    raw: BinaryIO, encoding: str = "utf-8", errors: str = "strict", newline: str | None = None
) -> Iterator[TextIO]:
    """Text written into the binary file `raw`, which stays open for `replacing` to sync."""
    text = io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline=newline)
    try:
        yield text
        text.flush()
    finally:
        text.detach()


@contextmanager
def together() -> Iterator[Together]:
    """Files written under temporary names and put in place together when the block ends
    without an error: a folder export that fails half-way leaves the folder as it was, not
    new files beside old ones of another computation."""
    files = Together()
    try:
        yield files
    except BaseException:
        files.discard()
        raise
    files.commit()


class Together:
    """See `together`."""

    def __init__(self) -> None:
        self._pending: list[tuple[Path, Path]] = []  # (temporary, target)
        self._locks: list[int] = []  # held on the pending files until they are renamed

    @contextmanager
    def replacing(self, path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
        path = Path(path)
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        temp = _temporary(path)
        try:
            with _replacing(temp, self._locks) as file:
                yield file
        except OSError as error:
            raise _named(error, path) from None
        self._pending.append((temp, path))

    def commit(self) -> None:
        try:
            while self._pending:
                temp, path = self._pending[0]
                try:
                    os.replace(temp, path)
                except OSError as error:
                    raise _named(error, path) from None
                self._pending.pop(0)
        finally:
            self.discard()

    def discard(self) -> None:
        for temp, _ in self._pending:
            with contextlib.suppress(OSError):
                os.unlink(temp)
        self._pending.clear()
        for lock in self._locks:
            os.close(lock)
        self._locks.clear()


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    with replacing(path) as file:
        file.write(data)
    return Path(path)


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> Path:
    return write_bytes(path, text.encode(encoding))


def sync_directory(directory: Path) -> None:
    """Make a rename itself durable (POSIX); a no-op where directories cannot be opened."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _named(error: OSError, path: Path) -> OSError:
    """The error, naming the file the user asked for rather than the temporary one."""
    if error.strerror is None:
        return error
    return type(error)(error.errno, error.strerror, str(path))
