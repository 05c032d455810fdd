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
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.latency import SIZES, run_latency
from benchmarks.load import busy, conditions, host_load, side_by_side
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


def run_startup(repeats: int = 3, bytecode: bool = False) -> dict:
    """A fresh process each time: time to the window on screen (its first paint done, see
    ui/startup_report.py), to the first picture (the
    first paint of the matrices' area with one: the picture saved by an earlier start, a
    restored trace, or the engine's) and to the first computed picture.

    Each run has a cache folder of its own, empty at first. Its first start has no saved
    picture of the matrices' area (the default example's first trace ships with the package,
    so it has a trace to restore once the views are built), and is reported on its own; the
    medians are of the `repeats` starts after it, each of which finds the picture the one
    before saved. `bytecode`: the package's modules start from cached bytecode (a folder of
    the run's own, filled by a start that is not counted), as after a usual install, whatever
    the environment says; otherwise as the environment has it (see `_bytecode_cached`)."""
    shown, first, computed, kinds, painting, cpu = [], [], [], [], [], []
    cache = tempfile.mkdtemp(prefix="attn-explorer-bench-cache-")
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
        XDG_CACHE_HOME=cache,
        ATTN_EXPLORER_TRACE_CACHE="on",
    )
    command = [sys.executable, "-m", "attn_explorer", "--report-startup"]
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(cache) / "bytecode")
        env["XDG_CACHE_HOME"] = str(Path(cache) / "warm-up")  # its picture is not the run's
        subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
        env["XDG_CACHE_HOME"] = cache
    for _ in range(repeats + 1):
        start = time.time()
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        times = dict(
            line.split("=", 1) for line in done.stdout.splitlines() if line.startswith("startup.")
        )
        shown.append(float(times["startup.window_shown"]) - start)
        painting.append(float(times["startup.window_painting"]) - start)
        cpu.append(float(times["startup.window_shown_cpu"]))
        first.append(float(times["startup.first_picture"]) - start)
        computed.append(float(times.get("startup.first_computed", "nan")) - start)
        kinds.append(times.get("startup.picture", "").strip())
    shutil.rmtree(cache, ignore_errors=True)
    return {
        "window_shown_s": statistics.median(shown[1:]),
        "window_painting_s": statistics.median(painting[1:]),
        "window_shown_cpu_s": statistics.median(cpu[1:]),
        "first_picture_s": statistics.median(first[1:]),
        "first_computed_s": statistics.median(computed[1:]),
        "first_pictures": " ".join(kinds[1:]),
        "first_start": {
            "window_shown_s": shown[0],
            "first_picture_s": first[0],
            "first_computed_s": computed[0],
            "first_picture": kinds[0],
        },
        "window_shown_all_s": shown,
        "first_picture_all_s": first,
        "target_window_s": 0.5,
        "target_first_picture_s": 1.0,
        "bytecode_cached": bytecode or _bytecode_cached(),
    }


def _startup_text(name: str, s: dict) -> str:
    one = s["first_start"]
    return (
        f"\nstartup, {name} (median of {len(s['window_shown_all_s']) - 1} starts after the "
        f"first): window shown {s['window_shown_s']:.2f} s (target 0.5; its first paint "
        f"began at {s['window_painting_s']:.2f} s; {s['window_shown_cpu_s']:.2f} CPU seconds), "
        f"first picture {s['first_picture_s']:.2f} s (target 1.0; drawn first: "
        f"{s['first_pictures']}), first computed picture {s['first_computed_s']:.2f} s\n"
        "  the first start, no saved picture: "
        f"window shown {one['window_shown_s']:.2f} s, first picture {one['first_picture_s']:.2f}"
        f" s ({one['first_picture']}), first computed picture {one['first_computed_s']:.2f} s"
    )


