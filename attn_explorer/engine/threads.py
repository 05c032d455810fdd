"""How many threads torch's kernels may use for one computation.

Waking a second kernel thread costs more than a small trace's whole computation, and while
that thread spins waiting for work it takes a core from the window (measured on a two-core
machine: `triu` on a 6×6 mask took 1 ms instead of 5 µs, and the engine 9 ms instead of
0.5 ms, while the window was painting). Big traces gain from every core, so they get them.
"""

from __future__ import annotations

import torch

from attn_explorer.engine.config import AttentionConfig

# Below this many attention weights (heads × n_q × n_k) a computation runs on one thread:
# 64 tokens × 4 heads (16,384) computes in ~1 ms either way; 256 tokens × 8 heads in 17 ms on
# one thread and 10 ms on two.
SMALL_TRACE_CELLS = 2**17

_all_threads: int | None = None


def threads_for(config: AttentionConfig) -> int:
    """One thread for a small trace, all of torch's default threads for a big one."""
    global _all_threads
    if _all_threads is None:
        _all_threads = torch.get_num_threads()
    if config.attention_cells < SMALL_TRACE_CELLS:
        return 1
    return _all_threads


def use_threads_for(config: AttentionConfig) -> int:
    """Set the calling thread's kernel thread count for `config`; returns it.

    Call it on the thread that computes (the engine thread): torch applies the count to
    that thread's parallel regions.
    """
    threads = threads_for(config)
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)
    return threads
