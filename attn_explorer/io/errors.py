"""What a failed write says to the user, shared by the command line and the window.

`str(OSError)` reads "[Errno 13] Permission denied: '/x/y'": an errno number and Python's
quoting are noise to a learner, and the message box and the export's one-line refusal
showed exactly that.
"""

from __future__ import annotations

import errno
import os


def cannot_write(error: OSError, path: str | os.PathLike[str] | None = None) -> str:
    """ "Cannot write /x/y: permission denied." from the system's reason and the file it names
    (else `path`, the file being written). An OSError raised with a sentence of its own (a
    folder holding other files) is said as it is."""
    if error.strerror is None:
        return str(error)
    if error.errno == errno.EEXIST:
        # A file where a folder is to be made, or a new file is to be created.
        reason = "a file of that name is in the way"
    else:
        reason = error.strerror.rstrip(".")
        if reason[:1].isupper() and reason[1:2].islower():  # "Permission …", not "I/O …"
            reason = reason[0].lower() + reason[1:]
    where = error.filename if error.filename is not None else path
    if where is None:
        return f"Cannot write: {reason}."
    return f"Cannot write {os.fsdecode(where) if isinstance(where, bytes) else where}: {reason}."
