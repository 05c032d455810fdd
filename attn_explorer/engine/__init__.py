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

from attn_explorer.engine.arrays import ARRAY_INFO, ArrayInfo
from attn_explorer.engine.config import AttentionConfig, ConfigError, Problem
from attn_explorer.engine.presets import DEFAULT_PRESET, PRESETS, Preset, matching_preset, preset
from attn_explorer.engine.steps import STEP_KEYS, step_keys
from attn_explorer.engine.trace import Step, Trace

if TYPE_CHECKING:
    from attn_explorer.engine.attention import compute
    from attn_explorer.text.explain import explain


def __getattr__(name: str) -> Any:
    if name == "compute":
        from attn_explorer.engine.attention import compute

        return compute
    if name == "explain":
        # The engine computes numbers; the words about them live in `attn_explorer.text`.
        # `engine.explain` stays reachable here because it is the engine's documented public
        # face (README: `from attn_explorer.engine import AttentionConfig, compute, explain`),
        # and only on first use, so nothing in the engine itself depends on the text layer.
        from attn_explorer.text.explain import explain

        return explain
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
    "preset",
    "step_keys",
]
