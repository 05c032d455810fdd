"""Keep the translation catalogues in step with the code: `python -m attn_explorer.text.catalogues
update|compile|check` (needs Babel, in the `test` extra; the app itself reads only the compiled
catalogue, with the standard library).

- update: find every marked string (`_`, `_tr`, `N_`, `pgettext`, `ngettext`) in each package and
  add the new ones to that package's `translations/<language>/<package>.po`, keeping every
  translation already made (a string no longer in the code is dropped; git keeps it).
- compile: merge the packages' catalogues of each language into the one `LC_MESSAGES/
  attn_explorer.mo` the app reads, and Qt's own words (`qt.ts`) into `qt_<language>.qm`.
- check: what the tests hold the catalogues to: every marked string translated, the same
  placeholders in a translation as in its source, no string translated two ways in two
  packages, and the compiled files up to date. Prints one line per problem; exit 1 if any.

One catalogue per package keeps each translator's file short and names where a string is shown.
Locations carry no line numbers, so moving code does not rewrite the catalogues.
"""

from __future__ import annotations

import io
import re
import string
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from attn_explorer.text.i18n import DOMAIN, LANGUAGES, SOURCE_LANGUAGE, TRANSLATIONS

PACKAGE = TRANSLATIONS.parent
KEYWORDS = {
    "_": None,
    "_tr": None,
    "N_": None,
    "pgettext": ((1, "c"), 2),
    "ngettext": (1, 2),
}
HEADER = """\
# The {language} words of attn_explorer's `{part}` package.
# Edit with any gettext editor (Poedit, Lokalize, Weblate) or by hand; then run
# `python -m attn_explorer.text.catalogues compile` (docs/translating.md).
# Terms follow docs/glossary.md."""
TARGETS = [code for code in LANGUAGES if code != SOURCE_LANGUAGE]


def part_of(path: Path) -> str:
    """The catalogue a module's strings go to: its package, dotted ("ui.steps", "text")."""
    parts = path.relative_to(PACKAGE).parent.parts
    return ".".join(parts) if parts else "attn_explorer"


def extracted() -> dict[str, list[tuple[str, str | tuple[str, str], str | None]]]:
    """Per catalogue: (file, message, context) for every marked string, in source order."""
    from babel.messages.extract import extract_from_file

    found: dict[str, list] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "catalogues.py":
            continue
        where = path.relative_to(PACKAGE.parent).as_posix()
        for _line, message, _comments, context in extract_from_file(
            "python", path, keywords=KEYWORDS
        ):
            found.setdefault(part_of(path), []).append((where, message, context))
    return found


def template(entries) -> object:
    from babel.messages.catalog import Catalog

    catalog = Catalog(domain=DOMAIN, project="attn_explorer", fuzzy=False)
    for where, message, context in entries:
        existing = catalog.get(message, context=context)
        if existing is not None:
            if (where, None) not in existing.locations:
                existing.locations.append((where, None))
            continue
        catalog.add(message, locations=[(where, None)], context=context)
    return catalog


def po_path(code: str, part: str) -> Path:
    return TRANSLATIONS / code / f"{part}.po"


def read(path: Path):
    from babel.messages.pofile import read_po

    with path.open("rb") as file:
        return read_po(file, locale=path.parent.name, domain=DOMAIN)


