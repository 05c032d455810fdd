"""The window's thread on a seed move, counted in instructions (callgrind): from the engine's
result arriving to the last changed view's paint event, as the latency benchmark times it,
and the rest of the move (that last paint, the request of the next seed).

Wall-clock figures on a shared host move by a third from run to run; instruction counts
move by a fraction of a percent, so a change of a few hundred thousand instructions a move
(0.1 ms) shows. The window runs under valgrind (some 40 s at 6 tokens), instrumented only
during the timed moves; each move is cut at two marks the window's thread passes: the
result's signal (`QCoreApplication.applicationPid`, called for it) and the benchmark's
"every changed view painted" (`QLibraryInfo.version`). Needs valgrind; prints, never asserts.
Run: `python -m benchmarks.ui_path [--tokens 6] [--moves 20] [--keep FOLDER]`; with `--keep`
the per-segment files stay in FOLDER, e.g. `callgrind_annotate --inclusive=yes FILE` for one
move's functions (the `*-01` files are the window's thread).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RESULT_MARK = "QCoreApplication::applicationPid()"
PAINTED_MARK = "QLibraryInfo::version()"


def _callgrind_control(*args: str) -> None:
    subprocess.run(["callgrind_control", *args, str(os.getpid())], stdout=subprocess.DEVNULL)


def run_window(tokens: int, moves: int) -> None:
    """Inside valgrind: the benchmark's window, seed moves with the marks, instrumented."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication, QLibraryInfo

    from attn_explorer.ui.app import create_app, quiet_offscreen_notices
    from attn_explorer.ui.main_window import MainWindow
    from benchmarks import latency

    size = next(s for s in latency.SIZES if s.tokens == tokens)
    quiet_offscreen_notices(create_app(["attn-explorer-ui-path"]))
    window = MainWindow(latency.state_of(size))
    window.resize(1500, 940)
    window.show()
    pictures = latency._Pictures(window)
    pictures.wait_until(lambda: window.trace is not None and not pictures.pending)
    latency.freeze_as_the_app_does()
    spin = window.controls.seed.spin
    for seed in range(500, 510):  # warm-up: first draws create caches
        spin.setValue(seed)
        pictures.wait_until(lambda s=seed: pictures.on_screen(s))
    window.bridge.computed.connect(lambda _result: QCoreApplication.applicationPid())
    check = pictures.check

    def marked_check() -> None:
        if pictures.seed is not None and pictures.seed >= 1000 and not pictures.pending:
            QLibraryInfo.version()
        check()

    pictures.check = marked_check
    _callgrind_control("--zero")
    _callgrind_control("--instr=on")
    for seed in range(1000, 1000 + moves):
        spin.setValue(seed)
        pictures.wait_until(lambda s=seed: pictures.on_screen(s))
    _callgrind_control("--instr=off")
    window.doc.undo_stack.setClean()
    window.close()
    os._exit(0)  # nothing after the count: the interpreter's exit under valgrind is slow


def _segments(folder: Path) -> tuple[list[int], list[int]]:
    """The window's thread's instructions per segment, by the mark that ended it."""
    to_painted, rest = [], []
    for path in folder.glob("callgrind.out.*.*-01"):  # thread 1: the window's
        text = path.read_text(errors="replace")
        trigger = re.search(r"^desc: Trigger: (.*)$", text, re.M)
        totals = re.search(r"^totals: (\d+)", text, re.M)
        if trigger is None or totals is None:
            continue
        if PAINTED_MARK in trigger[1]:
            to_painted.append(int(totals[1]))
        elif RESULT_MARK in trigger[1]:
            rest.append(int(totals[1]))
    return to_painted, rest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=6, choices=(6, 64, 256, 1024))
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument(
        "--keep",
        type=Path,
        metavar="FOLDER",
        help="keep valgrind's callgrind.out files in FOLDER (for callgrind_annotate)",
    )
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        run_window(args.tokens, args.moves)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is needed (apt-get install valgrind)")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        folder = args.keep.resolve()
        if any(folder.glob("callgrind.out.*")):  # another run's segments would be counted
            sys.exit(f"{folder} already holds callgrind files: give an empty folder")
    else:
        folder = Path(tempfile.mkdtemp(prefix="ui-path-"))
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--separate-threads=yes",
        f"--dump-before={RESULT_MARK}",
        f"--dump-before={PAINTED_MARK}",
        sys.executable,
        "-m",
        "benchmarks.ui_path",
        "--inner",
        f"--tokens={args.tokens}",
        f"--moves={args.moves}",
    ]
    root = Path(__file__).resolve().parent.parent
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
    }
    subprocess.run(
        command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    to_painted, rest = _segments(folder)
    if args.keep is None:
        shutil.rmtree(folder, ignore_errors=True)
    if not to_painted:
        sys.exit("no move was counted (valgrind's output had no marks)")
    print(
        f"{args.tokens} tokens, {len(to_painted)} seed moves, the window's thread in M "
        "instructions (median, min-max):"
    )
    for name, counts in (("result -> views painted", to_painted), ("rest of the move", rest)):
        if counts:
            print(
                f"  {name:<24} {statistics.median(counts) / 1e6:7.2f}  "
                f"({min(counts) / 1e6:.2f}-{max(counts) / 1e6:.2f})"
            )
    # The mean of whole moves varies least from run to run (a move's own gc pass or timer
    # falls in one segment or the other).
    whole = (sum(to_painted) + sum(rest)) / len(to_painted)
    print(f"  {'whole move (mean)':<24} {whole / 1e6:7.2f}")


if __name__ == "__main__":
    main()
