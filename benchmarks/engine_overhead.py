"""The engine thread's own time for one seed move, as `_Worker.run` spends it, without a window.

A seed move computes a config never computed before (its parameters are drawn anew). At the
tutorials' size nearly all of the engine's time is per-call overhead: dozens of small tensor
operations, the parameter draw, the trace's arrays and steps. This script runs what the
window's engine thread runs for each move, on a thread of its own: the thread chooser, the
ready traces, `kernel_threads` and `compute` with a buffer pool, a new seed each time, and
prints p50 / p95 of `compute` alone and of the whole.

Two conditions, interleaved move by move:

- `hot`: one move straight after the other, every cache warm (the least the code can cost);
- `after a pause`: the thread sleeps first (`--pause-ms`), as the engine thread sleeps
  between moves in the window while the window draws. Woken, the same code costs two to
  three times as much (its instructions and data left the caches): this is what the window
  measures as the engine's time.

Figures are printed, never asserted. Run: `python -m benchmarks.engine_overhead
[--sizes 6 64] [--moves 2000] [--pause-ms 5]`. To compare two trees, run it alternately
from each (`cd TREE && PYTHONPATH=$PWD python NEW_TREE/benchmarks/engine_overhead.py`): the
machine's load changes from one minute to the next.
"""

from __future__ import annotations

import argparse
import dataclasses
import threading
import time

from benchmarks.latency import SIZES, percentile, state_of

WARM_UP = 50  # moves not counted: the first draws fill the caches of every kind


def run_moves(tokens: int, moves: int, pause_s: float) -> dict[str, list[float]]:
    """Milliseconds per move, by condition: `compute` alone and the worker's whole part."""
    from attn_explorer.engine.attention import compute
    from attn_explorer.engine.buffers import BufferPool
    from attn_explorer.engine.ready import take as take_ready
    from attn_explorer.engine.threads import ThreadChooser, kernel_threads

    size = next(s for s in SIZES if s.tokens == tokens)
    config = state_of(size).config()
    pool = BufferPool()
    chooser = ThreadChooser()
    times: dict[str, list[float]] = {}
    shown = None  # the window keeps the trace on screen while the next one is computed
    for move in range(WARM_UP + moves):
        for condition, pause in (("hot", 0.0), ("after a pause", pause_s)):
            moved = dataclasses.replace(config, seed=100 + 2 * move + (pause > 0))
            if pause:
                time.sleep(pause)
            start = time.perf_counter()
            threads = chooser.choose(moved.attention_cells)
            take_ready(moved, True)  # None: only a real head's traces are prepared
            begun = time.perf_counter()
            with kernel_threads(threads):
                trace = compute(moved, compare_mask_methods=True, pool=pool)
            seconds = time.perf_counter() - begun
            chooser.measured(moved.attention_cells, seconds, threads)
            whole = time.perf_counter() - start
            shown = trace
            if move >= WARM_UP:
                times.setdefault(f"{condition}: compute", []).append(seconds * 1e3)
                times.setdefault(f"{condition}: run", []).append(whole * 1e3)
    del shown
    return times


def _into(result: dict, tokens: int, moves: int, pause_s: float) -> None:
    result["times"] = run_moves(tokens, moves, pause_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 64], help="token counts")
    parser.add_argument("--moves", type=int, default=2000, help="seed moves per condition")
    parser.add_argument("--pause-ms", type=float, default=5.0, help="sleep before a cold move")
    args = parser.parse_args()
    for tokens in args.sizes:
        result: dict[str, dict[str, list[float]]] = {}
        worker = threading.Thread(
            target=_into, args=(result, tokens, args.moves, args.pause_ms / 1e3), name="engine"
        )
        worker.start()
        worker.join()
        for name, values in result["times"].items():
            print(
                f"{tokens:>5} tokens  {name:<22} p50 {percentile(values, 50):7.3f} ms"
                f"  p95 {percentile(values, 95):7.3f} ms"
            )


if __name__ == "__main__":
    main()
