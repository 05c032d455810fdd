"""Where `attn-explorer export` writes and in which format: the output's format from
`--format` or its extension, the file or folder it names, a figure's size and scale. Each
refusal is one line naming the argument, in the language chosen with --lang."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from attn_explorer.cli.arguments import (
    BEYOND,
    UsageError,
    brief,
    whole,
)
from attn_explorer.text.i18n import _

DATA_FORMATS = ("csv", "npz", "npy", "json")
FORMATS = ("png", "svg", "pdf", *DATA_FORMATS, "py")
# What `-o -` can write: the formats that are one file each. CSV and NPY are folders of
# files, and the figures are written by Qt to a file it names.
STREAM_FORMATS = ("json", "npz", "py")
STANDARD_OUTPUT = ("-", "/dev/stdout")


class ExportError(Exception):
    """The arguments were accepted but the export failed: the session cannot be read, its
    configuration cannot be computed, or the output cannot be written (exit status 1)."""


def _size(text: str | None) -> tuple[int, int] | None:
    """`--size WxH` as (width, height). check_size refuses a size out of its range, naming
    the numbers; one of thousands of digits is refused here, shortened."""
    if text is None:
        return None
    sides = [whole(side) for side in text.lower().split("x")]
    if len(sides) != 2 or None in sides:
        raise UsageError(
            _("--size must look like {example}, not {given}").format(
                example="1200x800", given=brief(text)
            )
        )
    width, height = sides
    if BEYOND in (abs(width), abs(height)):  # 200x150 to 8000x8000: check_size's range
        raise UsageError(
            _("--size must be between {smallest} and {largest}, not {given}").format(
                smallest="200x150", largest="8000x8000", given=brief(text, quoted=False)
            )
        )
    return width, height


def _scale(text: str) -> int:
    """`--scale`: 1, 2 or 4 pixels per figure pixel, or UsageError."""
    scale = whole(text)
    if scale not in (1, 2, 4):
        raise UsageError(
            _("--scale must be 1, 2 or 4, not {given}").format(
                given=brief(text.strip(), quoted=False)
            )
        )
    return scale


def _choose_format(args: argparse.Namespace, out: Path) -> str:
    from attn_explorer.engine.config import or_list
    from attn_explorer.io.errors import shown_path

    if args.output in STANDARD_OUTPUT:  # a stream has no extension to tell the format by
        can = or_list(STREAM_FORMATS)
        if args.format is None:
            raise UsageError(
                _("-o {output} writes to standard output: add --format {formats}").format(
                    output=args.output, formats=can
                )
            )
        if args.format not in STREAM_FORMATS:
            if args.format in ("csv", "npy"):
                message = _(
                    "--format {format} cannot go to standard output: only {formats} can; "
                    "name a folder with -o"
                )
            else:
                message = _(
                    "--format {format} cannot go to standard output: only {formats} can; "
                    "name a file with -o"
                )
            raise UsageError(message.format(format=args.format, formats=can))
        return args.format
    suffix = out.suffix.lower().lstrip(".")
    if args.format:
        # A file must be what its name says: "--format svg -o looks.png" is refused.
        if suffix in FORMATS and suffix != args.format:
            raise UsageError(
                _("--format {format} does not match the name '{name}': change one").format(
                    format=args.format, name=shown_path(out.name)
                )
            )
        return args.format
    if suffix in FORMATS:
        return suffix
    if args.all_steps:
        if out.is_dir():  # say what to add, rather than fail to write a PDF over a folder
            raise UsageError(
                _(
                    "{folder} is a folder: add --format png or --format svg to write the "
                    "stages into it, or name a .pdf file"
                ).format(folder=shown_path(out))
            )
        return "pdf"
    name = out.name or str(out)  # "-o ." has no name
    raise UsageError(
        _("cannot tell the format from '{name}': add --format ({formats})").format(
            name=shown_path(name), formats=", ".join(FORMATS)
        )
    )


def _output_path(args: argparse.Namespace, fmt: str) -> Path:
    """Where `-o` puts the output: a folder for CSV and NPY and for the stages as PNG or SVG
    files ("causal.csv" is the folder causal, "steps.png" the folder steps, as in the
    window), else a file that ends with its format's extension.

    "--all-steps -o steps" writes steps.pdf, as the window's export dialog names it (a file
    without its extension opens in no viewer on a double click), and the path printed is
    the one written. A folder named as the output is left as it is, and refused when written.
    """
    from attn_explorer.io.data_export import file_for, folder_for

    out = Path(args.output)
    if args.output in STANDARD_OUTPUT:
        return out
    if fmt in ("csv", "npy") or (args.all_steps and fmt != "pdf"):
        return folder_for(out, fmt)
    if args.output.endswith(("/", os.sep)) or out.is_dir():
        return out
    return file_for(out, fmt)


def _check_folder(out: Path) -> None:
    """Refuse, before anything is written, an output whose folder does not exist.

    A missing folder on the way is refused, not made: a mistyped -o would scatter new
    folders, and "no such file or directory" from a writer names the file, not the folder.
    The output's own folder (a CSV or NPY export, the stages as PNG or SVG) is made: that
    folder is what was asked for.
    """
    from attn_explorer.io.errors import missing_folder

    problem = missing_folder(  # for a CSV or NPY export, the folder it fills
        out,
        missing=_("Cannot write {0}: the folder {1} does not exist."),
        not_a_folder=_("Cannot write {0}: {1} is a file, not a folder."),
    )
    if problem is not None:
        raise ExportError(problem)


def write_data(trace: object, fmt: str, out: Path) -> int:
    """A trace's data (csv, npy, npz, json) or its PyTorch script (py) at `out`, each written
    path printed: the toy's export and a real head's write them alike."""
    from attn_explorer.io import atomic, code_export, data_export

    if fmt == "py":
        written = [atomic.write_text(out, code_export.pytorch_script(trace.config))]
    elif fmt in ("csv", "npy"):  # a folder: -o causal.csv writes the folder causal
        writer = data_export.write_csv if fmt == "csv" else data_export.write_npy
        written = writer(trace, out)
    elif fmt == "npz":
        written = [data_export.write_npz(trace, out)]
    else:
        written = [data_export.write_json(trace, out)]
    for path in written:
        print(path)
    return 0
