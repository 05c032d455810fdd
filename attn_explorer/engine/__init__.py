"""The attention engine: pure torch + numpy, no Qt.

Config in (`AttentionConfig`, a frozen dataclass), full trace out (`compute`), and the
derivation of any cell (`explain`). Deterministic from the seed through a private
`torch.Generator`; torch's global random state is never touched.
"""

from .arrays import ARRAY_INFO, ArrayInfo
from .compute import compute
from .config import AttentionConfig, ConfigError, Problem
from .explain import explain, num
from .presets import DEFAULT_PRESET, PRESETS, Preset, preset
from .steps import STEP_KEYS
from .trace import Step, Trace

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