def _bytecode_cached() -> bool:
    """Whether the package's modules start from cached bytecode. Where none can be written
    (PYTHONDONTWRITEBYTECODE with an editable install), every start compiles them again."""
    import importlib.util

    import attn_explorer.ui.main_window as module

    return Path(importlib.util.cache_from_source(module.__file__)).exists()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench", description=__doc__)
    parser.add_argument(
        "--changes", type=int, default=100, help="control changes per size (0: no latency)"
    )
    parser.add_argument(
        "--sizes", default="6,64,256,1024", help="token counts to measure (default all four)"
    )
    parser.add_argument(
        "--load",
        type=int,
        default=0,
        metavar="N",
        help="also measure everything with N plain CPU loops running, side by side",
    )
    parser.add_argument(
        "--rounds", type=int, default=1, help="repeat each measurement, conditions interleaved"
    )
    parser.add_argument("--no-matplotlib", action="store_true", help="skip the comparison")
    parser.add_argument(
        "--one-thread-too",
        action="store_true",
        help="also measure the latency with the engine held to one kernel thread",
    )
    parser.add_argument("--burst", action="store_true", help="also run the 1000-change burst")
    parser.add_argument("--soak", type=int, default=0, metavar="N", help="also make N random edits")
    parser.add_argument("--startup", action="store_true", help="also time startup")
    parser.add_argument(
        "--startup-bytecode",
        action="store_true",
        help="with --startup: also from cached bytecode, where the environment has none",
    )
    parser.add_argument("--json", default="bench-results.json", help="where to write the figures")
    args = parser.parse_args(argv)
    wanted = {int(t) for t in args.sizes.split(",") if t.strip()}
    sizes = tuple(s for s in SIZES if s.tokens in wanted)
    measured_under = conditions(args.load)
    report: dict[str, object] = {
        "machine": machine(),
        "when": time.strftime("%Y-%m-%d %H:%M"),
        "host_load_before": host_load(),
        "conditions": measured_under,
        "rounds": args.rounds,
    }
    m = report["machine"]
    print(
        f"attn_explorer benchmark — {m['cpu']}, {m['cores']} cores, torch {m['torch']}, "
        f"Qt platform {m['qt_platform']}; host load average before the run "
        f"{report['host_load_before']}; conditions: "
        + ", ".join(name for name, _ in measured_under)
        + f"; {args.rounds} round(s)\n"
    )
    if sizes and args.changes > 0:
        report["latency"] = run_latency(
            sizes,
            args.changes,
            conditions(args.load, args.one_thread_too),
            args.rounds,
            not args.no_matplotlib,
        )
    if args.burst:
        report["burst"] = []
        for _ in range(args.rounds):
            for size in sizes[:2] or SIZES[:1]:
                for name, loops in measured_under:
                    with busy(loops):
                        row = run_burst(size)
                    row["condition"] = name
                    report["burst"].append(row)
                    print(_burst_text(row), flush=True)
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
        report["startup"] = {}
        for name, loops in measured_under:
            with busy(loops):
                report["startup"][name] = s = run_startup(3 * args.rounds)
            print(_startup_text(name, s))
        if not s["bytecode_cached"]:
            print(
                "  (no cached bytecode: each start compiled the package's modules, as where "
                "PYTHONDONTWRITEBYTECODE is set; a usual install caches them on first start)"
            )
            if args.startup_bytecode:
                report["startup_bytecode"] = {}
                for name, loops in measured_under:
                    with busy(loops):
                        report["startup_bytecode"][name] = s = run_startup(
                            3 * args.rounds, bytecode=True
                        )
                    print(_startup_text(f"from cached bytecode, {name}", s))
    print("\n" + summary_table(report, sizes))
    Path(args.json).write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"\nwrote {args.json}")
    return 0


def _burst_text(row: dict) -> str:
    return (
        f"burst, {row['condition']}: {row['changes']} changes at {row['size']['tokens']} tokens, "
        f"sent in {row['seconds_to_send']:.2f} s: {row['computations']} computations, last "
        f"picture after {row['seconds_to_final_picture']:.2f} s, longest event-loop stall "
        f"{row['longest_stall_ms']} ms (target 16), final picture equals compute(): "
        f"{row['final_picture_equals_compute']}"
    )


def summary_table(report: dict, sizes: tuple) -> str:
    """The run's figures as Markdown, each condition side by side (for docs/performance.md)."""
    m = report["machine"]
    names = [name for name, _ in report["conditions"]]
    parts = [
        f"{report['when']}, {m['cpu']}, {m['cores']} cores, Python {m['python']}, torch "
        f"{m['torch']}, PySide6 {m['pyside6']}; host load average before the run "
        f"{report['host_load_before']}; `load N` = N CPU loops of the benchmark's own; "
        f"{report['rounds']} round(s), conditions interleaved."
    ]
    if "latency" in report:
        targets = {s.tokens: s.target_ms for s in sizes}
        parts.append("Latency, slider to pixels:\n\n" + side_by_side(report["latency"], targets))
    if "burst" in report:
        lines = ["| burst of 1,000 changes | " + " | ".join(names) + " |"]
        lines.append("|---|" + "---:|" * len(names))
        for tokens in sorted({row["size"]["tokens"] for row in report["burst"]}):
            cells = []
            for name in names:
                stalls = [
                    row["longest_stall_ms"]
                    for row in report["burst"]
                    if row["condition"] == name and row["size"]["tokens"] == tokens
                ]
                cells.append(" / ".join(f"{x} ms" for x in stalls))
            label = f"longest stall at {tokens} tokens (target 16 ms)"
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    if "startup" in report:
        lines = ["| startup (median) | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        for key, label in (
            ("window_shown_s", "window shown (target 0.5 s)"),
            ("first_picture_s", "first picture, saved or restored (target 1.0 s)"),
            ("first_computed_s", "first computed picture"),
        ):
            cells = [f"{report['startup'][name][key]:.2f} s" for name in names]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        for key, label in (
            ("window_shown_s", "first start, no saved picture: window shown"),
            ("first_picture_s", "first start: first picture (restored trace)"),
        ):
            cells = [f"{report['startup'][name]['first_start'][key]:.2f} s" for name in names]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


if __name__ == "__main__":
    sys.exit(main())
