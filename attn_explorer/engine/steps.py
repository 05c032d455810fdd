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
    return _skips(config).get(key, "")


def _skips(config: AttentionConfig) -> dict[str, str]:
    """Why `config` skips each stage that can be skipped ("" where it applies), in one pass:
    `build_steps` asks for all of them at every computation."""
    dropout = (
        "evaluation_mode" if not config.training else "no_dropout" if config.dropout == 0 else ""
    )
    return {
        "projections": "no_projection" if config.projection == "none" else "",
        "scale": "not_scaled" if not config.scale and config.temperature == 1 else "",
        "mask": "" if config.has_mask else "no_mask",
        "dropout": dropout,
        "concat": "one_head" if config.heads == 1 and not config.ablate else "",
        "out_proj": "" if config.out_proj else "no_out_proj",
    }


def build_steps(config: AttentionConfig, shapes: dict[str, tuple[int, ...]]) -> tuple[Step, ...]:
    """The stages of `config` in its order, each with the arrays of `shapes` it reads and
    writes."""
    layout = _layout(config.mask_first, tuple(_skips(config).items()), tuple(shapes.items()))
    return tuple([_step(fields, config) for fields in layout])


def _step(fields: Mapping[str, object], config: AttentionConfig) -> Step:
    """Step(**fields, config=config), its attributes set as one dict: a frozen dataclass's
    `__init__` sets each of its seven fields through `object.__setattr__`, and a computation
    makes ten steps at every move (7 µs of a 6-token computation's 240)."""
    step = Step.__new__(Step)
    vars(step).update(fields, config=config)
    return step


@functools.lru_cache(maxsize=64)
def _layout(
    mask_first: bool,
    skips: tuple[tuple[str, str], ...],
    shapes: tuple[tuple[str, tuple[int, ...]], ...],
) -> tuple[Mapping[str, object], ...]:
    """Every stage's fields but its config: what it reads and writes and why it is skipped,
    the same for every seed, so worked out once per structure (20 µs of a 6-token move's 300
    went to it). Everything in it is immutable, so traces share it."""
    present = dict(shapes)
    skip = dict(skips)
    layout = []
    for key in MASK_FIRST_KEYS if mask_first else STEP_KEYS:
        reads, writes = _READS_WRITES[key]
        if mask_first:
            reads = _MASK_FIRST_READS.get(key, reads)
        reads = tuple(n for n in reads if n in present)
        writes = tuple(n for n in writes if n in present)
        step_shapes = MappingProxyType({n: present[n] for n in reads + writes})
        fields = dict(
            key=key,
            reads=reads,
            writes=writes,
            shapes=step_shapes,
            applies=not skip.get(key),
            skip=skip.get(key, ""),
        )
        layout.append(MappingProxyType(fields))
    return tuple(layout)
