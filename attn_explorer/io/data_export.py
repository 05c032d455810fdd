"""Every array of a trace, written for other tools: CSV, NumPy (.npz / .npy) and JSON.

A learner exports to check the numbers elsewhere (a spreadsheet, a notebook, their own code),
so every format keeps the token labels next to the values, the config that produced them, and
full float32 precision in the fewest digits: an embedding typed as 0.43 is written 0.43 (not
0.4300000071525574), and every cell reads back as the very float32 the engine computed. Masked
scores (mask method 2's) are −∞ in the engine; CSV writes `-inf` (which spreadsheets and numpy
both read) and JSON, which has no infinity, writes null and says so in the file, in the current
language (`text.i18n`), as the refusals here are said.
"""

from __future__ import annotations

import contextlib
import csv
import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from attn_explorer.engine import ARRAY_INFO, AttentionConfig, Trace
from attn_explorer.engine.given import NAMES as GIVEN_NAMES
from attn_explorer.engine.given import ArrayRows, GivenWeights
from attn_explorer.io import atomic
from attn_explorer.io.errors import shown_path
from attn_explorer.io.session import json_text
from attn_explorer.io.session_check import quote as _quote
from attn_explorer.text.data_notes import json_notes
from attn_explorer.text.i18n import _

CONFIG_FIELDS = tuple(f.name for f in fields(AttentionConfig))


class DataExportError(ValueError):
    """An export refused before anything is written; the message is one line for the user."""


def config_to_dict(config: AttentionConfig) -> dict[str, Any]:
    """A config as JSON-ready data (tuples become lists), so an export says what produced it."""
    return {name: _lists(getattr(config, name)) for name in CONFIG_FIELDS}


def config_from_dict(data: dict[str, Any]) -> AttentionConfig:
    """The config `config_to_dict` wrote; lists are turned back into tuples by the config itself.

    Unknown fields are refused rather than dropped: they mean the file is not what it claims.
    """
    unknown = sorted(set(data) - set(CONFIG_FIELDS))
    if unknown:
        raise ValueError(f"unknown config field(s): {', '.join(unknown)}")
    return AttentionConfig(**data)


def write_csv(trace: Trace, directory: str | Path) -> list[Path]:
    """One CSV per 2-D matrix (one per head for per-head arrays) plus config.json.

    Returns the files written, in computation order, config.json last.
    """
    directory = Path(directory)
    written = []
    with _folder_export(directory) as files:
        for name in trace.names:
            info = ARRAY_INFO[name]
            heads = range(trace.arrays[name].shape[0]) if info.per_head else [None]
            for head in heads:
                stem = name if head is None else f"{name}_head{head + 1}"
                path = directory / f"{stem}.csv"
                with files.replacing(path) as file:
                    _write_matrix_csv(trace, name, head or 0, file)
                written.append(path)
        written.append(_write_text(directory / "config.json", _config_json(trace.config), files))
    _remove_earlier(directory, ".csv", written)
    return written


def folder_for(path: str | Path, fmt: str) -> Path:
    """The folder a CSV or NPY export named `path` writes: "causal.csv" is the folder causal
    (the command line made a folder named causal.csv)."""
    path = Path(path)
    return path.with_suffix("") if path.suffix.lower() == f".{fmt}" else path


def file_for(path: str | Path, fmt: str) -> Path:
    """The file an export in format `fmt` named `path` writes: `path` itself when its
    extension says `fmt`, else `path` with ".fmt" added ("steps" is steps.pdf, "steps.v2"
    steps.v2.pdf). Written as typed, a PDF named "steps" opened in no viewer on a double
    click, and no file dialog filtered to its type listed it."""
    path = Path(path)
    stem = path.name.rstrip(".")  # "steps." is steps.pdf, not steps..pdf
    if path.suffix.lower() == f".{fmt}" or not stem:
        return path
    return path.with_name(f"{stem}.{fmt}")


@contextmanager
def _folder_export(directory: Path) -> Iterator[atomic.Together]:
    """The files of a folder export, put in place together (see `atomic.together`). If the
    export fails, the folder is left as it was: one made for it is removed, so that a full
    disk leaves no empty folder that reads as an export."""
    made = _claim_folder(directory)
    try:
        with atomic.together() as files:
            yield files
    except BaseException:
        if made:
            with contextlib.suppress(OSError):  # emptied by `together`; anything else stays
                directory.rmdir()
        raise


