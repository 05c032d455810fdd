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

The latency and its matplotlib comparison are in `benchmarks/latency.py`, the burst and the
soak in `benchmarks/soak.py`; this module times startup and prints the report.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.latency import HEADER, SIZES, run_latency
from benchmarks.soak import run_burst, run_soak_fresh


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
