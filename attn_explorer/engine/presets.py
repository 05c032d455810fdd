"""The tutorials' examples as named configs: what a learner opens to check a printed number."""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

from attn_explorer.engine.config import AttentionConfig

# "Your journey starts with one step": tutorial 000's running example (d_in = 3).
JOURNEY_TOKENS = ("Your", "journey", "starts", "with", "one", "step")
JOURNEY = (
    (0.43, 0.15, 0.89),
    (0.55, 0.87, 0.66),
    (0.57, 0.85, 0.64),
    (0.22, 0.58, 0.33),
    (0.77, 0.25, 0.10),
    (0.05, 0.80, 0.55),
)

# Tutorial 003's hand-computed example.
HAPPY_TOKENS = ("I", "am", "happy")
HAPPY = ((0.1, 0.2, 0.3), (0.4, 0.5, 0.6), (0.7, 0.8, 0.9))

# Cross-attention (tutorials 002 and 004): a decoder's queries read an encoder's keys and values.
# The decoder has begun translating the running example into Vietnamese.
DECODER_TOKENS = ("<bos>", "Hành", "trình", "của")
DECODER = (
    (0.10, 0.10, 0.10),
    (0.52, 0.80, 0.60),
    (0.50, 0.84, 0.70),
    (0.45, 0.20, 0.85),
)


@dataclass(frozen=True)
class Preset:
    """A named example: `name` for the command line and sessions, `config` what it computes.
    `query` is the query token it follows (0-based): the tutorials' x^(2) "journey", unless
    the example's lesson is in another row. Its title and lesson are words, in
    `attn_explorer.text.examples`."""

    name: str
    config: AttentionConfig
    query: int = 1


_journey = AttentionConfig(tokens=JOURNEY_TOKENS, embeddings=JOURNEY)

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "simple",
            replace(_journey, projection="none", scale=False),
        ),
        Preset(
            "v1",
            replace(_journey, projection="rand", seed=123),
        ),
        Preset(
            "v2",
            replace(_journey, seed=789),
        ),
        Preset(
            "causal",
            replace(_journey, seed=789, causal=True, mask_before_scaling=True),
        ),
        Preset(
            "dropout",
            replace(
                _journey,
                seed=789,
                causal=True,
                dropout=0.5,
                dropout_seed=123,
                mask_before_scaling=True,
            ),
            query=2,
        ),
        Preset(
            "causal-class",
            replace(_journey, seed=123, causal=True, mask_before_scaling=True),
        ),
        Preset(
            "wrapper",
            replace(_journey, seed=123, causal=True, num_heads=2, mask_before_scaling=True),
        ),
        Preset(
            "mha",
            replace(
                _journey,
                seed=123,
                causal=True,
                num_heads=2,
                head_layout="split",
                out_proj=True,
                mask_before_scaling=True,
            ),
        ),
        Preset(
            "happy",
            AttentionConfig(tokens=HAPPY_TOKENS, embeddings=HAPPY, projection="none"),
        ),
        Preset(
            "cross",
            AttentionConfig(
                tokens=DECODER_TOKENS,
                embeddings=DECODER,
                kv_tokens=JOURNEY_TOKENS,
                kv_embeddings=JOURNEY,
                d_out=4,
                num_heads=2,
                head_layout="split",
                out_proj=True,
                seed=123,
            ),
        ),
        Preset(
            "padding",
            AttentionConfig(
                tokens=(*JOURNEY_TOKENS[:4], "<pad>", "<pad>"),
                embeddings=(*JOURNEY[:4], (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)),
                valid_len=4,
                seed=123,
            ),
        ),
    )
}

DEFAULT_PRESET = "causal-class"


def _what_counts(config: AttentionConfig) -> AttentionConfig:
    """`config` with the settings that change nothing in it (the window greys their
    controls) at fixed values: a seed nothing is drawn from, p and training mode while no
    dropout acts, the widths and bias of projections there are none of, a masking method
    without a mask, the order of mask and division where it is no choice."""
    defaults = AttentionConfig(tokens=(), embeddings=())
    changes: dict[str, object] = {}
    if not config.dropout_active:
        changes.update(dropout=0.0, training=True, dropout_seed=None)
    if not config.seed_draws:
        changes.update(seed=defaults.seed)
    if config.projection == "none":
        changes.update(d_out=defaults.d_out, head_layout=defaults.head_layout)
    if not config.uses_bias:
        changes.update(qkv_bias=False)
    if not config.has_mask:
        changes.update(mask_method=defaults.mask_method)
    if not config.mask_first:  # the order of mask and division is no choice here
        changes.update(mask_before_scaling=defaults.mask_before_scaling)
    return replace(config, **changes)


def matching_preset(config: AttentionConfig) -> Preset | None:
    """The example whose computation `config` is, or None once an edit has left every one.

    What counts is what is computed (tokens, embeddings, the settings that apply), so undoing
    back to an example, or opening a session of one, finds it again, and a setting that
    changes nothing (the seed of `happy`, whose projection draws nothing) does not leave it.

    The window asks on every move: only examples of the same tokens and embeddings are
    compared, with their settings reduced once (reducing all eleven on each move costs
    0.2-1 ms, more with the config's size).
    """
    candidates = [
        name
        for name, example in PRESETS.items()
        if (example.config.tokens, example.config.embeddings) == (config.tokens, config.embeddings)
    ]
    if not candidates:
        return None
    counts = _what_counts(config)
    return next((PRESETS[name] for name in candidates if _counted(name) == counts), None)


@functools.cache
def _counted(name: str) -> AttentionConfig:
    """Example `name`'s settings that count (see `_what_counts`), reduced once."""
    return _what_counts(PRESETS[name].config)


def preset(name: str) -> Preset:
    """The preset called `name`; KeyError lists the known names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise KeyError(f"no preset {name!r}; known presets: {', '.join(PRESETS)}") from None
