"""Hand memory that the C allocator keeps after big traces are freed back to the system.

glibc's malloc keeps freed heap pages for reuse, per thread arena. A trace of 1024 tokens ×
16 heads is hundreds of megabytes in many arrays; after thousands of edits of changing sizes
the process keeps tens of megabytes it no longer uses, which looks like a leak to anyone
watching its memory. `malloc_trim` returns them. Elsewhere (macOS, Windows, musl) there is
no such call and nothing to do.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable


def _find_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)  # the C library the process already runs on
    except OSError:
        return None
    return getattr(libc, "malloc_trim", None)  # glibc only


_TRIM = _find_trim()


def release_freed_memory() -> bool:
    """Offer freed heap memory back to the OS; False where the C library cannot.

    ctypes drops the GIL for the call, so other threads run meanwhile.
    """
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
