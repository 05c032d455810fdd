"""A failed write is said as "Cannot write PATH: reason.", never as "[Errno 13] ...: 'PATH'"."""

import errno
import os

import pytest

from attn_explorer.io.errors import cannot_write, missing_folder, shown_path


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


def test_a_name_that_is_not_utf8_is_shown_by_its_escaped_bytes():
    """Python holds the byte 0xff of a file name as the character U+DCFF, which messages
    showed as "\\udcff" on a console and "\ufffd" in a message box."""
    name = os.fsdecode(b"/x/caf\xe9/s\xff.json")
    assert shown_path(name) == "/x/caf\\xe9/s\\xff.json"
    assert shown_path(b"/x/s\xff.json") == "/x/s\\xff.json"
    assert shown_path("/x/tiếng việt.json") == "/x/tiếng việt.json"
    error = PermissionError(errno.EACCES, "Permission denied", name)
    assert cannot_write(error) == "Cannot write /x/caf\\xe9/s\\xff.json: permission denied."
    assert missing_folder(os.fsdecode(b"/no\xff/s.json")) == (
        "Cannot write /no\\xff/s.json: the folder /no\\xff does not exist."
    )


@pytest.mark.skipif(os.name == "nt", reason="Windows names may hold a lone surrogate")
def test_a_path_no_file_can_have_is_shown_escaped_and_said_why():
    """shown_path raised UnicodeEncodeError on a lone surrogate that is no escaped byte, and
    showed a NUL as nothing at all."""
    from attn_explorer.io.errors import impossible_path

    assert shown_path("/x/a\ud800b.json") == "/x/a\\ud800b.json"
    assert shown_path("/x/a\x00b.json") == "/x/a\\x00b.json"
    assert impossible_path("/x/a\ud800b.json") == (
        "its path holds \\ud800 (half of a UTF-16 pair), which no path can"
    )
    assert impossible_path("/x/a\x00b.json") == (
        "its path holds \\x00 (a NUL character), which no path can"
    )
    assert impossible_path(os.fsdecode(b"/x/s\xff.json")) is None  # a byte, escaped
