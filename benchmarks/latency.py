"""The latency of the live window against matplotlib, for four sizes of the computation.

A seed typed into its spin box is timed until every heatmap it changed has been repainted:
the engine thread, the views' update and the paint. matplotlib draws the same seven matrices
(imshow, colour bar, tick labels, Agg canvas), which is what a notebook user has.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections import Counter
from dataclasses import asdict, dataclass, replace


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


# p95 targets (issue 29), quiet and under one busy core: one 120 Hz frame at the tutorials'
# size, one 60 Hz frame at 64 tokens.
SIZES = (
    Size(6, 3, 2, 2, 8.3),
    Size(64, 16, 4, 16, 16),
    Size(256, 64, 8, 64, 50),
    Size(1024, 64, 16, 64, 150),
)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def state_of(size: Size):
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
                # Painted, or hidden before its paint (the arrangement gives the Q, K, V row's
                # room to the scores and weights once the first picture is in).
                kinds = (QEvent.Type.Paint, QEvent.Type.Hide)
                if event.type() in kinds and obj in pictures.pending:
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
        # A view the arrangement hid (the Q, K, V row gives way to the scores and weights where
        # the board is short of room) gets its matrix but no paint: it is not waited for.
        changed = [
            view
            for view in self.views
            if view.plot.matrix is not self.drawn[view] and view.isVisible()
        ]
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


def freeze_as_the_app_does() -> None:
    """Set the objects alive at a window's first picture aside from the garbage collector.

    The app runs one window a process and sets its startup objects aside at the first result
    (`ui/engine_thread.py`); a closed window hands them back to the collector for the rest of
    the process. The benchmark builds a window per size and condition, so without this every
    window after the first ran as a learner's never does: a full collection walked the whole
    heap (280 ms of the window's thread in a 64-token burst).
    """
    gc.collect()
    gc.freeze()


def thaw_after_close() -> None:
    """What `freeze_as_the_app_does` set aside goes back to the collector with its window."""
    gc.unfreeze()
    gc.collect()


def measure_latency(size: Size, changes: int, width: int = 1500, height: int = 940) -> dict:
    """Seed changes typed into the spin box, each timed until every heatmap it changed has
    been repainted."""
    from attn_explorer.ui.main_window import MainWindow

    window = MainWindow(state_of(size))
    window.resize(width, height)
    window.show()
    engine_ms: list[float] = []
    threads: list[int] = []

    def computed(result: object) -> None:
        engine_ms.append(result.seconds * 1e3)
        threads.append(result.threads)

    window.bridge.computed.connect(computed)
    pictures = _Pictures(window)
    pictures.wait_until(lambda: window.trace is not None and not pictures.pending)
    freeze_as_the_app_does()
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
    thaw_after_close()
    return {
        "latency_ms": latencies,
        "engine_ms": engine_ms[-changes:],
        "threads": threads[-changes:],
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


def summary(size: Size, latency: list[float], engine: list[float]) -> dict:
    """The figures of one size under one condition, from every change measured."""
    return {
        "size": asdict(size),
        "changes": len(latency),
        "latency_p50_ms": statistics.median(latency),
        "latency_p95_ms": percentile(latency, 95),
        "latency_max_ms": max(latency),
        "engine_p50_ms": statistics.median(engine),
        "engine_p95_ms": percentile(engine, 95),
        "meets_target": percentile(latency, 95) <= size.target_ms,
    }


def run_latency(
    sizes: tuple[Size, ...],
    changes: int,
    conditions: list[tuple[str, int]] | None = None,
    rounds: int = 1,
    with_matplotlib: bool = True,
) -> dict[str, list[dict]]:
    """Latency of every size under every condition (name, busy loops), interleaved.

    Each round measures each size once per condition, one after the other, so that a change
    in the host's own load falls on every condition alike; a condition's figures merge its
    rounds. matplotlib is timed once per size, on the quiet side.
    """
    from attn_explorer.ui.app import create_app, quiet_offscreen_notices
    from benchmarks.load import busy, engine_threads_for

    quiet_offscreen_notices(create_app(["attn-explorer-bench"]))
    conditions = conditions or [("quiet", 0)]
    measured: dict[str, dict[int, tuple[list[float], list[float]]]] = {
        name: {s.tokens: ([], []) for s in sizes} for name, _ in conditions
    }
    last_trace: dict[int, object] = {}
    threads_used = {name: {s.tokens: Counter() for s in sizes} for name, _ in conditions}
    for _ in range(rounds):
        for size in sizes:
            n = changes if size.tokens <= 256 else max(changes, 100)
            for name, loops in conditions:
                with busy(loops), engine_threads_for(name):
                    one = measure_latency(size, n)
                measured[name][size.tokens][0].extend(one["latency_ms"])
                measured[name][size.tokens][1].extend(one["engine_ms"])
                last_trace[size.tokens] = one["trace"]
                used = {n: one["threads"].count(n) for n in sorted(set(one["threads"]))}
                threads_used[name][size.tokens].update(used)
                print(
                    f"  {name:<8} {size.label:<22} p50 "
                    f"{statistics.median(one['latency_ms']):7.1f}  p95 "
                    f"{percentile(one['latency_ms'], 95):7.1f} ms; kernel threads: {used}",
                    flush=True,
                )
    rows: dict[str, list[dict]] = {}
    for name, _ in conditions:
        rows[name] = [summary(s, *measured[name][s.tokens]) for s in sizes]
        for row, size in zip(rows[name], sizes, strict=True):
            row["kernel_threads"] = dict(threads_used[name][size.tokens])
    if with_matplotlib:
        for row, size in zip(rows[conditions[0][0]], sizes, strict=True):
            mpl = matplotlib_ms(last_trace[size.tokens], 3 if size.tokens >= 256 else 5)
            row["matplotlib_ms"] = mpl
            row["speedup_vs_matplotlib"] = mpl / row["latency_p50_ms"]
    for name, _ in conditions:
        print(f"\n{name}:\n{HEADER}")
        for row, size in zip(rows[name], sizes, strict=True):
            print(_row_text(size, row), flush=True)
    return rows


def _row_text(size: Size, row: dict) -> str:
    return (
        f"{size.label:<22} {row['engine_p50_ms']:>9.1f} {row['latency_p50_ms']:>9.1f} "
        f"{row['latency_p95_ms']:>9.1f} {row['latency_max_ms']:>9.1f} {size.target_ms:>8.4g} "
        f"{'yes' if row['meets_target'] else 'NO':>5} {row.get('matplotlib_ms', 0):>10.0f} "
        f"{row.get('speedup_vs_matplotlib', 0):>8.0f}×"
    )


HEADER = (
    f"{'size':<22} {'engine':>9} {'p50':>9} {'p95':>9} {'max':>9} {'target':>8} {'met':>5} "
    f"{'matplotlib':>10} {'faster':>9}\n"
    f"{'':<22} {'ms':>9} {'ms':>9} {'ms':>9} {'ms':>9} {'p95 ms':>8} {'':>5} {'ms':>10}"
)
