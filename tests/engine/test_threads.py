"""Small traces compute on one kernel thread, big ones on all; big tensors ask for huge pages."""

import os

import pytest
import torch

from attn_explorer.engine import AttentionConfig, threads
from attn_explorer.engine.presets import JOURNEY


@pytest.fixture
def restore_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def test_the_tutorials_trace_runs_on_one_thread(journey):
    assert threads.threads_for(journey(seed=123, num_heads=2)) == 1


def test_a_big_trace_gets_every_default_thread(journey, restore_threads, monkeypatch):
    monkeypatch.setattr(threads, "_all_threads", None)
    torch.set_num_threads(3)  # the count torch starts with, captured on first use
    rows = tuple(JOURNEY[i % len(JOURNEY)] for i in range(400))  # 400 × 400 = 160,000 weights
    big = AttentionConfig(tokens=tuple(f"t{i}" for i in range(400)), embeddings=rows)
    assert threads.threads_for(big) == 3
    assert threads.threads_for(journey()) == 1


def test_use_threads_for_sets_the_calling_threads_count(journey, restore_threads):
    assert threads.use_threads_for(journey()) == 1
    assert torch.get_num_threads() == 1


def test_huge_pages_are_asked_for_before_torch_allocates():
    # Set by importing the engine package; torch reads it at its first allocation.
    assert os.environ.get("THP_MEM_ALLOC_ENABLE") == "1"
