"""Other programs on the machine, made explicit: `--load N` keeps N plain CPU loops busy.

A learner's laptop is rarely quiet (a browser, a video call); the window must hold its speed
while something else takes a core. The benchmark measures each condition in turn, quiet then
loaded, in the same run and interleaved over `--rounds`, so that a drift of the host's own
load (other users of a shared machine) falls on both sides alike.

Each loop is its own process (`python -c "while True: pass"`), so it takes a core the way
another program does: the window's process, its threads and its interpreter lock are not
involved.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

LOOP = "while True:\n    pass\n"


@contextmanager
def busy(processes: int) -> Iterator[list[subprocess.Popen]]:
    """`processes` CPU loops running while the block runs; ended (by their own id) after it."""
    loops = [
        subprocess.Popen([sys.executable, "-c", LOOP], stdin=subprocess.DEVNULL)
        for _ in range(processes)
    ]
    try:
        if loops:
            time.sleep(0.3)  # let them start and reach the scheduler's steady state
        yield loops
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait()


ONE_THREAD = ", 1 thread"


def conditions(load: int, one_thread_too: bool = False) -> list[tuple[str, int]]:
    """The conditions measured: always quiet (no loop of ours), and `--load N` when asked;
    with `one_thread_too`, each also with the engine held to one kernel thread."""
    chosen = [("quiet", 0)] + ([(f"load {load}", load)] if load > 0 else [])
    if one_thread_too:
        chosen += [(name + ONE_THREAD, loops) for name, loops in chosen]
    return chosen


@contextmanager
def engine_threads_for(condition: str) -> Iterator[None]:
    """The engine's own rule, or one kernel thread where the condition's name says so (the
    issue's check: no size slower than on one thread)."""
    if not condition.endswith(ONE_THREAD):
        yield
        return
    from attn_explorer.engine import threads

    rule = threads.choose_threads
    threads.choose_threads = lambda predicted_ms, machine, most: 1
    try:
        yield
    finally:
        threads.choose_threads = rule


def host_load() -> str:
    """The host's own load average before our loops start: what "quiet" means in this run."""
    try:
        one, five, _ = os.getloadavg()
    except OSError:
        return "unknown"
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def side_by_side(rows: dict[str, list[dict]], targets: dict[int, float]) -> str:
    """A Markdown table: per size, each condition's engine p50, latency p50 and p95.

    `rows` maps a condition's name to the latency rows measured under it (merged over the
    rounds); the table is what docs/performance.md shows.
    """
    names = list(rows)
    head = ["size", "p95 target"]
    for name in names:
        head += [f"{name}: engine p50", f"{name}: p50", f"{name}: p95"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    by_size: dict[int, dict[str, dict]] = {}
    for name in names:
        for row in rows[name]:
            by_size.setdefault(row["size"]["tokens"], {})[name] = row
    for tokens, measured in by_size.items():
        first = next(iter(measured.values()))["size"]
        cells = [f"{tokens} × {first['heads']}", f"{targets.get(tokens, 0):g} ms"]
        for name in names:
            row = measured.get(name)
            if row is None:
                cells += ["", "", ""]
                continue
            met = "" if row["latency_p95_ms"] <= targets.get(tokens, 1e9) else " ✗"
            cells += [
                f"{row['engine_p50_ms']:.1f} ms",
                f"{row['latency_p50_ms']:.1f} ms",
                f"{row['latency_p95_ms']:.1f} ms{met}",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
