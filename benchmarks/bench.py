"""Measured speed of the live window: `python -m benchmarks.bench`.

Runs offscreen and prints a table (and writes JSON) with, for four sizes from the tutorials'
6 tokens to 1024 tokens × 16 heads:

- latency from a control change (the seed spin box, as a user would type) to redrawn
  heatmaps: the engine thread's computation, the views' update and the paint, p50/p95/max;
- the engine's compute time alone;
- the same seven matrices drawn with matplotlib (imshow, colour bar, tick labels, Agg
  canvas), what a notebook user has today, and its ratio to the window's latency.

`--burst` sends 1000 control changes within one second and reports the longest stall of the
GUI event loop; `--soak N` makes N random edits and reports resident memory; `--startup`
times the window's appearance and first picture in a fresh process. Figures are printed,
never asserted: the tests check behaviour, this script measures it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@dataclass(frozen=True)
class Size:
    tokens: int
    d_in: int
    heads: int
    d_out: int
    target_ms: float

    @property
    def label(self) -> str:
        return f"{self.tokens} tok × {self.heads} heads"


SIZES = (
    Size(6, 3, 2, 2, 16),
    Size(64, 16, 4, 16, 33),
    Size(256, 64, 8, 64, 100),
    Size(1024, 64, 16, 64, 250),
)


def machine() -> dict[str, object]:
    import numpy
    import pyqtgraph
    import PySide6
    import torch

    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "numpy": numpy.__version__,
        "pyside6": PySide6.__version__,
        "pyqtgraph": pyqtgraph.__version__,
        "qt_platform": os.environ.get("QT_QPA_PLATFORM", ""),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def _state(size: Size):
    from attn_explorer.model.state import ExplorerState, default_state, random_sequence

    sequence = random_sequence(size.tokens, size.d_in, seed=1)
    state = replace(default_state(), queries=sequence, kv=sequence)
    assert isinstance(state, ExplorerState)
    return state.with_controls(
        num_heads=size.heads, d_out=size.d_out, causal=True, projection="linear", seed=100
    )


class _Pictures:
    """Knows when a trace is fully on screen: shown, and every view it changed repainted.

    `wait_until` runs a real event loop that checks after each paint, so the UI thread sleeps
    in Qt (and releases the GIL to the engine thread) as it does in use; a busy loop of
    processEvents() would starve the engine thread and measure itself.
    """

    def __init__(self, window: object) -> None:
        from PySide6.QtCore import QEvent, QObject

        pictures = self

        class Filter(QObject):
            def eventFilter(self, obj: object, event: object) -> bool:
                if event.type() == QEvent.Type.Paint and obj in pictures.pending:
                    pictures.pending.discard(obj)
                    pictures.check()
                return False

        self.views = list(window.board.views.values())
        self.drawn = {view: view.plot.matrix for view in self.views}
        self.pending: set = set()
        self.seed: int | None = None
        self.condition = None
        self.loop = None
        self.filter = Filter()
        for view in self.views:
            view.viewport().installEventFilter(self.filter)
        window.traceShown.connect(self._shown)

    def _shown(self, trace: object) -> None:
        # Views whose matrix was replaced repaint; one left alone (the mask on a seed move) not.
        changed = [view for view in self.views if view.plot.matrix is not self.drawn[view]]
        self.drawn = {view: view.plot.matrix for view in self.views}
        self.pending = {view.viewport() for view in changed}
        self.seed = trace.config.seed
        self.check()

    def on_screen(self, seed: int) -> bool:
        return self.seed == seed and not self.pending

    def check(self) -> None:
        if self.loop is not None and self.condition():
            self.loop.quit()

    def wait_until(self, condition, timeout_ms: int = 120_000) -> None:
        from PySide6.QtCore import QEventLoop, QTimer

        self.condition = condition
        if condition():
            return
        self.loop = QEventLoop()
        QTimer.singleShot(timeout_ms, self.loop.quit)
        self.loop.exec()
        self.loop = None
        if not condition():
            raise TimeoutError("no picture")


def measure_latency(size: Size, changes: int, width: int = 1500, height: int = 940) -> dict:
    """Seed changes typed into the spin box, each timed until every heatmap it changed has
    been repainted."""
    from attn_explorer.ui.main_window import MainWindow

    window = MainWindow(_state(size))
    window.resize(width, height)
    window.show()
    engine_ms: list[float] = []
    window.bridge.computed.connect(lambda result: engine_ms.append(result.seconds * 1e3))
    pictures = _Pictures(window)
    pictures.wait_until(lambda: window.trace is not None and not pictures.pending)
    latencies: list[float] = []
    spin = window.controls.seed.spin
    for i in range(changes + 5):
        target = 1000 + i
        start = time.perf_counter()
        spin.setValue(target)
        pictures.wait_until(lambda t=target: pictures.on_screen(t))
        elapsed = (time.perf_counter() - start) * 1e3
        if i >= 5:  # warm-up: first draws create caches
            latencies.append(elapsed)
    trace = window.trace
    window.doc.undo_stack.setClean()
    window.close()
    return {
        "latency_ms": latencies,
        "engine_ms": engine_ms[-changes:],
        "trace": trace,
    }


def matplotlib_ms(trace: object, repeats: int) -> float:
    """The same seven matrices with matplotlib on an Agg canvas: imshow, colour bar, ticks."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    names = ["masked_scores", "mask", "weights", "queries", "keys", "values", "context"]
    q, k = list(trace.q_tokens), list(trace.k_tokens)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        figure = Figure(figsize=(15, 9.4), dpi=100)
        for index, name in enumerate(names):
            axes = figure.add_subplot(2, 4, index + 1)
            matrix = trace.matrix(name, 0).astype(float)
            image = axes.imshow(matrix, cmap="RdBu_r" if name != "weights" else "Blues")
            figure.colorbar(image, ax=axes)
            axes.set_yticks(range(matrix.shape[0]), q if matrix.shape[0] == len(q) else None)
            cols = k if matrix.shape[1] == len(k) else [str(i + 1) for i in range(matrix.shape[1])]
            axes.set_xticks(range(matrix.shape[1]), cols, rotation=90)
            axes.set_title(name)
        figure.canvas.draw()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def run_latency(sizes: tuple[Size, ...], changes: int) -> list[dict]:
    from attn_explorer.ui.app import create_app, quiet_offscreen_notices

    quiet_offscreen_notices(create_app(["attn-explorer-bench"]))
    rows = []
    for size in sizes:
        n = changes if size.tokens <= 256 else max(changes, 100)
        measured = measure_latency(size, n)
        latency = measured["latency_ms"]
        mpl = matplotlib_ms(measured["trace"], 3 if size.tokens >= 256 else 5)
        row = {
            "size": asdict(size),
            "changes": len(latency),
            "latency_p50_ms": statistics.median(latency),
            "latency_p95_ms": percentile(latency, 95),
            "latency_max_ms": max(latency),
            "engine_p50_ms": statistics.median(measured["engine_ms"]),
            "matplotlib_ms": mpl,
            "speedup_vs_matplotlib": mpl / statistics.median(latency),
            "meets_target": percentile(latency, 95) <= size.target_ms,
        }
        rows.append(row)
        print(_row_text(size, row), flush=True)
    return rows