def _claim_folder(directory: Path) -> bool:
    """Make the folder an export writes into, refusing one that holds anything but an earlier
    export, so that a teacher's own scores.csv or config.json there is never replaced unasked.
    An earlier export is known by its config.json, which this module reads back. True if the
    folder was made here."""
    if directory.is_dir():
        entries = sorted(shown_path(path.name) for path in directory.iterdir())
        if entries and not _holds_export(directory):
            listed = ", ".join(entries[:3])
            if len(entries) > 3:
                more = len(entries) - 3
                listed = _("{files} and {n} more").format(files=listed, n=more)
            raise FileExistsError(
                _(
                    "The folder {folder} already holds other files ({files}), which the export "
                    "would replace: choose a new or empty folder, or one an earlier export wrote."
                ).format(folder=shown_path(directory), files=listed)
            )
    try:
        directory.mkdir()  # not its parents: a mistyped path would leave a trail of folders
    except FileExistsError:
        if not directory.is_dir():
            raise
        return False
    return True


def _holds_export(directory: Path) -> bool:
    try:
        data = json.loads((directory / "config.json").read_text(encoding="utf-8"))
        config_from_dict(data)
    except (OSError, ValueError, TypeError, AttributeError):
        return False
    return True


def _remove_earlier(directory: Path, suffix: str, written: list[Path]) -> None:
    """Remove the files an earlier export into this folder wrote and this one did not (a head
    or a dropout mask the new settings lack), so the folder holds one computation. Only
    names this module writes are touched; anything else in the folder stays."""
    keep = {path.name for path in written}
    for path in directory.iterdir():
        stem = re.sub(r"_head\d+$", "", path.stem)  # weights_head2 -> weights
        if (
            path.suffix == suffix
            and stem in ARRAY_INFO
            and path.name not in keep
            and path.is_file()
        ):
            path.unlink()


def write_npz(trace: Trace, path: str | Path) -> Path:
    """One compressed .npz holding every array, the tokens and the config; no pickle needed.

    NumPy's text arrays cannot end a text with NUL characters (it pads with them, and drops
    them on reading): a token ending with one is refused rather than read back as another.
    """
    path = Path(path)
    payload = _npz_payload(trace, _("Cannot write {path}").format(path=shown_path(path)))
    with atomic.replacing(path) as file:  # a file: numpy would append ".npz" to a bare name
        np.savez_compressed(file, **payload)
    return path


def stream_npz(trace: Trace, raw: BinaryIO) -> None:
    """`write_npz` into an open binary stream (standard output); a pipe will do."""
    np.savez_compressed(raw, **_npz_payload(trace, _("Cannot write to standard output")))


def _npz_payload(trace: Trace, cannot: str) -> dict[str, np.ndarray]:
    """The arrays of an .npz export, or DataExportError before anything is written, said
    after `cannot` ("Cannot write x.npz")."""
    for token in (*trace.q_tokens, *trace.k_tokens):
        if token.endswith("\0"):
            raise DataExportError(
                _(
                    "{cannot}: the token {token} ends with a NUL character (\\u0000), which a "
                    "NumPy .npz archive drops; export as JSON, CSV or NPY, which keep it, or "
                    "rename the token."
                ).format(cannot=cannot, token=_quote(token))
            )
    payload = {name: np.asarray(trace.arrays[name]) for name in trace.names}
    payload["q_tokens"] = _token_array(trace.q_tokens)
    payload["k_tokens"] = _token_array(trace.k_tokens)
    payload["config_json"] = np.array(_config_json(trace.config), dtype=np.str_)
    return payload


def write_npy(trace: Trace, directory: str | Path) -> list[Path]:
    """One `<name>.npy` per array plus tokens.json and config.json, for `np.load` one by one."""
    directory = Path(directory)
    written = []
    with _folder_export(directory) as files:
        for name in trace.names:
            path = directory / f"{name}.npy"
            with files.replacing(path) as file:
                np.save(_Stream(file), np.asarray(trace.arrays[name]), allow_pickle=False)
            written.append(path)
        tokens = {"q_tokens": list(trace.q_tokens), "k_tokens": list(trace.k_tokens)}
        written.append(_write_text(directory / "tokens.json", json_text(tokens) + "\n", files))
        written.append(_write_text(directory / "config.json", _config_json(trace.config), files))
    _remove_earlier(directory, ".npy", written)
    return written


def write_json(trace: Trace, path: str | Path) -> Path:
    """Everything in one strict JSON file (−∞ and NaN as null: JSON has neither).

    Written as `json_text` lays it out, one row of numbers at a time: a whole trace turned
    into Python lists first would take some twenty times the arrays' own memory.
    """
    path = Path(path)
    with atomic.replacing(path) as raw:
        stream_json(trace, raw)
    return path


