"""The pass after a colour bar widened: the burst's longest stall at 64 tokens, made to happen.

In a burst of seed changes a colour bar widens now and then for a label it had not shown
("-0.75" after "-0.6"), and the paint that follows holds a view laid out anew. Which seeds of
a burst get computed depends on timing, so a burst may widen no bar at all. This script makes
the same move again and again: the window at 64 tokens (1500 × 940), the seed set from one
whose scores bar writes narrow labels to one whose labels are wider, with the scores bar
narrowed back before each move that is to widen it; in between, the same move with the bar
already wide. For each it prints the most CPU the window thread spent between two beats of a
2 ms timer (the stall the burst reports, without the waits for a core) and how many views
were painted whole. Figures are printed, never asserted.
Run: `python -m benchmarks.widened_bar [--moves 12] [--load N]`.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import time


def measure(moves: int) -> dict[str, list]:
    from PySide6.QtCore import QElapsedTimer, QEvent, QEventLoop, QObject, QTimer

    from attn_explorer.ui.app import create_app
    from attn_explorer.ui.main_window import MainWindow
    from benchmarks.latency import SIZES, freeze_as_the_app_does, state_of

    app = create_app(["attn-explorer-bench"])
    window = MainWindow(state_of(SIZES[1]))  # 64 tokens × 4 heads
    window.resize(1500, 940)
    window.show()

    def spin(ms: int) -> None:
        clock = QElapsedTimer()
        clock.start()
        while clock.elapsed() < ms:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)

    def settle() -> None:
        spin(30)
        doc = window.doc
        while window.trace is None or window.bridge.busy or window.trace.config != doc.config():
            spin(10)
        spin(120)  # the pass, and the re-layouts it sets off

    settle()
    freeze_as_the_app_does()
    bar = window.board.views["scores"].plot.colorbar
    widths = {}  # the width each seed's scores labels ask of the bar
    for seed in range(2000, 2030):
        window.controls.seed.spin.setValue(seed)
        settle()
        widths[seed] = bar._width_for(text for _, text in bar.ticks)
    narrow = min(widths, key=widths.__getitem__)
    wide = next(seed for seed, width in widths.items() if width > widths[narrow])

    class Whole(QObject):
        count = 0

        def eventFilter(self, obj: QObject, event: QEvent) -> bool:
            if event.type() == QEvent.Type.Paint and event.rect() == obj.rect():
                Whole.count += 1
            return False

    whole = Whole()
    for view in window.board.views.values():
        view.viewport().installEventFilter(whole)
    beats: list[float] = []
    heartbeat = QTimer()
    heartbeat.setInterval(2)
    heartbeat.timeout.connect(lambda: beats.append(time.thread_time()))
    heartbeat.start()

    def move(seed: int) -> tuple[float, int]:
        beats.clear()
        beats.append(time.thread_time())
        Whole.count = 0
        window.controls.seed.spin.setValue(seed)
        settle()
        return max(b - a for a, b in itertools.pairwise(beats)) * 1000, Whole.count

    results: dict[str, list] = {"widens": [], "widens nothing": [], "seeds": [narrow, wide]}
    for _ in range(moves):
        for widens in (True, False):
            move(narrow)
            if widens:  # the bar as narrow as the narrow seed's labels, the row shared for it
                bar.fit_labels()
                window.board._share_width()
                spin(150)
            results["widens" if widens else "widens nothing"].append(move(wide))
    heartbeat.stop()
    window.doc.undo_stack.setClean()
    window.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--load", type=int, default=0, help="N plain CPU loops beside")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from benchmarks.load import busy, host_load

    print(f"host load average before: {host_load()}; {args.load} loop(s) of ours")
    with busy(args.load):
        results = measure(args.moves)
    narrow, wide = results.pop("seeds")
    print(f"seed {narrow} (narrow labels) to seed {wide} (wider), {args.moves} times each way")
    for name, runs in results.items():
        cpu = sorted(ms for ms, _ in runs)
        painted = sorted(n for _, n in runs)
        print(
            f"a move that {name}: most CPU between beats p50 {statistics.median(cpu):.1f} ms "
            f"(min {cpu[0]:.1f}, max {cpu[-1]:.1f}); views painted whole {painted}"
        )


if __name__ == "__main__":
    main()
