"""The parser both command lines use: every refusal one line naming the argument, and
argparse's own words (the help's headings, its refusals) in the language chosen with --lang."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator

from attn_explorer.text import i18n
from attn_explorer.text.i18n import N_

# argparse's own words that a user of our command lines can meet: the help's headings and
# its refusals. argparse looks each up, when it is said, through `gettext.gettext` (the
# process-wide "messages" domain, its language from the environment); our parsers have it
# look them up in our catalogue instead (`_our_words`), so they follow --lang like every
# other word. Its words for a programmer's mistake (a conflicting option) are not here.
ARGPARSE_WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
)


@contextlib.contextmanager
def _our_words() -> Iterator[None]:
    """argparse speaks the current language (of `text.i18n`) while our parser runs.

    argparse calls the `_` and `ngettext` of its own module at the moment it says a word,
    so these are swapped for ours and put back when the parser returns: no other parser in
    the process (pytest's, an embedding program's) is changed. Binding our catalogue to
    gettext's "messages" domain instead would take its language from the environment, not
    from --lang, and could not show a test's pseudo-translation."""
    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = i18n._, i18n.ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]


class OneLineParser(argparse.ArgumentParser):
    """argparse, but an argument it refuses is said in one line after the program's name,
    as every other refusal is, not after a usage block (`--help` still shows the usage);
    and in the current language, argparse's own words too (`_our_words`)."""

    def __init__(self, *args, **kwargs) -> None:
        with _our_words():  # the headings and -h's help are written here
            super().__init__(*args, **kwargs)

    def parse_known_args(self, *args, **kwargs):  # type: ignore[override]
        with _our_words():
            return super().parse_known_args(*args, **kwargs)

    def parse_args(self, *args, **kwargs):  # type: ignore[override]
        with _our_words():  # "unrecognized arguments" is said here
            return super().parse_args(*args, **kwargs)

    def format_usage(self) -> str:
        with _our_words():
            return super().format_usage()

    def format_help(self) -> str:
        with _our_words():
            return super().format_help()

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: {message}\n")
