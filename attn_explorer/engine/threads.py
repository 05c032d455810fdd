"""How many threads torch's kernels may use for one computation, decided from what the
machine offers at that moment.

Why not simply all cores: torch's kernels run on OpenMP, whose threads wait for each other at
the end of every parallel operation, spinning, not sleeping. A computation is hundreds of such
operations. When another program holds a core, one of the engine's two kernel threads is
descheduled in the middle of an operation and the other spins until it returns: on two cores
with one CPU loop running, 256 tokens × 8 heads took 180–580 ms on two kernel threads against
20–57 ms on one, and a profile (perf, 60 moves) put 46 % of the process's samples in
libgomp's spin-wait, the window's own thread starved beside it (2026-11-27, shared two-core
EPYC). A fixed size threshold cannot know this: the same size is best on two threads when
the machine is quiet and ten times slower on two when it is not.

The rule (`choose_threads`, a pure function the tests check):

1. A second thread pays only for a computation long enough to repay the cost of waking it and
   of the barriers between operations. The engine measures itself: each computation's wall
   time per attention weight, per thread used, predicts the next one's time on one thread.
   Under `PARALLEL_FROM_MS` of predicted work, or with nothing measured yet, one thread.
2. Otherwise as many threads as cores are free now: the cores this process may run on, minus
   what the other programs on the machine kept busy since the last computation (from
   /proc/stat and this process's own CPU time), a core counting as free when the others left
   at least `FREE_CORE` of it. Never more than torch's default, never fewer than one.

The count is set for the engine thread's computation and put back after it
(`kernel_threads`), so nothing else in the process (a notebook's own torch code, the tests)
finds torch's thread count changed. `compute()` itself never changes it. (torch keeps the
count per thread, but a thread that first asks for it while the engine computes starts from
the engine's: the window's only torch thread is the engine's, so this never happens there.)
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

# Predicted one-thread time under which a computation stays on one thread. Measured on two
# cores, quiet: 256 × 8 (about 15 ms on one thread) gains 2–5 ms from a second one, while an
# operation whose partner thread is late costs more than that; 1024 × 16 (about 75 ms) gains
# 30 ms.
PARALLEL_FROM_MS = 40.0

# A core is free when the other programs left at least this much of it since the last look.
FREE_CORE = 0.75

# Shorter than this between two looks, and the last reading of the others' load is kept: a
# burst of computations must not read a few milliseconds of /proc/stat as the machine's load.
MIN_WINDOW_S = 0.25


@dataclass(frozen=True)
class Machine:
    """What the machine offers: cores this process may use, cores the others keep busy."""

    cores: int
    others_busy: float  # in cores, e.g. 1.0 for one CPU loop on another program's side


def choose_threads(predicted_ms: float | None, machine: Machine, most: int) -> int:
    """The kernel thread count for a computation predicted to take `predicted_ms` on one
    thread (None: not yet measured), on `machine`, with `most` the largest count allowed."""
    if predicted_ms is None or predicted_ms < PARALLEL_FROM_MS:
        return 1
    free = machine.cores - machine.others_busy
    usable = math.floor(free + (1.0 - FREE_CORE))
    return max(1, min(most, machine.cores, usable))


class LoadMeter:
    """How many cores the machine's other programs kept busy, between two looks.

    The engine looks once per computation, so during use a reading covers the last moves; the
    first computation after a long pause decides on the average over the pause, the next on a
    fresh reading.

    Busy time of the whole machine from /proc/stat, minus this process's own CPU time, over
    the wall time between looks. Where /proc/stat cannot be read, the 1-minute load average
    minus one (the engine's own thread) stands in for it.
    """

    def __init__(self) -> None:
        self.cores = _cores()
        self._last: tuple[float, float, float] | None = None  # wall, machine busy, own cpu
        self.others_busy = 0.0

    def look(self) -> Machine:
        wall = time.monotonic()
        if self._last is not None and wall - self._last[0] < MIN_WINDOW_S:
            # The reading is kept over a burst: reading /proc/stat for nothing (a file opened,
            # read and parsed at every move) cost 25 µs in a loop and 0.2-0.3 ms in the
            # window, whose engine thread wakes for each move with its caches cold.
            return Machine(self.cores, self.others_busy)
        now = (wall, *_busy_seconds())
        if self._last is None:
            self._last = now
            self.others_busy = _load_average_others(self.cores)
        elif now[0] - self._last[0] >= MIN_WINDOW_S:
            wall = now[0] - self._last[0]
            if now[1] >= 0:
                others = (now[1] - self._last[1]) - (now[2] - self._last[2])
                self.others_busy = min(float(self.cores), max(0.0, others / wall))
            else:
                self.others_busy = _load_average_others(self.cores)
            self._last = now
        return Machine(self.cores, self.others_busy)


class ThreadChooser:
    """The engine thread's decisions: measures itself and the machine, picks a count."""

    def __init__(self, meter: LoadMeter | None = None, most: int | None = None) -> None:
        self.meter = meter or LoadMeter()
        self.most = most or _torch_default_threads()
        self._ms_per_cell: float | None = None  # one thread's time per attention weight
        self.last: int = 1

    def predicted_ms(self, cells: int) -> float | None:
        return None if self._ms_per_cell is None else self._ms_per_cell * cells

    def choose(self, cells: int) -> int:
        self.last = choose_threads(self.predicted_ms(cells), self.meter.look(), self.most)
        return self.last

    def measured(self, cells: int, seconds: float, threads: int) -> None:
        """Learn from a finished computation. Its time × its threads bounds one thread's time
        from above, so a computation slowed by a busy machine never makes the next one look
        cheaper than it is."""
        if cells > 0:
            self._ms_per_cell = seconds * 1e3 * threads / cells


@contextlib.contextmanager
def kernel_threads(count: int) -> Iterator[int]:
    """torch's kernel thread count set to `count` for the block, the earlier count after it."""
    import torch

    before = torch.get_num_threads()
    if before != count:
        torch.set_num_threads(count)
    try:
        yield count
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def use_threads_for(config: object) -> int:
    """For a headless computation (the command line's export): the count the window's engine
    uses for a computation it has not measured yet, one thread, set for the calling thread.

    Matrix products can round differently on one thread and on two (last-bit differences);
    on one thread an export holds the numbers the window shows for every trace it computes
    on one, which is every trace under `PARALLEL_FROM_MS` and every trace on a busy machine.
    """
    import torch

    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
    return 1


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


_default_threads: int | None = None


def _torch_default_threads() -> int:
    """torch's thread count as the process started (before any engine thread changed it)."""
    global _default_threads
    if _default_threads is None:
        import torch

        _default_threads = torch.get_num_threads()
    return _default_threads


def _busy_seconds() -> tuple[float, float]:
    """(seconds the cores this process may run on were busy since boot, this process's CPU
    seconds); the first is -1 where /proc/stat cannot be read.

    Only those cores count: on a machine shared out by CPU affinity (a container on a big
    host), the other cores' work takes nothing from this process."""
    own = time.process_time()
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            text = stat.read()
    except OSError:
        return -1.0, own
    return busy_ticks(text, _allowed_cpus()) / os.sysconf("SC_CLK_TCK"), own


def busy_ticks(stat: str, mine: set[int] | None) -> int:
    """Busy clock ticks of the cores `mine` (None: all) in the text of /proc/stat."""
    busy = 0
    for line in stat.splitlines():
        if not line.startswith("cpu") or line.startswith("cpu "):
            continue
        fields = line.split()
        if mine is not None and int(fields[0][3:]) not in mine:
            continue
        # cpuN user nice system idle iowait irq softirq steal ...
        ticks = [int(x) for x in fields[1:9]]
        busy += sum(ticks) - ticks[3] - ticks[4]
    return busy


def _allowed_cpus() -> set[int] | None:
    try:
        return set(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return None


def _load_average_others(cores: int) -> float:
    try:
        return min(float(cores), max(0.0, os.getloadavg()[0] - 1.0))
    except OSError:
        return 0.0
