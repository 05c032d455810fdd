"""What a failed write says to the user, shared by the command line and the window.

`str(OSError)` reads "[Errno 13] Permission denied: '/x/y'": an errno number and Python's
quoting are noise to a learner, in a message box as in the export's one-line refusal.
"""

from __future__ import annotations

import errno
import os

from attn_explorer.text.i18n import _


def shown_path(path: str | os.PathLike[str] | bytes) -> str:
    r"""`path` as a message shows it: bytes that are not UTF-8 as escapes of the bytes, "\xff".

    Python keeps such bytes of a file name as lone surrogates, which a message would show as
    "\udcff" (the console's escape of a character that is no byte of the name) and a message
    box as "\ufffd", each differently. The bytes themselves, escaped, say which file it is,
    the same on the command line and in the window. Every path in a user-facing message goes
    through here.

    A path no file can have is shown too: a NUL as "\x00" (a terminal would show nothing),
    a lone surrogate that is no escaped byte as "\ud800" (os.fsencode refuses it).
    """
    try:
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        shown = os.fspath(path).encode("utf-8", "backslashreplace").decode("utf-8")
    return shown.replace("\0", "\\x00")


def impossible_path(path: str | os.PathLike[str]) -> str | None:
    r"""Why no file can have `path` ("its path holds \x00 (a NUL character), which no path
    can"), or None: the end of a sentence naming the file, said where the system call would
    raise ValueError or UnicodeEncodeError rather than an OSError."""
    text = os.fspath(path)
    if "\0" in text:
        return _("its path holds \\x00 (a NUL character), which no path can")
    try:
        os.fsencode(text)
    except UnicodeEncodeError as error:
        char = error.object[error.start : error.end]
        escaped = char.encode("utf-8", "backslashreplace").decode("utf-8")
        if "\ud800" <= char[0] <= "\udfff":
            said = _("its path holds {char} (half of a UTF-16 pair), which no path can")
        else:
            said = _("its path holds {char} (not in the system's encoding), which no path can")
        return said.format(char=escaped)
    return None


def cannot_write(
    error: OSError,
    path: str | os.PathLike[str] | None = None,
    *,
    sentence: str | None = None,
    in_the_way: str | None = None,
    lower: bool = True,
) -> str:
    """ "Cannot write /x/y: permission denied." from the system's reason and the file it names
    (else `path`, the file being written). An OSError raised with a sentence of its own (a
    folder holding other files) is said as it is.

    `sentence` ({0} the file, {1} the reason) and `in_the_way` are by default "Cannot write
    {0}: {1}." and "a file of that name is in the way", in the current language. The window
    passes `lower=False`: the system's reason is then kept as the system spelled it (in the
    user's language, where a noun may need its capital); the command line starts it
    lower-case, mid-sentence.
    """
    if error.strerror is None:
        return str(error)
    if error.errno == errno.EEXIST:
        # A file where a folder is to be made, or a new file is to be created.
        reason = in_the_way if in_the_way is not None else _("a file of that name is in the way")
    else:
        reason = error.strerror.rstrip(".")
        if lower and reason[:1].isupper() and reason[1:2].islower():
            reason = reason[0].lower() + reason[1:]  # "Permission …", not "I/O …"
    where = error.filename if error.filename is not None else path
    if where is None:
        return _("Cannot write: {0}.").format(reason)
    if sentence is None:
        sentence = _("Cannot write {0}: {1}.")
    return sentence.format(shown_path(where), reason)


def missing_folder(
    target: str | os.PathLike[str],
    *,
    missing: str | None = None,
    not_a_folder: str | None = None,
) -> str | None:
    """Why `target` cannot be written because of its folder, or None if the folder is there.

    Said before anything is computed or drawn: the command line's exports and screenshots
    would otherwise fail at the end with "no such file or directory", naming the file, or
    (Qt's image writer) with no reason at all. `missing` and `not_a_folder` ({0} the target,
    {1} its folder) are by default "Cannot write {0}: the folder {1} does not exist." and
    "Cannot write {0}: {1} is a file, not a folder.", in the current language.
    """
    path = os.fspath(target)
    parent = os.path.dirname(path) or "."
    if os.path.isdir(parent):
        return None
    if os.path.exists(parent):
        if not_a_folder is None:
            not_a_folder = _("Cannot write {0}: {1} is a file, not a folder.")
        return not_a_folder.format(shown_path(path), shown_path(parent))
    if missing is None:
        missing = _("Cannot write {0}: the folder {1} does not exist.")
    return missing.format(shown_path(path), shown_path(parent))


def folder_problem(target: str | os.PathLike[str]) -> str | None:
    """ "the folder /x/y does not exist" (or "/x/y is a file, not a folder") when `target`'s
    folder is missing, else None: the end of a sentence that names the file itself.

    The system's "No such file or directory" for a session in a missing folder reads as if
    the file alone were missing.
    """
    return missing_folder(
        target,
        missing=_("the folder {1} does not exist"),
        not_a_folder=_("{1} is a file, not a folder"),
    )
