"""Writing an export so that a failure leaves the file that was there, never half of a new one.

Written in place, an export on a disk that fills half-way (or a quota, or a file-size limit)
would leave a truncated figure, archive or script where a good one was, and Qt's SVG and PDF
writers say nothing about it at all. So every export goes to a temporary file next to the
target, is synced, and only then renamed over it.

A target that exists but is no regular file (a device, a pipe: `-o /dev/stdout`) cannot be
replaced and holds nothing to lose: it is written directly. A read-only file is refused, as
writing into it would be: a rename would replace it all the same. Sessions are written the
same way, but refuse a device or a pipe (see `save_session`).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, TextIO


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
    temp = target.parent / f".{target.name}.{secrets.token_hex(6)}.partial"
    try:
        # 0o666: the umask decides the mode, as for any file the user saves.
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as error:
        raise _named(error, path) from None
    try:
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        if mode is not None:
            with contextlib.suppress(OSError):
                os.chmod(temp, stat.S_IMODE(mode))  # keep an existing file's mode
        os.replace(temp, target)
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

    @contextmanager
    def replacing(self, path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
        path = Path(path)
        if path.is_dir():
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        temp = path.parent / f".{path.name}.{secrets.token_hex(6)}.partial"
        try:
            with replacing(temp) as file:
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
