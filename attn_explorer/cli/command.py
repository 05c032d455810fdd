"""How every command line ends: one line on stderr and a status, in the user's language.

`attn-explorer export`, `worksheet` and `check` share it, so that a refused argument (2), a
file that cannot be read or written (1) and a bug (1, said to be one) read alike in each.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from attn_explorer.cli.arguments import UsageError, language_from
from attn_explorer.text import i18n
from attn_explorer.text.i18n import _


def cannot_write(error: OSError, path: object = None, sentence: str | None = None) -> str:
    """ "Cannot write /x/y: permission denied." in the current language (`sentence`, {0} the
    file and {1} the reason, says it otherwise); the system's reason is in the system's."""
    from attn_explorer.io import errors

    return errors.cannot_write(
        error,
        path,
        sentence=sentence or _("Cannot write {0}: {1}."),
        in_the_way=_("a file of that name is in the way"),
    )


def run_command(
    prog: str,
    argv: list[str],
    run: Callable[[list[str]], int],
    file_errors: tuple[type[Exception], ...],
) -> int:
    """`run(argv)` in the language of --lang, else the system's (the process speaks it from
    here on: a command runs once in its process); every failure one line on stderr."""
    try:
        i18n.set_language(i18n.system_language())  # what a refused --lang is said in
        i18n.set_language(language_from(argv, prog) or i18n.language())
        return run(argv)
    except UsageError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    except file_errors as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"{prog}: {cannot_write(error)}", file=sys.stderr)
        return 1
    except Exception as error:  # a bug: still one line, and say it is one
        said = _("internal error: {kind}: {error}").format(kind=type(error).__name__, error=error)
        print(f"{prog}: {said}", file=sys.stderr)
        return 1