def _row_text(size: Size, row: dict) -> str:
    return (
        f"{size.label:<22} {row['engine_p50_ms']:>9.1f} {row['latency_p50_ms']:>9.1f} "
        f"{row['latency_p95_ms']:>9.1f} {row['latency_max_ms']:>9.1f} {size.target_ms:>8.0f} "
        f"{'yes' if row['meets_target'] else 'NO':>5} {row['matplotlib_ms']:>10.0f} "
        f"{row['speedup_vs_matplotlib']:>8.0f}×"
    )


HEADER = (
    f"{'size':<22} {'engine':>9} {'p50':>9} {'p95':>9} {'max':>9} {'target':>8} {'met':>5} "
    f"{'matplotlib':>10} {'faster':>9}\n"
    f"{'':<22} {'ms':>9} {'ms':>9} {'ms':>9} {'ms':>9} {'p95 ms':>8} {'':>5} {'ms':>10}"
)


def run_burst(size: Size, changes: int = 1000, seconds: float = 1.0) -> dict:
    """`changes` seed changes sent by a timer over `seconds`; the event loop's longest stall,
    and how long until the last change's picture is on screen."""
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer

    from attn_explorer.engine import compute
    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.main_window import MainWindow

    app = create_app(["attn-explorer-bench"])
    window = MainWindow(_state(size))
    window.resize(1500, 940)
    window.show()
    while window.trace is None:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    # Let the first picture be painted before the clock starts: the window's first paint (fonts,
    # text layouts, 50-90 ms on this host) is startup's cost, reported by --startup, not a stall
    # that the burst caused.
    settle = QElapsedTimer()
    settle.start()
    while settle.elapsed() < 300:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    clock = QElapsedTimer()
    ticks: list[int] = []
    heartbeat = QTimer()
    heartbeat.setInterval(2)
    heartbeat.timeout.connect(lambda: ticks.append(clock.elapsed()))
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
    clock.start()
    heartbeat.start()
    driver.start()
    final_seed = 2000 + changes - 1
    while not (
        sent["n"] >= changes and window.trace.config.seed == final_seed and not window.bridge.busy
    ):
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    app.processEvents()
    heartbeat.stop()
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
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
        "final_picture_equals_compute": equal,
    }
    window.doc.undo_stack.setClean()
    window.close()
    return result


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
        f"import json; from benchmarks.bench import run_soak; print(json.dumps(run_soak({edits})))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
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


