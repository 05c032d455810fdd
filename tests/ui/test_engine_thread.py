"""The engine thread: newest request wins, and dropped traces are freed there, then trimmed."""

from dataclasses import replace

import numpy as np
import pytest

from attn_explorer.engine import AttentionConfig, compute, preset
from attn_explorer.engine.memory import release_freed_memory
from attn_explorer.ui import engine_thread as bridge_module


@pytest.fixture
def bridge(qapp, monkeypatch):
    monkeypatch.setattr(bridge_module, "TRIM_DELAY_MS", 100)
    b = bridge_module.EngineBridge()
    yield b
    b.shutdown()
    assert not b.is_running()


def test_only_the_newest_of_a_burst_is_delivered(bridge, qtbot):
    config = preset("v1").config
    delivered = []
    bridge.computed.connect(delivered.append)
    with qtbot.waitSignal(
        bridge.computed, timeout=30_000, check_params_cb=lambda r: r.trace.config.seed == 49
    ):
        for seed in range(50):
            bridge.request(replace(config, seed=seed))
    qtbot.waitUntil(lambda: not bridge.busy)
    # Seed 0 went straight to the idle worker; 1 to 48 were replaced while it ran; seed 0's
    # result was stale when it arrived.
    assert [r.trace.config.seed for r in delivered] == [49]
    assert bridge.computations == 2
    assert (
        delivered[-1].trace.context.tolist() == compute(replace(config, seed=49)).context.tolist()
    )


@pytest.mark.skipif(not release_freed_memory(), reason="no malloc_trim in this C library")
def test_a_burst_of_dropped_traces_trims_once_when_it_pauses(bridge, qtbot):
    trace = compute(preset("mha").config)
    for _ in range(20):
        bridge.release(trace)
    qtbot.waitUntil(lambda: bridge._worker.trims == 1, timeout=5_000)
    qtbot.wait(300)
    assert bridge._worker.trims == 1
    bridge.release(trace)
    qtbot.waitUntil(lambda: bridge._worker.trims == 2, timeout=5_000)


def test_the_engine_thread_writes_big_arrays_into_those_of_traces_no_longer_shown(bridge, qtbot):
    """As the window does: show each result, hand the one it replaces back to be freed."""
    rows = tuple((0.1 * (i % 7), 0.2, -0.3 * (i % 3)) for i in range(512))
    config = AttentionConfig(
        tokens=tuple(f"t{i}" for i in range(512)), embeddings=rows, num_heads=2, causal=True
    )
    shown = None
    for seed in range(4):
        with qtbot.waitSignal(bridge.computed, timeout=30_000) as blocker:
            bridge.request(replace(config, seed=seed), compare_mask_methods=False)
        previous, shown = shown, blocker.args[0].trace
        bridge.release(previous)
        del previous, blocker
    qtbot.waitUntil(lambda: bridge._worker.pool.reused >= 3, timeout=5_000)
    np.testing.assert_array_equal(shown.weights, compute(replace(config, seed=3)).weights)


def test_the_objects_of_startup_are_frozen_once_after_the_first_computation(
    bridge, qtbot, monkeypatch
):
    """A full collection of the ~220,000 objects alive once torch is imported takes ~150 ms
    with the interpreter lock held: they are set aside once, never by every new window."""
    frozen = []
    monkeypatch.setattr(bridge_module, "_startup_frozen", False)
    monkeypatch.setattr(bridge_module, "_spent", False)
    monkeypatch.setattr(bridge_module.gc, "freeze", lambda: frozen.append(True))
    with qtbot.waitSignal(bridge.computed, timeout=30_000):
        bridge.request(preset("v1").config)
    with qtbot.waitSignal(bridge.computed, timeout=30_000):
        bridge.request(replace(preset("v1").config, seed=7))
    assert frozen == [True]


@pytest.fixture
def gc_calls(monkeypatch):
    """The collector's freeze, unfreeze and collect, recorded in order instead of run, with
    startup's objects frozen as after the first result."""
    calls = []
    monkeypatch.setattr(bridge_module, "_startup_frozen", True)
    monkeypatch.setattr(bridge_module, "_thawed", False)
    monkeypatch.setattr(bridge_module, "_spent", False)
    for name in ("freeze", "unfreeze", "collect"):
        monkeypatch.setattr(bridge_module.gc, name, lambda *_, name=name: calls.append(name))
    return calls


