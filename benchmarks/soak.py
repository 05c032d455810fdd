"""A restless user: a burst of 1,000 changes in a second, and thousands of random edits.

`run_burst` reports the event loop's longest stall; `run_soak` reports resident memory.
`soak_actions` is also what tests/ui/test_long_session.py replays, so the test and the
benchmark make the same edits.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

from benchmarks.latency import (
    Size,
    _Pictures,
    freeze_as_the_app_does,
    state_of,
    thaw_after_close,
)

# `run_soak_fresh` starts `python -c "from benchmarks.soak import ..."`: from the checkout.
CHECKOUT = Path(__file__).resolve().parents[1]


def run_burst(size: Size, changes: int = 1000, seconds: float = 1.0) -> dict:
    """`changes` seed changes sent by a timer over `seconds`; the event loop's longest stall,
    and how long until the last change's picture is on screen."""
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer

    from attn_explorer.engine import compute
    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.main_window import MainWindow

    app = create_app(["attn-explorer-bench"])
    window = MainWindow(state_of(size))
    window.resize(1500, 940)
    window.show()
    # The engine's own first picture, not a restored one drawn before torch has loaded: a burst
    # sent meanwhile would time torch's import.
    while window.trace is None or window.trace is window.restored.trace:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    # Let the first picture be painted before the clock starts: the window's first paint (fonts,
    # text layouts, 50-90 ms on this host) is startup's cost, reported by --startup, not a stall
    # that the burst caused.
    settle = QElapsedTimer()
    settle.start()
    while settle.elapsed() < 300:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    freeze_as_the_app_does()
    clock = QElapsedTimer()
    ticks: list[int] = []
    # The window thread's own CPU time at each beat too: on a loaded host a stall is mostly
    # time the thread waited for a core, while the CPU it spent between two beats is the
    # window's work alone, the same quiet or loaded.
    cpu: list[float] = []
    # And what had happened by each beat, to say what the longest stalls were made of.
    pictures = _Pictures(window)
    counts = _Counts(window)
    marks: list[tuple] = []

    def beat() -> None:
        ticks.append(clock.elapsed())
        cpu.append(time.thread_time())
        marks.append(counts.now(sent["n"]))

    heartbeat = QTimer()
    heartbeat.setInterval(2)
    heartbeat.timeout.connect(beat)
    sent = {"n": 0}
    before = window.bridge.computations
    driver = QTimer()
    driver.setInterval(max(1, round(seconds * 1000 / changes)))

    def change() -> None:
        # Keep to the schedule: a tick that comes late sends the changes it owes.
        due = min(changes, math.ceil(changes * clock.elapsed() / (seconds * 1000)) + 1)
        for _ in range(max(1, due - sent["n"])):
            if sent["n"] >= changes:
                driver.stop()
                return
            window.controls.seed.spin.setValue(2000 + sent["n"])
            sent["n"] += 1
            if sent["n"] == changes:
                sent["ms"] = clock.elapsed()

    driver.timeout.connect(change)
    cpu_start = time.thread_time()
    clock.start()
    heartbeat.start()
    driver.start()
    final_seed = 2000 + changes - 1
    # Until the last change's picture is painted, and the heartbeat has beaten once after
    # that: the stretch that painted it is measured too.
    while not (
        sent["n"] >= changes
        and window.trace.config.seed == final_seed
        and not window.bridge.busy
        and pictures.on_screen(final_seed)
    ):
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    beats = len(ticks)
    while len(ticks) == beats:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    heartbeat.stop()
    counts.stop()
    cpu_spent = time.thread_time() - cpu_start
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    cpu_gaps = [b - a for a, b in itertools.pairwise(cpu)]
    import numpy as np

    expected = compute(window.doc.config())
    equal = all(
        np.array_equal(view.plot.matrix, expected.matrix(view.plot.shown.name, window.board.head))
        for view in window.board.views.values()
    )
    result = {
        "size": asdict(size),
        "changes": changes,
        "seconds_to_send": sent["ms"] / 1000,
        "seconds_to_final_picture": ticks[-1] / 1000 if ticks else 0,
        "computations": window.bridge.computations - before,
        "longest_stall_ms": max(gaps) if gaps else 0,
        # The window thread's CPU: between two beats at the most, and in all over the burst.
        "longest_stall_cpu_ms": max(cpu_gaps) * 1000 if cpu_gaps else 0,
        "window_cpu_ms": cpu_spent * 1000,
        "final_picture_equals_compute": equal,
        # What ran in the longest stall, and in the one that took the most CPU: changes sent
        # (a late tick of the burst's clock catching up), pictures set into the views, views
        # painted, garbage collections by generation.
        "longest_stall_held": _held(marks, gaps),
        "longest_stall_cpu_held": _held(marks, cpu_gaps),
        # Every stall over 8 ms (half the target), longest first, with what it held: the
        # longest alone does not tell an outlier from the usual paint.
        "stalls": _stalls(marks, gaps, cpu_gaps),
    }
    window.doc.undo_stack.setClean()
    window.close()
    thaw_after_close()
    return result


