"""Kept traces: what is restored equals what the engine computes, and a file whose key does not
match exactly (another config, another engine, a damaged file) is never used."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from attn_explorer.engine import AttentionConfig, compute
from attn_explorer.engine.presets import JOURNEY, JOURNEY_TOKENS
from attn_explorer.io import shipped_traces, trace_cache


def journey(**fields) -> AttentionConfig:
    return AttentionConfig(tokens=JOURNEY_TOKENS, embeddings=JOURNEY, **fields)


def assert_same_trace(restored, computed):
    assert restored is not None
    assert restored.config == computed.config
    assert restored.names == computed.names
    for name in computed.names:
        a, b = restored.arrays[name], computed.arrays[name]
        assert a.dtype == b.dtype and a.shape == b.shape, name
        assert np.array_equal(a, b, equal_nan=True), name
        assert not a.flags.writeable  # read-only, as the engine's arrays are
    assert restored.steps == computed.steps


@pytest.mark.parametrize(
    "config",
    [
        journey(seed=123),
        journey(causal=True, num_heads=2, d_out=4, dropout=0.5, training=True),
        journey(valid_len=3, mask_method="renormalize", out_proj=True, qkv_bias=True),
        AttentionConfig(
            tokens=JOURNEY_TOKENS[:3],
            embeddings=JOURNEY[:3],
            kv_tokens=JOURNEY_TOKENS,
            kv_embeddings=JOURNEY,
        ),
    ],
    ids=["journey", "heads-dropout", "padding-renormalize", "cross"],
)
def test_a_restored_trace_equals_the_computed_one(tmp_path, config):
    computed = compute(config)
    trace_cache.save(tmp_path, computed)
    assert_same_trace(trace_cache.load(tmp_path, config), computed)


def test_a_config_differing_in_one_field_gets_nothing(tmp_path):
    trace_cache.save(tmp_path, compute(journey(seed=123)))
    assert trace_cache.load(tmp_path, journey(seed=124)) is None
    assert trace_cache.load(tmp_path, journey(seed=123, temperature=1.0000001)) is None


def _real_head(w_scale: float = 1.0, row: float = 0.5) -> AttentionConfig:
    """A config as "Open in the lab" makes it: a layer's rows from an array, given weights."""
    from attn_explorer.engine.given import ArrayRows, GivenWeights

    rng = np.random.default_rng(5)
    rows = rng.normal(size=(5, 6)).astype(np.float32)
    rows[0, 0] = row
    w = {r: rng.normal(size=(1, 6, 3)).astype(np.float32) * w_scale for r in "qkv"}
    given = GivenWeights(w_query=w["q"], w_key=w["k"], w_value=w["v"])
    return AttentionConfig(
        tokens=tuple("abcde"),
        embeddings=ArrayRows.of(rows),
        d_out=3,
        causal=True,
        given=given,
    )


def test_a_real_heads_trace_is_kept_and_restored_under_its_numbers(tmp_path):
    """Given weights and a layer's rows are keyed by their numbers (they were not JSON: a lab
    head's trace raised TypeError when the window kept it)."""
    computed = compute(_real_head())
    trace_cache.save(tmp_path, computed)
    assert_same_trace(trace_cache.load(tmp_path, _real_head()), computed)
    assert trace_cache.load(tmp_path, _real_head(w_scale=1.5)) is None
    assert trace_cache.load(tmp_path, _real_head(row=0.25)) is None


def test_a_file_under_another_configs_name_is_not_trusted(tmp_path):
    """The key is inside the file too: a file copied (or renamed) to another config's name is
    read as what it is."""
    kept = trace_cache.save(tmp_path, compute(journey(seed=123)))
    shutil.copy(kept, trace_cache.path_for(tmp_path, journey(seed=5)))
    assert trace_cache.load(tmp_path, journey(seed=5)) is None


def test_a_trace_kept_by_another_engine_is_not_used(tmp_path, monkeypatch):
    config = journey()
    trace_cache.save(tmp_path, compute(config))
    monkeypatch.setattr(trace_cache, "engine_version", lambda: "another engine")
    assert trace_cache.load(tmp_path, config) is None


def test_the_engines_version_follows_its_source_and_torchs():
    import torch

    version = trace_cache.engine_version()
    assert len(version) == 16
    assert trace_cache._torch_version() == torch.__version__


@pytest.mark.parametrize(
    "damage",
    [b"", b"not a zip file", "cut"],
    ids=["empty", "garbage", "cut-short"],
)
def test_a_damaged_file_is_ignored(tmp_path, damage):
    config = journey()
    path = trace_cache.save(tmp_path, compute(config))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2] if damage == "cut" else damage)
    assert trace_cache.load(tmp_path, config) is None


def test_a_trace_too_big_to_keep_is_not_written(tmp_path, monkeypatch):
    monkeypatch.setattr(trace_cache, "MAX_BYTES", 100)
    assert trace_cache.save(tmp_path, compute(journey())) is None
    assert list(tmp_path.iterdir()) == []


def test_only_the_newest_files_are_kept(tmp_path):
    paths = []
    for seed in range(trace_cache.KEEP + 2):
        path = trace_cache.save(tmp_path, compute(journey(seed=seed)))
        os.utime(path, (1000 + seed, 1000 + seed))  # the order they were written in
        paths.append(path)
    left = sorted(tmp_path.glob("*" + trace_cache.SUFFIX))
    assert left == sorted(paths[2:])
    assert trace_cache.load(tmp_path, journey(seed=0)) is None
    assert trace_cache.load(tmp_path, journey(seed=trace_cache.KEEP + 1)) is not None


def test_off_means_off(monkeypatch):
    for word in ("off", "0", "OFF"):
        monkeypatch.setenv(trace_cache.SWITCH, word)
        assert not trace_cache.enabled()
    monkeypatch.delenv(trace_cache.SWITCH)
    assert trace_cache.enabled()


READ_WITHOUT_TORCH = """
import sys
from attn_explorer.io import trace_cache
from attn_explorer.model.state import default_state
trace = trace_cache.load(sys.argv[1], default_state().config())
print(trace is not None, float(trace.weights.sum()))
print(sorted(m for m in sys.modules if m == "torch" or m.startswith("torch.")))
"""


def test_reading_a_kept_trace_imports_no_torch(tmp_path):
    from attn_explorer.model.state import default_state

    computed = compute(default_state().config())
    trace_cache.save(tmp_path, computed)
    done = subprocess.run(
        [sys.executable, "-c", READ_WITHOUT_TORCH, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    found, modules = done.stdout.strip().splitlines()
    assert found == f"True {float(computed.weights.sum())}"
    assert modules == "[]"


@pytest.mark.parametrize("name", sorted(shipped_traces.example_configs()))
def test_each_examples_shipped_first_trace_equals_compute(name):
    """Fails after any change to the engine until the files are made again:
    `python -m attn_explorer.io.shipped_traces`."""
    config = shipped_traces.example_configs()[name]
    assert_same_trace(shipped_traces.load(config), compute(config))
