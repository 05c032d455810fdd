"""Traces computed before they are asked for: a real head under a resting pointer.

The model view computes the head under the pointer on a thread of its own
(`lens.lab.prepare`) while the learner decides to click; the engine's thread then hands that
trace over instead of computing the same config again, so a head opens in the time the window
takes to draw it. The engine's 10-20 ms for a 512-token head leave the click's path.

Only a few are kept (the newest), each taken at most once; a config is matched by equality,
which for the lens's configs compares the same tokens and rows objects (identity) and the
head's weights as arrays. Thread-safe: offered on the preparer's thread, taken on the engine's.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from attn_explorer.engine.config import AttentionConfig
    from attn_explorer.engine.trace import Trace

KEPT = 2  # a 512-token head's trace is some 10 MB

_lock = threading.Lock()
_ready: list[tuple[Trace, bool, float]] = []


def offer(trace: Trace, compared: bool, seconds: float) -> None:
    """Keep `trace` (computed with both masking methods when `compared`, in `seconds`)."""
    with _lock:
        _ready[:] = [*_ready[-(KEPT - 1) :], (trace, compared, seconds)] if KEPT > 1 else []


def take(config: AttentionConfig, compare_mask_methods: bool) -> tuple[Trace, float] | None:
    """The kept trace of `config` and the seconds it took, or None; taken, it is let go."""
    with _lock:
        for index, (trace, compared, seconds) in enumerate(_ready):
            if (
                (compared or not compare_mask_methods)
                and config.given is not None  # only a real head's (weights compared first)
                and trace.config.given == config.given
                and trace.config == config
            ):
                del _ready[index]
                return trace, seconds
    return None


def clear() -> None:
    with _lock:
        _ready.clear()