def write(path: Path, catalog) -> None:
    from babel.messages.pofile import write_po

    buffer = io.BytesIO()
    write_po(
        buffer, catalog, width=100, sort_output=True, include_lineno=False, ignore_obsolete=True
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != buffer.getvalue():
        path.write_bytes(buffer.getvalue())


def update() -> None:
    from babel.messages.catalog import Catalog

    for part, entries in extracted().items():
        source = template(entries)
        for code in TARGETS:
            path = po_path(code, part)
            if path.exists():
                catalog = read(path)
            else:
                catalog = Catalog(locale=code, domain=DOMAIN, project="attn_explorer", fuzzy=False)
            catalog.update(source, no_fuzzy_matching=True, update_creation_date=False)
            catalog.revision_date = catalog.creation_date
            catalog.fuzzy = False
            catalog.header_comment = HEADER.format(language=LANGUAGES[code], part=part)
            write(path, catalog)


def merged(code: str) -> tuple[object, list[str]]:
    """Every package's catalogue of `code` as one, and the strings translated two ways."""
    from babel.messages.catalog import Catalog

    whole = Catalog(locale=code, domain=DOMAIN, project="attn_explorer", fuzzy=False)
    clashes = []
    for path in sorted((TRANSLATIONS / code).glob("*.po")):
        for message in read(path):
            if not message.id or not message.string:
                continue
            known = whole.get(message.id, context=message.context)
            if known is not None and known.string != message.string:
                clashes.append(
                    f"{path.name}: {message.id!r} is {message.string!r} here,"
                    f" {known.string!r} elsewhere"
                )
                continue
            whole.add(message.id, message.string, context=message.context)
    return whole, clashes


def mo_bytes(catalog) -> bytes:
    from babel.messages.mofile import write_mo

    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    return buffer.getvalue()


def compiled_bytes(data: bytes) -> dict:
    """A compiled catalogue's translations (not its header, which names the compiler)."""
    import gettext

    messages = gettext.GNUTranslations(io.BytesIO(data))._catalog
    return {key: value for key, value in messages.items() if key != ""}


def compiled(path: Path) -> dict | None:
    return compiled_bytes(path.read_bytes()) if path.exists() else None


def mo_path(code: str) -> Path:
    return TRANSLATIONS / code / "LC_MESSAGES" / f"{DOMAIN}.mo"


def qt_paths(code: str) -> tuple[Path, Path]:
    return TRANSLATIONS / code / "qt.ts", TRANSLATIONS / f"qt_{code}.qm"


def compile_all() -> None:
    for code in TARGETS:
        catalog, clashes = merged(code)
        for clash in clashes:
            print(clash, file=sys.stderr)
        path = mo_path(code)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(mo_bytes(catalog))
        ts, qm = qt_paths(code)
        if ts.exists():
            subprocess.run(["pyside6-lrelease", "-silent", str(ts), "-qm", str(qm)], check=True)


def fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def problems() -> Iterator[str]:
    found = extracted()
    for code in TARGETS:
        for part, entries in found.items():
            path = po_path(code, part)
            if not path.exists():
                yield f"{path}: missing; run `python -m attn_explorer.text.catalogues update`"
                continue
            catalog = read(path)
            for where, message, context in entries:
                entry = catalog.get(message, context=context)
                if entry is None:
                    yield f"{path.name}: {message!r} ({where}) is not in the catalogue; run update"
                elif not entry.string or entry.fuzzy:
                    yield f"{path.name}: {message!r} ({where}) has no translation"
        for path in sorted((TRANSLATIONS / code).glob("*.po")):
            for entry in read(path):
                if not entry.id or not entry.string:
                    continue
                ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
                strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
                try:
                    wanted = set().union(*(fields(i) for i in ids))
                    given = set().union(*(fields(s) for s in strings if s))
                except ValueError as error:
                    yield f"{path.name}: {entry.id!r}: {error}"
                    continue
                if given != wanted:
                    yield (
                        f"{path.name}: {entry.id!r} has placeholders {sorted(given)},"
                        f" not {sorted(wanted)}"
                    )
                if re.search(r"&\w", ids[0]) and not re.search(r"&\w", strings[0]):
                    yield f"{path.name}: {entry.id!r} has a shortcut (&), its translation none"
        catalog, clashes = merged(code)
        yield from clashes
        if compiled(mo_path(code)) != compiled_bytes(mo_bytes(catalog)):
            yield f"{mo_path(code)} is not the compiled catalogues; run compile"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    command = args[0] if args else "check"
    if command == "update":
        update()
    elif command == "compile":
        compile_all()
    elif command == "check":
        found = list(problems())
        print("\n".join(found) if found else "The catalogues are complete and compiled.")
        return 1 if found else 0
    else:
        print(
            "usage: python -m attn_explorer.text.catalogues update|compile|check", file=sys.stderr
        )
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