def stream_json(trace: Trace, raw: BinaryIO) -> None:
    """`write_json` into an open binary stream (standard output): the same bytes."""
    arrays = {}
    for name in trace.names:
        array, info = trace.arrays[name], ARRAY_INFO[name]
        arrays[name] = {
            "shape": list(array.shape),
            "rows": info.rows,
            "cols": info.cols,
            "per_head": info.per_head,
            "data": _JsonData(array),
        }
    doc = {
        "config": config_to_dict(trace.config),
        "q_tokens": list(trace.q_tokens),
        "k_tokens": list(trace.k_tokens),
        "arrays": arrays,
        "notes": json_notes(trace.config),
    }
    with atomic.as_text(raw, "utf-8") as file:
        _stream_json(doc, 0, file.write)
        file.write("\n")


# ---------------------------------------------------------------------------- helpers


def _write_matrix_csv(trace: Trace, name: str, head: int, raw: BinaryIO) -> None:
    info = ARRAY_INFO[name]
    matrix = trace.matrix(name, head)
    columns = trace.axis_labels(info.cols)
    rows = (name,) if info.rows is None else trace.axis_labels(info.rows)
    # utf-8-sig: the byte-order mark lets spreadsheets (Excel on Windows) read Vietnamese tokens;
    # backslashreplace: a lone surrogate in a token cannot be UTF-8; keep the file writable.
    # One row's texts at a time: the whole matrix as strings takes ~60 bytes a cell.
    with atomic.as_text(raw, "utf-8-sig", "backslashreplace", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["", *columns])
        for label, row in zip(rows, matrix, strict=True):
            writer.writerow([label, *_csv_cells(row)])


def _csv_cells(row: np.ndarray) -> list[str]:
    if row.dtype == bool:
        return ["1" if v else "0" for v in row.tolist()]
    # numpy's shortest float32 text: reads back as exactly that float32.
    return [str(v) for v in row.astype(np.float32)]


class _JsonData:
    """An array to be written into a JSON export by `_stream_json`, row by row."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array


def _stream_json(value: Any, indent: int, write: Callable[[str], object]) -> None:
    """Write `value` exactly as `json_text(value, indent)` would, arrays row by row."""
    if isinstance(value, _JsonData):
        _stream_array(value.array, indent, write)
    elif isinstance(value, dict) and value:
        pad = " " * (indent + 1)
        write("{\n")
        for number, (key, item) in enumerate(value.items()):
            write(f",\n{pad}" if number else pad)
            write(f"{json_text(key)}: ")
            _stream_json(item, indent + 1, write)
        write("\n" + " " * indent + "}")
    else:
        write(json_text(value, indent))


def _stream_array(array: np.ndarray, indent: int, write: Callable[[str], object]) -> None:
    """`json_text` of the array's nested lists: a list of lists opens one line per item, a
    list of numbers (or an empty list) is one line."""
    if array.ndim >= 2 and len(array):
        pad = " " * (indent + 1)
        write("[\n")
        for number, item in enumerate(array):
            write(f",\n{pad}" if number else pad)
            _stream_array(item, indent + 1, write)
        write("\n" + " " * indent + "]")
    else:
        write(json.dumps(_json_values(array), allow_nan=False))


def _json_values(array: np.ndarray) -> Any:
    if array.dtype == bool:
        return array.tolist()
    # float(str(float32)): the shortest decimal that reads back as the same float32.
    # JSON has neither -inf nor NaN (method 1's 0/0 in the window's comparison arrays).
    values = array.astype(np.float32)
    if values.ndim == 0:
        return float(str(values)) if np.isfinite(values) else None
    return [float(str(v)) if np.isfinite(v) else None for v in values]


def _config_json(config: AttentionConfig) -> str:
    return json_text(config_to_dict(config)) + "\n"


def _token_array(tokens: tuple[str, ...]) -> np.ndarray:
    return np.array(tokens, dtype=np.str_).reshape(len(tokens))


class _Stream:
    """A file numpy can only write() to: into a real file it writes with tofile(), whose
    failure says "3200 requested and 992 written" instead of why (a full disk)."""

    def __init__(self, file: BinaryIO) -> None:
        self.write = file.write


def _write_text(path: Path, text: str, files: atomic.Together | None = None) -> Path:
    if files is None:
        return atomic.write_text(path, text)
    with files.replacing(path) as file:
        file.write(text.encode("utf-8"))
    return path


def _lists(value: Any) -> Any:
    if isinstance(value, ArrayRows):  # a real layer's rows: written from their array
        return value.array.tolist()
    if isinstance(value, tuple | list):
        return [_lists(v) for v in value]
    if isinstance(value, GivenWeights):  # a real head's weights: written as their arrays
        return {name: value.lists(name) for name in GIVEN_NAMES}
    return value
