"""The ten stages of attention, in order: what each reads and writes, and whether it applies.

The order is the computation's: the scale stage comes before the mask, except where the
config masks the raw scores first (`AttentionConfig.mask_first`, tutorial 000's order), and
`step_keys` gives the order of one config. A stage's title, formula and the reason it is
skipped are words, written by `attn_explorer.text.steps` from the `Step` and its config.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from types import MappingProxyType

from attn_explorer.engine.config import AttentionConfig
from attn_explorer.engine.trace import Step

# Order of the step-through; also the order of figure pages.
STEP_KEYS = (
    "embeddings",
    "projections",
    "scores",
    "scale",
    "mask",
    "softmax",
    "dropout",
    "context",
    "concat",
    "out_proj",
)
# Tutorial 000's order (masked_fill on the raw scores, then softmax(masked / √d_k)).
MASK_FIRST_KEYS = (*STEP_KEYS[:3], "mask", "scale", *STEP_KEYS[5:])

# What every stage reads and writes when the config computes it all; `build_steps` keeps the
# arrays a trace has. Where the raw scores are masked first, the scale and mask stages swap
# what they read, and softmax reads the scaled (masked) scores.
_READS_WRITES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "embeddings": ((), ("x", "x_kv")),
    "projections": (
        ("x", "x_kv", "w_query", "w_key", "w_value", "b_query", "b_key", "b_value"),
        ("queries", "keys", "values"),
    ),
    "scores": (("queries", "keys"), ("scores",)),
    "scale": (("scores",), ("scaled_scores",)),
    "mask": (("scaled_scores", "mask"), ("masked_scores",)),
    "softmax": (
        ("masked_scores",),
        (
            "weights_unmasked",
            "weights_zeroed",
            "row_sums",
            "weights",
            "weights_neg_inf",
            "weights_renormalize",
        ),
    ),
    "dropout": (("weights", "dropout_keep"), ("weights_dropped",)),
    "context": (("weights_dropped", "values"), ("head_contexts",)),
    "concat": (("head_contexts",), ("concat",)),
    "out_proj": (("concat", "w_out", "b_out"), ("context",)),
}
_MASK_FIRST_READS = {
    "scale": ("masked_scores",),
    "mask": ("scores", "mask"),
    "softmax": ("scaled_scores",),
}


def step_keys(config: AttentionConfig) -> tuple[str, ...]:
    """The stages in the order `config` computes them (its trace's `steps`)."""
    return MASK_FIRST_KEYS if config.mask_first else STEP_KEYS


def skip_reason(config: AttentionConfig, key: str) -> str:
    """Why `config` skips stage `key`, as a code (see `Step`), or "" where it applies."""
    if key == "projections" and config.projection == "none":
        return "no_projection"
    if key == "scale" and not config.scale and config.temperature == 1:
        return "not_scaled"
    if key == "mask" and not config.has_mask:
        return "no_mask"
    if key == "dropout" and not config.training:
        return "evaluation_mode"
    if key == "dropout" and config.dropout == 0:
        return "no_dropout"
    if key == "concat" and config.heads == 1 and not config.ablate:
        return "one_head"
    if key == "out_proj" and not config.out_proj:
        return "no_out_proj"
    return ""


def build_steps(config: AttentionConfig, shapes: dict[str, tuple[int, ...]]) -> tuple[Step, ...]:
    """The stages of `config` in its order, each with the arrays of `shapes` it reads and
    writes."""
    keys = step_keys(config)
    layout = _layout(
        config.mask_first, tuple(skip_reason(config, key) for key in keys), tuple(shapes.items())
    )
    return tuple(
        Step(
            key=key,
            reads=reads,
            writes=writes,
            shapes=step_shapes,
            applies=not skip,
            config=config,
            skip=skip,
        )
        for key, reads, writes, step_shapes, skip in layout
    )


@functools.lru_cache(maxsize=64)
def _layout(
    mask_first: bool, skips: tuple[str, ...], shapes: tuple[tuple[str, tuple[int, ...]], ...]
) -> tuple[tuple[str, tuple[str, ...], tuple[str, ...], Mapping[str, tuple[int, ...]], str], ...]:
    """What each stage reads and writes, and why it is skipped: the same for every seed, so
    worked out once per structure (20 µs of a 6-token move's 300 went to it). Everything in it
    is immutable, so traces share it."""
    present = dict(shapes)
    layout = []
    for key, skip in zip(MASK_FIRST_KEYS if mask_first else STEP_KEYS, skips, strict=True):
        reads, writes = _READS_WRITES[key]
        if mask_first:
            reads = _MASK_FIRST_READS.get(key, reads)
        reads = tuple(n for n in reads if n in present)
        writes = tuple(n for n in writes if n in present)
        step_shapes = MappingProxyType({n: present[n] for n in reads + writes})
        layout.append((key, reads, writes, step_shapes, skip))
    return tuple(layout)
