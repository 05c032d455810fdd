"""A failed write is said as "Cannot write PATH: reason.", never as "[Errno 13] ...: 'PATH'"."""

import errno

import pytest

from attn_explorer.io.errors import cannot_write


@pytest.mark.parametrize(
    ("error", "path", "message"),
    [
        (
            PermissionError(errno.EACCES, "Permission denied", "/x/y"),
            None,
            "Cannot write /x/y: permission denied.",
        ),
        (
            FileExistsError(errno.EEXIST, "File exists", "/x/y"),
            None,
            "Cannot write /x/y: a file of that name is in the way.",
        ),
        (
            OSError(errno.ENOSPC, "No space left on device"),
            "out.npz",
            "Cannot write out.npz: no space left on device.",
        ),
        (OSError(errno.EIO, "I/O error"), None, "Cannot write: I/O error."),
        (
            FileExistsError("The folder course already holds other files (scores.csv)."),
            "course",
            "The folder course already holds other files (scores.csv).",
        ),
    ],
)
def test_a_failed_write_names_the_file_and_the_reason(error, path, message):
    assert cannot_write(error, path) == message
