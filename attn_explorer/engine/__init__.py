"""The attention engine: pure torch + numpy, no Qt.

Config in (`AttentionConfig`, a frozen dataclass), full trace out (`compute`), and the
derivation of any cell (`explain`). Deterministic from the seed through a private
`torch.Generator`; torch's global random state is never touched.

Only `compute` needs torch, and it is imported on first use: the window imports configs,
presets and `explain` without paying for torch on its thread, and the engine thread imports
torch while the window is already on screen.
"""

import os
from typing import TYPE_CHECKING, Any

# Before torch is first imported: torch then asks the kernel for 2 MB pages for tensors of
# 2 MB and more. A (16, 1024, 1024) float32 array is 64 MB, allocated fresh for every
# computation; with 4 KB pages filling it costs 16,384 page faults, and the largest config
# computes in ~95 ms instead of ~175 ms (2.13, two cores). Set by the engine package, not by
# the user, because the window never imports torch before it. An explicit setting is kept.
os.environ.setdefault("THP_MEM_ALLOC_ENABLE", "1")

from .arrays import ARRAY_INFO, ArrayInfo
from .config import AttentionConfig, ConfigError, Problem
from .explain import explain, num
from .presets import DEFAULT_PRESET, PRESETS, Preset, matching_preset, preset
from .steps import STEP_KEYS, step_keys
from .trace import Step, Trace

if TYPE_CHECKING:
    from .attention import compute


def __getattr__(name: str) -> Any:
    if name == "compute":
        from .attention import compute

        return compute
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ARRAY_INFO",
    "DEFAULT_PRESET",
    "PRESETS",
    "STEP_KEYS",
    "ArrayInfo",
    "AttentionConfig",
    "ConfigError",
    "Preset",
    "Problem",
    "Step",
    "Trace",
    "compute",
    "explain",
    "matching_preset",
    "num",
    "preset",
    "step_keys",
]