class _Counts:
    """What the window has done so far in a burst: pictures set, views painted (and of them,
    painted whole) and garbage collections by generation, read at each beat of the
    heartbeat."""

    def __init__(self, window: object) -> None:
        import gc

        from PySide6.QtCore import QEvent, QObject

        counts = self

        class Paints(QObject):
            def eventFilter(self, obj: object, event: object) -> bool:
                if event.type() == QEvent.Type.Paint:
                    counts.paints += 1
                    # A whole view, not its cells and bar: a re-layout (a colour bar
                    # widened for new labels) moved what is drawn around the cells.
                    counts.whole += event.rect() == obj.rect()
                return False

        self.pictures = 0
        self.paints = self.whole = 0
        self.collections = [0, 0, 0]
        self.window = window
        self.filter = Paints()
        self.viewports = [view.viewport() for view in window.board.views.values()]
        for viewport in self.viewports:
            viewport.installEventFilter(self.filter)
        window.traceShown.connect(self._shown)
        gc.callbacks.append(self._collected)

    def _shown(self, _trace: object) -> None:
        self.pictures += 1

    def _collected(self, phase: str, info: dict) -> None:
        if phase == "stop":
            self.collections[info["generation"]] += 1

    def now(self, sent: int) -> tuple:
        return (sent, self.pictures, self.paints, self.whole, *self.collections)

    def stop(self) -> None:
        import gc

        gc.callbacks.remove(self._collected)
        self.window.traceShown.disconnect(self._shown)
        for viewport in self.viewports:
            viewport.removeEventFilter(self.filter)


def _held(marks: list[tuple], gaps: list[float], i: int | None = None) -> dict:
    """What happened between the two beats around the longest of `gaps` (or the `i`-th)."""
    if not gaps:
        return {}
    if i is None:
        i = max(range(len(gaps)), key=gaps.__getitem__)
    done = [b - a for a, b in zip(marks[i], marks[i + 1], strict=True)]
    return {
        "changes": done[0],
        "pictures_set": done[1],
        "views_painted": done[2],
        "views_painted_whole": done[3],
        "collections": {f"gen{g}": n for g, n in enumerate(done[4:]) if n},
    }


STALL_MS = 8


def _stalls(marks: list[tuple], gaps: list[float], cpu_gaps: list[float]) -> list[dict]:
    """Each gap between beats over `STALL_MS`, longest first: its length, the window
    thread's CPU in it, and what it held (see `_held`)."""
    long = sorted((i for i, gap in enumerate(gaps) if gap > STALL_MS), key=lambda i: -gaps[i])
    return [
        {"ms": gaps[i], "cpu_ms": round(cpu_gaps[i] * 1000, 1), **_held(marks, gaps, i)}
        for i in long
    ]


def resident_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


WARM_UP_EDITS = 2000


