"""The kernel thread count follows what the machine offers now: one thread for short work or a
busy machine, more only for long work on free cores; the count never leaks out of the engine
thread's computation. Big tensors ask for huge pages."""

import os
import threading

import pytest
import torch

from attn_explorer.engine import compute, threads
from attn_explorer.engine.threads import (
    PARALLEL_FROM_MS,
    LoadMeter,
    Machine,
    ThreadChooser,
    choose_threads,
    kernel_threads,
)

LONG = 4 * PARALLEL_FROM_MS  # e.g. 1024 tokens × 16 heads, about 75 ms on one thread
SHORT = PARALLEL_FROM_MS / 4  # e.g. 256 tokens × 8 heads, about 15 ms


@pytest.fixture
def restore_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_work_not_yet_measured_runs_on_one_thread():
    assert choose_threads(None, Machine(cores=8, others_busy=0.0), most=8) == 1


def test_short_work_runs_on_one_thread_even_on_a_quiet_machine():
    """Waking a second thread and its barriers cost more than it saves on ~15 ms of work."""
    assert choose_threads(SHORT, Machine(cores=2, others_busy=0.0), most=2) == 1


def test_long_work_on_a_quiet_two_core_machine_gets_both_cores():
    assert choose_threads(LONG, Machine(cores=2, others_busy=0.0), most=2) == 2


def test_one_busy_core_of_two_leaves_one_thread():
    """The issue's laptop: another program keeps one core busy. Two kernel threads then spin
    for each other while one is descheduled (256 × 8: 180–580 ms instead of 20–57 ms)."""
    assert choose_threads(LONG, Machine(cores=2, others_busy=1.0), most=2) == 1


def test_a_core_is_free_only_when_the_others_leave_three_quarters_of_it():
    assert choose_threads(LONG, Machine(cores=2, others_busy=0.2), most=2) == 2
    assert choose_threads(LONG, Machine(cores=2, others_busy=0.3), most=2) == 1


def test_a_fully_busy_machine_still_computes_on_one_thread():
    assert choose_threads(LONG, Machine(cores=2, others_busy=2.0), most=2) == 1


def test_more_cores_give_as_many_threads_as_are_free_up_to_torchs_default():
    assert choose_threads(LONG, Machine(cores=8, others_busy=3.0), most=8) == 5
    assert choose_threads(LONG, Machine(cores=8, others_busy=0.0), most=4) == 4
    assert choose_threads(LONG, Machine(cores=1, others_busy=0.0), most=4) == 1


class FixedMeter:
    def __init__(self, machine):
        self.machine = machine

    def look(self):
        return self.machine


def test_the_engine_predicts_from_its_own_last_computation():
    chooser = ThreadChooser(FixedMeter(Machine(2, 0.0)), most=2)
    cells = 16 * 1024 * 1024
    assert chooser.choose(cells) == 1  # nothing measured yet
    chooser.measured(cells, seconds=0.075, threads=1)  # 75 ms on one thread: long work
    assert chooser.predicted_ms(cells) == pytest.approx(75.0)
    assert chooser.choose(cells) == 2
    # A quarter of the weights is predicted at a quarter of the time: short, one thread.
    assert chooser.choose(cells // 4) == 1


def test_time_on_two_threads_counts_as_twice_the_work_on_one():
    """An upper bound: a computation stretched by a busy machine never makes the next one
    look cheap enough to be worth no thread."""
    chooser = ThreadChooser(FixedMeter(Machine(2, 0.0)), most=2)
    chooser.measured(1000, seconds=0.030, threads=2)
    assert chooser.predicted_ms(1000) == pytest.approx(60.0)


def test_the_meter_counts_the_other_programs_not_this_process(monkeypatch):
    """Busy time of the machine minus this process's own CPU time, over the wall time."""
    readings = iter([(100.0, 10.0), (101.5, 10.5)])  # machine +1.5 s busy, own +0.5 s
    clock = iter([50.0, 51.0])  # one second apart
    monkeypatch.setattr(threads, "_busy_seconds", lambda: next(readings))
    monkeypatch.setattr(threads.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(threads, "_load_average_others", lambda cores: 0.0)
    meter = LoadMeter()
    meter.cores = 2
    assert meter.look() == Machine(2, 0.0)  # first look: the load average stands in
    assert meter.look() == Machine(2, pytest.approx(1.0))


def test_the_meter_keeps_its_reading_over_a_burst_of_looks(monkeypatch):
    """Two computations 5 ms apart: /proc/stat's 10 ms ticks over 5 ms would be noise, and
    the third look does not read it at all (a third reading would end the iterator)."""
    readings = iter([(100.0, 10.0), (101.0, 10.0)])
    clock = iter([50.0, 51.0, 51.005])
    monkeypatch.setattr(threads, "_busy_seconds", lambda: next(readings))
    monkeypatch.setattr(threads.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(threads, "_load_average_others", lambda cores: 0.0)
    meter = LoadMeter()
    meter.cores = 2
    meter.look()
    assert meter.look().others_busy == pytest.approx(1.0)
    assert meter.look().others_busy == pytest.approx(1.0)


STAT = """cpu  900 0 300 5000 100 0 0 0 0 0
cpu0 100 0 50 2000 50 0 0 0 0 0
cpu1 300 0 50 1000 50 0 0 0 0 0
cpu2 500 0 200 2000 0 0 0 0 0 0
intr 12345
"""


def test_only_the_cores_this_process_may_use_count():
    """On a big host shared out by CPU affinity, other cores' work takes nothing from us."""
    assert threads.busy_ticks(STAT, {0, 1}) == 150 + 350
    assert threads.busy_ticks(STAT, None) == 150 + 350 + 700


def test_the_meter_reads_this_machine():
    machine = LoadMeter().look()
    assert machine.cores >= 1
    assert 0.0 <= machine.others_busy <= machine.cores


def test_the_count_is_put_back_after_the_computation(restore_threads, journey):
    torch.set_num_threads(2)
    with kernel_threads(1):
        assert torch.get_num_threads() == 1
        compute(journey())
    assert torch.get_num_threads() == 2


def test_compute_itself_never_changes_the_thread_count(restore_threads, journey):
    torch.set_num_threads(2)
    compute(journey())
    assert torch.get_num_threads() == 2


def test_another_threads_setting_does_not_reach_this_one(restore_threads, journey):
    """The engine thread sets its count for its own computation; the thread that started it
    (a notebook's, the tests') keeps its own meanwhile, and a thread started afterwards gets
    torch's count, not the engine's last one."""
    torch.set_num_threads(2)
    inside, leave = threading.Event(), threading.Event()
    seen = {}

    def engine() -> None:
        with kernel_threads(1):
            seen["inside"] = torch.get_num_threads()
            compute(journey())
            inside.set()
            leave.wait(30)

    worker = threading.Thread(target=engine)
    worker.start()
    inside.wait(30)
    seen["meanwhile"] = torch.get_num_threads()
    leave.set()
    worker.join()
    later = threading.Thread(target=lambda: seen.setdefault("later", torch.get_num_threads()))
    later.start()
    later.join()
    assert seen == {"inside": 1, "meanwhile": 2, "later": 2}


def test_an_export_computes_on_one_thread_as_the_window_does_for_unmeasured_work(
    restore_threads, journey
):
    assert threads.use_threads_for(journey()) == 1
    assert torch.get_num_threads() == 1


def test_huge_pages_are_asked_for_before_torch_allocates():
    # Set by importing the engine package; torch reads it at its first allocation.
    assert os.environ.get("THP_MEM_ALLOC_ENABLE") == "1"
