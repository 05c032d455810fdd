"""The attention engine: pure torch + numpy, no Qt.

Config in (`AttentionConfig`, a frozen dataclass), full trace out (`compute`), and the
derivation of any cell (`explain`). Deterministic from the seed through a private
`torch.Generator`; torch's global random state is never touched.

Only `compute` needs torch, and it is imported on first use: the window imports configs,
presets and `explain` without paying for torch on its thread, and the engine thread imports
torch while the window is already on screen.
"""

from typing import TYPE_CHECKING, Any

from .arrays import ARRAY_INFO, ArrayInfo
from .config import AttentionConfig, ConfigError, Problem
from .explain import explain, num
from .presets import DEFAULT_PRESET, PRESETS, Preset, preset
from .steps import STEP_KEYS
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
    "num",
    "preset",
]
