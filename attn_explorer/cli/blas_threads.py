"""numpy's OpenBLAS on one thread while the window starts, all of them once it has computed.

Loaded with numpy, OpenBLAS starts a thread for every core but one, and each spins for its
first work for about a tenth of a second. The window needs numpy before its first paint, and
on two cores that spinning takes the core a busy laptop's other program leaves it: importing
numpy took 0.27 s (median of 12, load 3) against 0.17 s with one thread, 47 ms more CPU. The
window computes with torch (its own threads, engine/threads.py); numpy's matrix products
matter to the model lens, so the threads come back once the first picture is computed, or
before a model is opened.

Only numpy's own OpenBLAS (the wheels' `scipy_openblas`) is limited, and only where the user
has not chosen a thread count: with another BLAS nothing is changed.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import sys
from pathlib import Path

# OpenBLAS reads the first of these that is set.
_CHOICES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_GETTERS = tuple(name.replace("set_", "get_") for name in _SETTERS)

_limited: Path | None = None  # the library limited to one thread, until `restore`


def numpy_openblas() -> Path | None:
    """The OpenBLAS library numpy's wheel ships, found without importing numpy."""
    spec = importlib.util.find_spec("numpy")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(next(iter(spec.submodule_search_locations)))
    for folder in (package.parent / "numpy.libs", package / ".dylibs", package.parent / "numpy"):
        for library in sorted(folder.glob("*openblas*")) if folder.is_dir() else ():
            return library
    return None


def limit() -> bool:
    """Before numpy is imported: its OpenBLAS starts with one thread, unless the user chose
    a number or numpy has another BLAS. Whether it was limited."""
    global _limited
    if "numpy" in sys.modules or any(name in os.environ for name in _CHOICES):
        return False
    library = numpy_openblas()
    if library is None:
        return False
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    _limited = library
    return True


def restore() -> None:
    """OpenBLAS's threads as it would have started them (one per core this process may run
    on), and the environment as it was, so that no program started from here inherits the
    limit. Does nothing if `limit` did not limit, or once done."""
    global _limited
    library, _limited = _limited, None
    if library is None:
        return
    os.environ.pop("OPENBLAS_NUM_THREADS", None)
    setter = _function(library, _SETTERS)
    if setter is not None:
        setter(ctypes.c_int(_cores()))


def threads() -> int | None:
    """The threads numpy's OpenBLAS uses now, or None where that cannot be asked. (Asked
    before numpy is imported, it would load OpenBLAS.)"""
    library = numpy_openblas()
    getter = None if library is None else _function(library, _GETTERS)
    return None if getter is None else int(getter())


def _cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def _function(library: Path, names: tuple[str, ...]) -> ctypes._CFuncPtr | None:
    try:
        handle = ctypes.CDLL(str(library))  # numpy's, already loaded: the same library
    except OSError:
        return None
    for name in names:
        function = getattr(handle, name, None)
        if function is not None:
            return function
    return None
