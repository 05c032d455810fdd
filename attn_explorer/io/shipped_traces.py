"""The examples' first traces, computed ahead and shipped in the package, so that even a first
start, with nothing kept yet in the user's cache, draws its first picture before torch loads.

They are kept traces like any other (`io/trace_cache.py`), keyed by the config and the engine's
version, so a file the engine would no longer compute the same is never used; each is named
after its example, so that making them again changes the files in place. Regenerate them after
any change to the engine (a test fails until then):

    python -m attn_explorer.io.shipped_traces
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.presets import PRESETS
from attn_explorer.engine.trace import Trace
from attn_explorer.io import trace_cache
from attn_explorer.model.state import ExplorerState

FOLDER = Path(__file__).resolve().parents[1] / "resources" / "traces"


def example_configs() -> dict[str, AttentionConfig]:
    """The config a window opened on each example computes first."""
    return {name: ExplorerState.from_preset(p).config() for name, p in PRESETS.items()}


@functools.cache
def _names() -> dict[AttentionConfig, str]:
    return {config: name for name, config in example_configs().items()}


def load(config: AttentionConfig) -> Trace | None:
    """The shipped first trace of the example whose config is `config`, if it still holds."""
    name = _names().get(config)
    if name is None:
        return None
    return trace_cache.load_file(FOLDER / (name + trace_cache.SUFFIX), config)


def main() -> int:
    from attn_explorer.engine import compute
    from attn_explorer.engine.threads import use_threads_for

    FOLDER.mkdir(parents=True, exist_ok=True)
    for old in FOLDER.glob("*" + trace_cache.SUFFIX):
        old.unlink()
    for name, config in example_configs().items():
        use_threads_for(config)  # one thread, as the window computes a trace this small
        path = trace_cache.save(FOLDER, compute(config), keep_files=len(PRESETS), name=name)
        print(f"{name}: {path.name if path else 'not kept'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