def run_soak(edits: int, seed: int = 0) -> dict:
    """Random control and cell edits, as a restless user would make them.

    Every 500 edits, resident memory is read twice: at once (`memory_mb`), and after the
    user pauses for 1.5 s (`memory_at_rest_mb`), when the engine thread has handed freed
    memory back to the system.
    """
    import random

    from PySide6.QtCore import QEventLoop, QTimer, qInstallMessageHandler

    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.engine_thread import TRIM_DELAY_MS
    from attn_explorer.ui.main_window import MainWindow

    warnings: list[str] = []
    qInstallMessageHandler(lambda mode, context, message: warnings.append(message))
    app = create_app(["attn-explorer-bench"])
    window = MainWindow()
    window.resize(1500, 940)
    window.show()
    rng = random.Random(seed)
    memory: list[tuple[int, float]] = []
    at_rest: list[tuple[int, float]] = []
    actions = soak_actions(window, rng)

    def read(done: int) -> None:
        while window.bridge.busy:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        memory.append((done, resident_mb()))
        pause = QEventLoop()
        QTimer.singleShot(TRIM_DELAY_MS + 500, pause.quit)
        pause.exec()
        at_rest.append((done, resident_mb()))

    for i in range(edits):
        if i % 500 == 0:
            read(i)
        rng.choice(actions)()
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 2)
    read(edits)
    window.doc.undo_stack.setClean()
    window.close()
    # Warm-up: the undo history (1,000 steps) and the engine's parameter cache fill during the
    # first 2,000 edits; memory after that must stay flat.
    warm_edits = min(WARM_UP_EDITS, edits // 2)
    warm = next(mb for i, mb in memory if i >= warm_edits)
    warm_rest = next(mb for i, mb in at_rest if i >= warm_edits)
    ignorable = ("does not support propagateSizeHints", "does not support raise")
    real_warnings = [w for w in warnings if not any(s in w for s in ignorable)]
    return {
        "edits": edits,
        "memory_mb": memory,
        "memory_at_rest_mb": at_rest,
        "warm_up_edits": warm_edits,
        "growth_after_warmup_mb": memory[-1][1] - warm,
        "growth_at_rest_after_warmup_mb": at_rest[-1][1] - warm_rest,
        "qt_warnings": real_warnings[:20],
    }


def run_soak_fresh(edits: int) -> dict:
    """`run_soak` in a new process, so memory freed by the runs before it does not count."""
    code = (
        f"import json; from benchmarks.soak import run_soak; print(json.dumps(run_soak({edits})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=CHECKOUT,
        env=dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen")),
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def soak_actions(window: object, rng: object) -> list:
    """Edits a restless user makes: every control, cells, tokens, undo and redo."""
    c = window.controls
    doc = window.doc
    model = doc.queries

    def cell() -> None:
        if model.rowCount():
            r, k = rng.randrange(model.rowCount()), rng.randrange(1, model.columnCount())
            model.setData(model.index(r, k), rng.choice(["0.5", "-1.25", "x", "nan", "3e2", ""]))

    def tokens() -> None:
        if rng.random() < 0.5 and model.rowCount() < 24:
            model.insert_tokens(rng.randrange(model.rowCount() + 1), 1)
        elif model.rowCount() > 2:
            model.remove_tokens([rng.randrange(model.rowCount())])

    def combo(box) -> None:
        box.setCurrentIndex(rng.randrange(box.count()))

    return [
        lambda: c.seed.spin.setValue(rng.randrange(10_000)),
        lambda: c.d_out.spin.setValue(rng.randrange(1, 65)),
        lambda: c.heads.spin.setValue(rng.randrange(1, 17)),
        lambda: c.dropout.spin.setValue(rng.choice([0, 0.1, 0.5, 0.9])),
        lambda: c.temperature.spin.setValue(rng.choice([0.1, 1.0, 2.0, 50.0])),
        lambda: combo(c.projection),
        lambda: combo(c.layout_box),
        lambda: combo(c.mask_method),
        lambda: c.causal.toggle(),
        lambda: c.padding.toggle(),
        lambda: c.valid_len.setValue(rng.randrange(1, 30)),
        lambda: c.scale.toggle(),
        lambda: c.training.toggle(),
        lambda: c.reseed_dropout.toggle(),
        lambda: c.dropout_seed.setValue(rng.randrange(10_000)),
        lambda: c.out_proj.toggle(),
        lambda: c.qkv_bias.toggle(),
        cell,
        cell,
        tokens,
        lambda: doc.undo_stack.undo(),
        lambda: doc.undo_stack.redo(),
        lambda: window.board.set_head(rng.randrange(4)),
        lambda: window.tabs.setCurrentIndex(rng.randrange(2)),
        lambda: window.stepper.step_by(rng.choice([-1, 1])),
    ]