def test_objects_handed_back_are_collected_before_they_are_set_aside_again(bridge, qtbot, gc_calls):
    """A closing window, or views a language change replaced, are held in cycles the collector
    never walks while frozen: they are handed back, collected, then the rest set aside again."""
    bridge_module.thaw_startup_objects()
    assert gc_calls == ["unfreeze"]
    for seed in (1, 2):
        with qtbot.waitSignal(bridge.computed, timeout=30_000):
            bridge.request(replace(preset("v1").config, seed=seed))
    assert gc_calls == ["unfreeze", "collect", "freeze"]


def test_objects_handed_back_by_a_closing_window_stay_with_the_collector(bridge, qtbot, gc_calls):
    """A closing window hands them back for good: another window's results (the tests build
    hundreds) do not walk them all again to set them aside."""
    bridge_module.thaw_startup_objects(again=False)
    for seed in (1, 2):
        with qtbot.waitSignal(bridge.computed, timeout=30_000):
            bridge.request(replace(preset("v1").config, seed=seed))
    assert gc_calls == ["unfreeze"]


def test_a_result_says_how_many_kernel_threads_computed_it(bridge, qtbot):
    with qtbot.waitSignal(bridge.computed, timeout=30_000) as delivered:
        bridge.request(preset("v1").config)
    assert delivered.args[0].threads == 1  # nothing measured yet: one thread


def test_a_released_trace_goes_to_the_engine_thread_with_the_next_request(bridge, qtbot):
    """Handed over at once, from the middle of drawing the new picture, a released trace
    woke the engine thread there, and the drawing waited for the interpreter lock."""
    config = preset("v1").config
    trace = compute(config)
    handed = []
    bridge._drop.connect(handed.append)  # (emitted on this thread: called at once)
    bridge.release(trace)
    assert handed == []
    bridge.request(config)
    assert handed == [[trace]]
    qtbot.waitUntil(lambda: not bridge.busy, timeout=30_000)
    # No request after it: handed over once the window has been idle for a moment.
    bridge.release(trace)
    assert len(handed) == 1
    qtbot.waitUntil(lambda: len(handed) == 2, timeout=5_000)
    assert handed[1] == [trace]


def test_a_bursts_newest_request_waits_after_a_small_trace_and_a_lone_one_does_not(
    bridge, qtbot, monkeypatch
):
    """Computed back to back, small traces came faster than the window draws them and only
    took a core and the interpreter lock from it: the newest request of a burst waits
    `BURST_HOLD_MS` after a small result; a request with nothing before it goes at once."""
    monkeypatch.setattr(bridge_module, "BURST_HOLD_MS", 400)  # long enough to look inside
    config = preset("v1").config
    with qtbot.waitSignal(bridge.computed, timeout=30_000):
        bridge.request(replace(config, seed=1))
    bridge.request(replace(config, seed=2))
    bridge.request(replace(config, seed=3))  # waits while seed 2 computes
    assert bridge.computations == 2
    qtbot.waitUntil(lambda: not bridge._in_flight, timeout=30_000)  # seed 2's result is in
    assert bridge.computations == 2 and bridge.busy  # seed 3 is held, not yet computing
    with qtbot.waitSignal(
        bridge.computed, timeout=30_000, check_params_cb=lambda r: r.trace.config.seed == 3
    ):
        pass
    assert bridge.computations == 3
    bridge.request(replace(config, seed=4))  # nothing waiting before it: computed at once
    assert bridge.computations == 4


def test_a_trace_longer_than_the_hold_is_followed_by_the_newest_request_at_once(
    bridge, qtbot, monkeypatch
):
    """A big trace is not held: the window draws it while the engine computes the next."""
    monkeypatch.setattr(bridge_module, "BURST_HOLD_MS", 0)  # every trace takes longer
    config = preset("v1").config
    bridge.request(replace(config, seed=1))
    bridge.request(replace(config, seed=2))
    qtbot.waitUntil(lambda: bridge.computations == 2, timeout=30_000)
    assert bridge._in_flight or not bridge.busy  # dispatched as seed 1's result came
