"""A comparison written for other tools: A's arrays, B's and B − A, as NumPy (.npz) or JSON.

The same conventions as a single trace's export (`data_export`): full float32 precision in
the fewest digits, JSON's null for −∞ (and for an infinite difference, a score hidden on one
side only), the configs that produced both sides. B − A is written only where it is
computed (`engine.compare`): an array of shapes that cannot be lined up has none, and says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from attn_explorer.engine import ARRAY_INFO
from attn_explorer.engine.compare import Comparison
from attn_explorer.io import atomic
from attn_explorer.io.data_export import (
    _JsonData,
    _npz_payload,
    _stream_json,
    config_to_dict,
)
from attn_explorer.io.errors import shown_path
from attn_explorer.text.compare import summary_lines
from attn_explorer.text.i18n import _


def _names(comparison: Comparison, names: tuple[str, ...] | None) -> tuple[str, ...]:
    return tuple(n for n in comparison.arrays if names is None or n in names)


def npz_payload(
    comparison: Comparison, names: tuple[str, ...] | None, cannot: str
) -> dict[str, np.ndarray]:
    """`a.NAME`, `b.NAME` and `b_minus_a.NAME` (float64) for the arrays `names` (None: every
    array), each side's tokens and config; `first_stage` and `summary` as text."""
    payload: dict[str, np.ndarray] = {}
    for side, trace in (("a", comparison.a), ("b", comparison.b)):
        for key, value in _npz_payload(trace, cannot).items():
            if (key in ARRAY_INFO and (names is None or key in names)) or key not in ARRAY_INFO:
                payload[f"{side}.{key}"] = value
    for name in _names(comparison, names):
        diff = comparison[name]
        if diff.diff is not None:
            payload[f"b_minus_a.{name}"] = np.asarray(diff.diff)
    payload["first_stage"] = np.array(comparison.first_stage or "", dtype=np.str_)
    payload["summary"] = np.array("\n".join(summary_lines(comparison)), dtype=np.str_)
    return payload


def write_npz(comparison: Comparison, path: str | Path, names: tuple[str, ...] | None) -> Path:
    path = Path(path)
    payload = npz_payload(comparison, names, _("Cannot write {path}").format(path=shown_path(path)))
    with atomic.replacing(path) as file:
        np.savez_compressed(file, **payload)
    return path


def stream_npz(comparison: Comparison, raw: BinaryIO, names: tuple[str, ...] | None) -> None:
    cannot = _("Cannot write to standard output")
    np.savez_compressed(raw, **npz_payload(comparison, names, cannot))


def json_document(comparison: Comparison, names: tuple[str, ...] | None) -> dict[str, Any]:
    """The JSON export's document: both configs and token lists, then per array its status,
    shapes, A, B, B − A (null where not computed) and the largest change and where."""
    arrays: dict[str, Any] = {}
    for name in _names(comparison, names):
        diff = comparison[name]
        a, b = comparison.a.arrays.get(name), comparison.b.arrays.get(name)
        arrays[name] = {
            "status": diff.status,
            "shape_a": None if diff.shape_a is None else list(diff.shape_a),
            "shape_b": None if diff.shape_b is None else list(diff.shape_b),
            "largest": diff.largest,
            "where": None if diff.where is None else list(diff.where),
            "a": None if a is None else _JsonData(a),
            "b": None if b is None else _JsonData(b),
            "b_minus_a": None if diff.diff is None else _JsonData(diff.diff),
        }
    return {
        "a": _side(comparison.a),
        "b": _side(comparison.b),
        "settings_differing": list(comparison.settings),
        "first_stage": comparison.first_stage,
        "summary": summary_lines(comparison),
        "arrays": arrays,
    }


def _side(trace: Any) -> dict[str, Any]:
    return {
        "config": config_to_dict(trace.config),
        "q_tokens": list(trace.q_tokens),
        "k_tokens": list(trace.k_tokens),
    }


def stream_json(comparison: Comparison, raw: BinaryIO, names: tuple[str, ...] | None) -> None:
    with atomic.as_text(raw, "utf-8") as file:
        _stream_json(json_document(comparison, names), 0, file.write)
        file.write("\n")


def write_json(comparison: Comparison, path: str | Path, names: tuple[str, ...] | None) -> Path:
    path = Path(path)
    with atomic.replacing(path) as raw:
        stream_json(comparison, raw, names)
    return path
