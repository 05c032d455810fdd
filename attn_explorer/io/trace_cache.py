"""The last pictures the window drew, kept on disk so that the next start can draw one at once.

torch takes 1.2–2 s to import, and nothing can be computed before it; the window's first
picture would wait for it. So every trace the window computed and showed is kept here (its
arrays, the numbers the picture is drawn from), and a window opened on the same configuration
draws them before torch is loaded, marked as restored until the engine has computed them again.

The picture shown must never be one the configuration would not give, so a kept trace is used
only where its key matches exactly: a hash of every field of the config and of the engine's
version (the package's version, the engine's source and torch's version, read without
importing torch). A file that is damaged, older, or for another key is ignored. Reading one
imports numpy only.

Files are written atomically (`io/atomic.py`): a write cut short leaves the file that was
there, or none. Big traces are not kept (`MAX_BYTES`): reading hundreds of megabytes would cost
more than it saves, and their first picture needs the engine's threads anyway.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import importlib.util
import io
import json
import os
import re
import zipfile
from pathlib import Path

import numpy as np

from attn_explorer import __version__
from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.given import NAMES as GIVEN_NAMES
from attn_explorer.engine.given import ArrayRows, GivenWeights
from attn_explorer.engine.steps import build_steps
from attn_explorer.engine.trace import Trace, frozen_mapping
from attn_explorer.io import atomic

MAX_BYTES = 32 * 2**20  # the arrays of 256 tokens × 8 heads take about 20 MB
KEEP = 8  # files kept; the oldest go
SUFFIX = ".trace.npz"
_KEY_ENTRY = "__key__"  # the key, stored inside the file too: a renamed file is not trusted
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Set to "off" (or "0") to neither read nor write kept traces: the test suite does, so that its
# windows compute every picture they show.
SWITCH = "ATTN_EXPLORER_TRACE_CACHE"


def enabled() -> bool:
    return os.environ.get(SWITCH, "").strip().lower() not in ("0", "off", "no", "false")


@functools.cache
def engine_version() -> str:
    """What the numbers depend on besides the config: the package, the engine's source (any
    change to it, even of a comment, retires every kept trace) and torch."""
    digest = hashlib.sha256(__version__.encode())
    folder = Path(__file__).resolve().parents[1] / "engine"
    for source in sorted(folder.glob("*.py")):
        digest.update(source.name.encode())
        digest.update(source.read_bytes())
    digest.update(_torch_version().encode())
    return digest.hexdigest()[:16]


def _torch_version() -> str:
    """torch's version from its `version.py`, found without importing torch (1.2–2 s)."""
    try:
        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.submodule_search_locations:
            return "none"
        text = (Path(next(iter(spec.submodule_search_locations))) / "version.py").read_text()
    except (OSError, ValueError, ImportError):
        return "unknown"
    found = re.search(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", text, re.MULTILINE)
    return found.group(1) if found else "unknown"


def key(config: AttentionConfig, version: str | None = None) -> str:
    """A hash of every field of `config` and of the engine's version. Floats are written as
    `repr` writes them, which reads back as the same float: two configs share a key only if
    every field is equal."""
    fields = [[f.name, _written(getattr(config, f.name))] for f in dataclasses.fields(config)]
    text = json.dumps([version or engine_version(), fields], allow_nan=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _written(value: object) -> object:
    """A field as the key writes it. A real head's given weights (arrays, which JSON cannot
    write) and a real layer's rows (393,216 floats, a tenth of a second through JSON) by the
    shape and a digest of their numbers' bytes: equal bytes are equal numbers. A layer's rows
    and the same numbers typed as a table get different keys, which is only a trace not found."""
    if isinstance(value, GivenWeights):
        return ["given", *(_digest(getattr(value, name)) for name in GIVEN_NAMES)]
    if isinstance(value, ArrayRows):
        return ["rows", _digest(value.array)]
    return value


def _digest(array: np.ndarray | None) -> list | None:
    if array is None:
        return None
    numbers = np.ascontiguousarray(array, dtype=np.float64).tobytes()
    return [list(array.shape), hashlib.sha256(numbers).hexdigest()]


def path_for(folder: str | os.PathLike[str], config: AttentionConfig) -> Path:
    return Path(folder) / (key(config)[:32] + SUFFIX)


def save(
    folder: str | os.PathLike[str], trace: Trace, keep_files: int = KEEP, name: str = ""
) -> Path | None:
    """Keep `trace` in `folder` (made if missing), as `name` or else under its key; None where
    it is too big to keep. The oldest files beyond `keep_files` are removed."""
    arrays = dict(trace.arrays)
    if sum(a.nbytes for a in arrays.values()) > MAX_BYTES:
        return None
    if not all(_NAME.fullmatch(name) for name in arrays):
        return None
    buffer = io.BytesIO()
    np.savez(buffer, **arrays, **{_KEY_ENTRY: np.array(key(trace.config))})
    target = Path(folder) / (name + SUFFIX) if name else path_for(folder, trace.config)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(target, buffer.getvalue())
    _prune(Path(folder), target, keep_files)
    return target


def load(folder: str | os.PathLike[str], config: AttentionConfig) -> Trace | None:
    """The kept trace of `config`, or None: none kept, another key, or a file that cannot be
    read whole (damaged, cut short, written by another version)."""
    return load_file(path_for(folder, config), config)


def load_file(path: str | os.PathLike[str], config: AttentionConfig) -> Trace | None:
    """The trace kept in `path` if its key is `config`'s, else None."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            if str(stored[_KEY_ENTRY]) != key(config):
                return None
            arrays = {name: stored[name] for name in stored.files if name != _KEY_ENTRY}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if not arrays:
        return None
    shapes = {name: a.shape for name, a in arrays.items()}
    return Trace(config=config, arrays=frozen_mapping(arrays), steps=build_steps(config, shapes))


def _prune(folder: Path, keep: Path, keep_files: int) -> None:
    try:
        kept = sorted(folder.glob("*" + SUFFIX), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return
    for old in kept[keep_files:]:
        if old != keep:
            with contextlib.suppress(OSError):
                old.unlink()
