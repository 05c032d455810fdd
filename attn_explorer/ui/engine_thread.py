"""Runs the engine on one worker QThread: the newest config wins, stale results are dropped.

At most one computation is in flight. A request made while the worker is busy replaces any
earlier pending request, so a burst of slider moves costs one computation for the move being
computed plus one for the newest; everything in between is never computed. Every request
gets a generation number, and a result whose generation is older than the newest request is
never delivered (the napari / ndv pattern). The UI thread never imports or runs torch.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThread, QTimer, Signal, Slot

from attn_explorer.engine import AttentionConfig, ConfigError, Trace
from attn_explorer.engine.memory import release_freed_memory
from attn_explorer.text.problems import problem_text
from attn_explorer.ui.i18n import tr as _tr

if TYPE_CHECKING:
    from attn_explorer.engine.buffers import BufferPool
    from attn_explorer.engine.threads import ThreadChooser

# After the last trace is dropped, how long the engine thread waits before handing freed
# memory back to the system (so a slider drag trims once, when it pauses).
TRIM_DELAY_MS = 1000

# A trace the window no longer shows is handed to the engine thread with the next request,
# which wakes that thread anyway, or after this long without one. Handed over at once, from
# the middle of drawing the new trace, it woke the engine thread there: its slot and the
# trace's freeing took the interpreter lock, and the drawing waited for it (on a busy
# two-core machine, under cProfile, 5 ms of every 6-token change went to that one emit).
RELEASE_IDLE_MS = 250

# A result that arrives with a newer request already waiting (a burst: a drag, a held arrow
# key, a scripted sweep) holds that request this long before the engine starts it, when
# the result took less than this to compute. Computed back to back, a small trace came
# every half millisecond, faster than the window can draw one: the engine thread then only
# took the interpreter lock and a core from the window's thread, which stalled while the
# host's other programs held the other core. A single change, with nothing waiting, is
# computed at once; a big trace, longer than this to compute, is not held either, so the
# window draws one while the engine computes the next.
BURST_HOLD_MS = 8


_startup_frozen = False  # the objects alive at the first result are set aside now
_thawed = False  # they were handed back once: collect before setting them aside again
_spent = False  # a window closed: the objects stay with the collector for the process


def freeze_startup_objects() -> None:
    """Set the objects made at startup aside from Python's cyclic garbage collector.

    By the first computation the window is built and torch is imported: some 220,000
    objects that live as long as the process. A full collection walks all of them, about
    150 ms of CPU on the busy two-core machine, holding the interpreter lock, so the window
    stalls (one comes now and then as the moves allocate). Frozen, they are never walked
    again; a collection looks at what was made since. Reference counting still frees a
    frozen object, but a cycle among them stays: see `thaw_startup_objects`. Called on the
    UI thread as a result arrives, so after the deletions a language change queued before
    asking for it.
    """
    global _startup_frozen
    if not _startup_frozen and not _spent:
        _startup_frozen = True
        if _thawed:
            gc.collect()  # what was discarded since the thaw, before it is set aside
        gc.freeze()


def thaw_startup_objects(again: bool = True) -> None:
    """Hand the frozen objects back to the collector: a window is discarding pieces built
    before the freeze (it closes, or a language change replaces its views).

    The window, its board and pyqtgraph's items are held in cycles (the items and their
    views, Python attributes of Qt objects) that only the collector frees, and it never
    walks frozen objects: frozen, a closed window and its traces stayed alive for the rest
    of the process, and so did the views a language change replaced. With `again` (the
    window goes on), the next result sets the objects aside again, after one full
    collection has freed them. A closing window (`again` False) leaves them to the
    collector for the rest of the process: the app ends with its window, and where
    another window follows (the tests build hundreds), a full collection after each close
    would cost more than the freeze saves.
    """
    global _startup_frozen, _thawed, _spent
    if _startup_frozen:
        _startup_frozen = False
        gc.unfreeze()
    _thawed = True  # before the first freeze too: what was discarded is collected first
    if not again:
        _spent = True


@dataclass(frozen=True)
class Result:
    """A delivered computation: its generation, its trace, how long the engine took and on
    how many kernel threads."""

    generation: int
    trace: Trace
    seconds: float
    threads: int = 1


@dataclass(frozen=True)
class Failure:
    generation: int
    message: str
    field: str | None


class _Worker(QObject):
    """Lives on the engine thread; computes what it is handed and reports back."""

    done = Signal(object)  # Result | Failure

    def __init__(self) -> None:
        super().__init__()
        self._trim_timer: QTimer | None = None
        self.pool: BufferPool | None = None  # made on the engine thread, with torch
        self.chooser: ThreadChooser | None = None  # likewise: it asks torch for its default
        self.trims = 0  # how often freed memory was handed back (read by the tests)

    @Slot(object)
    def drop(self, _traces: object) -> None:
        """Receives traces the window no longer shows, so that freeing their arrays (hundreds of
        megabytes for 1024 tokens × 16 heads) happens on this thread, not the UI's.

        They are freed when this slot's event is, just after it returns; the memory goes
        back to the system once the drops pause.
        """
        if self._trim_timer is None:  # made here, so that it lives on the engine thread
            self._trim_timer = QTimer(self)
            self._trim_timer.setSingleShot(True)
            self._trim_timer.setInterval(TRIM_DELAY_MS)
            self._trim_timer.timeout.connect(self._trim)
        self._trim_timer.start()

    @Slot()
    def _trim(self) -> None:
        if release_freed_memory():
            self.trims += 1

    @Slot(int, object, bool)
    def run(self, generation: int, config: AttentionConfig, compare: bool) -> None:
        from attn_explorer.engine.attention import compute
        from attn_explorer.engine.buffers import BufferPool
        from attn_explorer.engine.ready import take as take_ready
        from attn_explorer.engine.threads import ThreadChooser, kernel_threads

        if self.pool is None:
            self.pool = BufferPool()
            self.chooser = ThreadChooser()
        threads = self.chooser.choose(config.attention_cells)
        ready = take_ready(config, compare)  # computed before the click (engine/ready.py)
        if ready is not None:
            self.done.emit(Result(generation, ready[0], ready[1], threads))
            return
        start = time.perf_counter()
        try:
            with kernel_threads(threads):
                trace = compute(config, compare_mask_methods=compare, pool=self.pool)
        except ConfigError as error:
            self.done.emit(Failure(generation, problem_text(error), error.field))
        except Exception as error:  # the window must survive any engine bug, and say so
            message = _tr("Engine error: {0}: {1}").format(type(error).__name__, error)
            self.done.emit(Failure(generation, message, None))
        else:
            seconds = time.perf_counter() - start
            self.chooser.measured(config.attention_cells, seconds, threads)
            self.done.emit(Result(generation, trace, seconds, threads))


class EngineBridge(QObject):
    """The UI's handle on the engine thread. Create once, `request()` often, `shutdown()` once."""

    computed = Signal(object)  # Result, only for the newest request
    failed = Signal(object)  # Failure, only for the newest request
    _submit = Signal(int, object, bool)
    _drop = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread = QThread()
        self._thread.setObjectName("attn-engine")
        self._worker = _Worker()
        self._worker.moveToThread(self._thread)
        self._submit.connect(self._worker.run)
        self._drop.connect(self._worker.drop)
        self._worker.done.connect(self._on_done)
        self._thread.finished.connect(self._worker.deleteLater)
        self._generation = 0
        self._pending: tuple[int, AttentionConfig, bool] | None = None
        self._in_flight = False
        self.computations = 0  # how many configs the worker was actually given
        self._released: list[Trace] = []  # to be freed on the engine thread (`release`)
        self._release_timer = QTimer(self)
        self._release_timer.setSingleShot(True)
        self._release_timer.setInterval(RELEASE_IDLE_MS)
        self._release_timer.timeout.connect(self._hand_over)
        self._held = False  # a burst's newest request waits (`BURST_HOLD_MS`)
        self._hold_timer = QTimer(self)
        self._hold_timer.setSingleShot(True)
        self._hold_timer.timeout.connect(self._end_hold)
        self._thread.start()

    @property
    def generation(self) -> int:
        """The generation of the newest request."""
        return self._generation

    @property
    def busy(self) -> bool:
        return self._in_flight or self._pending is not None

    def request(self, config: AttentionConfig, compare_mask_methods: bool = True) -> int:
        """Ask for `config` to be computed; returns its generation.

        `compare_mask_methods` asks the engine for both masking methods (the step-through's
        comparison), at the price of a second softmax.
        """
        self._generation += 1
        self._pending = (self._generation, config, compare_mask_methods)
        if not self._in_flight and not self._held:
            self._dispatch()
        return self._generation

    def release(self, trace: Trace | None) -> None:
        """Hand a trace that is no longer shown to the engine thread to be freed there: with
        the next request, or after `RELEASE_IDLE_MS` without one (see there)."""
        if trace is not None and self._thread.isRunning():
            self._released.append(trace)
            if not self._release_timer.isActive():
                self._release_timer.start()

    def _hand_over(self) -> None:
        """Send the released traces to the engine thread, in one event."""
        self._release_timer.stop()
        if self._released and self._thread.isRunning():
            released, self._released = self._released, []
            self._drop.emit(released)

    def cancel_pending(self) -> None:
        """Forget the newest request: its result, if one is in flight, will not be shown."""
        self._pending = None
        self._generation += 1

    def _dispatch(self) -> None:
        if self._pending is None or not self._thread.isRunning():
            return
        generation, config, compare = self._pending
        self._pending = None
        self._in_flight = True
        self.computations += 1
        self._hand_over()  # freed before the computation, whose buffers may reuse them
        self._submit.emit(generation, config, compare)

    def _end_hold(self) -> None:
        self._held = False
        self._dispatch()

    @Slot(object)
    def _on_done(self, outcome: Result | Failure) -> None:
        self._in_flight = False
        small = isinstance(outcome, Result) and outcome.seconds * 1e3 < BURST_HOLD_MS
        if self._pending is not None and small:
            self._held = True
            self._hold_timer.start(BURST_HOLD_MS)
        else:
            self._dispatch()
        if isinstance(outcome, Result):
            freeze_startup_objects()  # by the first result, torch is imported
        if outcome.generation != self._generation:
            return  # stale: a newer request exists
        if isinstance(outcome, Result):
            self.computed.emit(outcome)
        else:
            self.failed.emit(outcome)

    def shutdown(self) -> None:
        """Stop the engine thread, waiting for a running computation to finish. Its window is
        closing: the objects frozen with it go back to the collector, which frees it."""
        thaw_startup_objects(again=False)
        self._pending = None
        self._release_timer.stop()
        self._hold_timer.stop()
        self._held = False
        self._released = []
        if self._thread.isRunning():
            self._thread.quit()
            self._thread.wait()

    def is_running(self) -> bool:
        return self._thread.isRunning()
