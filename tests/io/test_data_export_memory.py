"""Data exports of a large trace stream their arrays: the memory they take stays a small
multiple of the arrays themselves, and small exports stay byte for byte what they were."""

import tracemalloc

import numpy as np
import pytest

from attn_explorer.engine import ARRAY_INFO, AttentionConfig, compute, preset
from attn_explorer.io.data_export import config_to_dict, write_csv, write_json
from attn_explorer.io.session import json_text
from attn_explorer.text.data_notes import json_notes


def whole_json(trace) -> str:
    """The JSON export built in memory at once, as `json_text` lays it out: the reference
    the streamed file must equal."""

    def data(array):
        if array.dtype == bool:
            return array.tolist()
        flat = [float(str(v)) if np.isfinite(v) else None for v in array.astype(np.float32).ravel()]
        return np.array(flat, dtype=object).reshape(array.shape).tolist()

    arrays = {
        name: {
            "shape": list(trace.arrays[name].shape),
            "rows": ARRAY_INFO[name].rows,
            "cols": ARRAY_INFO[name].cols,
            "per_head": ARRAY_INFO[name].per_head,
            "data": data(trace.arrays[name]),
        }
        for name in trace.names
    }
    doc = {
        "config": config_to_dict(trace.config),
        "q_tokens": list(trace.q_tokens),
        "k_tokens": list(trace.k_tokens),
        "arrays": arrays,
        "notes": json_notes(trace.config),
    }
    return json_text(doc) + "\n"


@pytest.mark.parametrize("name", ["causal", "mha", "cross", "dropout", "padding"])
def test_json_export_is_byte_for_byte_the_whole_document(name, tmp_path):
    trace = compute(preset(name).config)
    path = write_json(trace, tmp_path / "t.json")
    assert path.read_bytes() == whole_json(trace).encode("utf-8")


def test_json_export_of_odd_tokens_and_minus_inf_is_unchanged(tmp_path):
    trace = compute(
        AttentionConfig(
            tokens=("a,b", "\ud800", "😀", "مرحبا"),
            embeddings=((0.1, 0.2), (0.3, 0.4), (0.5, 0.6), (0.7, 0.8)),
            causal=True,
        )
    )
    path = write_json(trace, tmp_path / "t.json")
    assert path.read_bytes() == whole_json(trace).encode("utf-8")


@pytest.fixture(scope="module")
def mid_trace():
    """128 tokens: 64 kB per attention matrix, about 0.4 MB of arrays in all."""
    n, d = 128, 16
    rows = np.random.default_rng(0).uniform(-1, 1, (n, d)).round(2)
    config = AttentionConfig(
        tokens=tuple(f"t{i}" for i in range(n)),
        embeddings=tuple(map(tuple, rows)),
        causal=True,
    )
    return compute(config)


def peak_bytes(write) -> int:
    tracemalloc.start()
    try:
        write()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("writer", [write_json, write_csv])
def test_export_memory_stays_near_the_arrays_size(writer, mid_trace, tmp_path):
    arrays = sum(mid_trace.arrays[name].nbytes for name in mid_trace.names)
    peak = peak_bytes(lambda: writer(mid_trace, tmp_path / "out"))
    assert peak < arrays, f"{peak / 2**20:.1f} MB for {arrays / 2**20:.1f} MB of arrays"