def run_startup(repeats: int = 3) -> dict:
    """A fresh process each time: time to the window on screen and to the first picture."""
    shown, first = [], []
    for _ in range(repeats):
        start = time.time()
        done = subprocess.run(
            [sys.executable, "-m", "attn_explorer", "--report-startup"],
            capture_output=True,
            text=True,
            timeout=120,
            env=dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen")),
        )
        times = dict(
            line.split("=", 1) for line in done.stdout.splitlines() if line.startswith("startup.")
        )
        shown.append(float(times["startup.window_shown"]) - start)
        first.append(float(times["startup.first_picture"]) - start)
    return {
        "window_shown_s": statistics.median(shown),
        "first_picture_s": statistics.median(first),
        "target_window_s": 1.0,
        "target_first_picture_s": 2.5,
        "bytecode_cached": _bytecode_cached(),
    }


def _bytecode_cached() -> bool:
    """Whether the package's modules start from cached bytecode. Where none can be written
    (PYTHONDONTWRITEBYTECODE with an editable install), every start compiles them again."""
    import importlib.util

    import attn_explorer.ui.main_window as module

    return Path(importlib.util.cache_from_source(module.__file__)).exists()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__)
    parser.add_argument("--changes", type=int, default=100, help="control changes per size")
    parser.add_argument(
        "--sizes", default="6,64,256,1024", help="token counts to measure (default all four)"
    )
    parser.add_argument("--burst", action="store_true", help="also run the 1000-change burst")
    parser.add_argument("--soak", type=int, default=0, metavar="N", help="also make N random edits")
    parser.add_argument("--startup", action="store_true", help="also time startup")
    parser.add_argument("--json", default="bench-results.json", help="where to write the figures")
    args = parser.parse_args(argv)
    wanted = {int(t) for t in args.sizes.split(",") if t.strip()}
    sizes = tuple(s for s in SIZES if s.tokens in wanted)
    report: dict[str, object] = {"machine": machine(), "when": time.strftime("%Y-%m-%d %H:%M")}
    print(
        f"attn_explorer benchmark — {report['machine']['cpu']}, "
        f"{report['machine']['cores']} cores, torch {report['machine']['torch']}, "
        f"Qt platform {report['machine']['qt_platform']}\n"
    )
    if sizes:
        print(HEADER)
        report["latency"] = run_latency(sizes, args.changes)
    if args.burst:
        report["burst"] = [run_burst(s) for s in sizes[:2] or SIZES[:1]]
        for row in report["burst"]:
            print(
                f"\nburst {row['changes']} changes at {row['size']['tokens']} tokens, sent in "
                f"{row['seconds_to_send']:.2f} s: {row['computations']} computations, "
                f"last picture after {row['seconds_to_final_picture']:.2f} s, longest "
                f"event-loop stall {row['longest_stall_ms']} ms, final picture equals compute(): "
                f"{row['final_picture_equals_compute']}"
            )
    if args.soak:
        report["soak"] = run_soak_fresh(args.soak)
        soak = report["soak"]
        print(
            f"\nsoak {soak['edits']} edits: resident memory {soak['memory_mb'][0][1]:.0f} → "
            f"{soak['memory_mb'][-1][1]:.0f} MB; growth after {soak['warm_up_edits']} edits of "
            f"warm-up {soak['growth_after_warmup_mb']:.1f} MB, at rest "
            f"{soak['growth_at_rest_after_warmup_mb']:.1f} MB; "
            f"Qt warnings: {len(soak['qt_warnings'])}"
        )
    if args.startup:
        report["startup"] = run_startup()
        s = report["startup"]
        print(
            f"\nstartup: window shown {s['window_shown_s']:.2f} s (target 1.0), first picture "
            f"{s['first_picture_s']:.2f} s (target 2.5)"
        )
        if not s["bytecode_cached"]:
            print(
                "  (no cached bytecode: each start compiled the package's modules, as where "
                "PYTHONDONTWRITEBYTECODE is set; a usual install caches them on first start)"
            )
    Path(args.json).write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
