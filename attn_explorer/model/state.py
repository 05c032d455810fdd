"""What a learner has set up, as plain immutable data: the window edits it, sessions store it.

`ExplorerState` is richer than an `AttentionConfig`: it keeps controls that are switched off
(the valid length while padding is off, the dropout seed while reseeding is off, the
key/value tokens while cross-attention is off) and
what the learner is looking at, so nothing typed is lost by toggling a checkbox and a saved
session reopens where it was left. `config()` derives the engine's input from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

import numpy as np

from attn_explorer.engine import AttentionConfig
from attn_explorer.engine.config import is_int
from attn_explorer.engine.given import GivenWeights, row_width
from attn_explorer.engine.presets import DEFAULT_PRESET, Preset, preset
from attn_explorer.model.settings import MAX_DIMS as MAX_DIMS  # re-exported for the window
from attn_explorer.model.settings import MAX_TOKENS as MAX_TOKENS
from attn_explorer.model.settings import SETTINGS


@dataclass(frozen=True)
class TokenSequence:
    """Token names and their embedding rows (n x d_in floats)."""

    tokens: tuple[str, ...]
    embeddings: tuple[tuple[float, ...], ...]

    @property
    def d_in(self) -> int:
        return row_width(self.embeddings)


def _default(name: str) -> Any:
    return SETTINGS[name].default


@dataclass(frozen=True)
class Controls:
    """Every control of the window that feeds the engine (the embedding tables aside), with
    the defaults the settings declare (`attn_explorer.model.settings`)."""

    projection: str = _default("projection")
    d_out: int = _default("d_out")
    num_heads: int = _default("num_heads")
    head_layout: str = _default("head_layout")
    out_proj: bool = _default("out_proj")
    qkv_bias: bool = _default("qkv_bias")
    causal: bool = _default("causal")
    mask_method: str = _default("mask_method")
    mask_before_scaling: bool = _default("mask_before_scaling")
    padding: bool = _default("padding")
    valid_len: int = _default("valid_len")
    scale: bool = _default("scale")
    temperature: float = _default("temperature")
    dropout: float = _default("dropout")
    training: bool = _default("training")
    seed: int = _default("seed")
    cross: bool = _default("cross")
    reseed_dropout: bool = _default("reseed_dropout")
    dropout_seed: int = _default("dropout_seed")
    ablate: tuple[int, ...] = _default("ablate")
    ablate_mode: str = _default("ablate_mode")

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


@dataclass(frozen=True)
class ViewState:
    """Where the learner is looking: survives saving and reopening a session."""

    tab: str = "matrices"  # "matrices" or "steps"
    head: int = 0
    query: int = 1  # the followed query token (0-based); the tutorials follow x^(2)
    stage: str = "embeddings"
    heads_array: str = "weights"  # the array the all-heads grid shows
    scores_array: str = "masked_scores"  # the scores the matrices show: as fed to softmax,
    weights_array: str = "weights"  # scaled or raw; the weights before or after dropout
    all_heads: bool = False  # the matrices tab shows every head side by side


@dataclass(frozen=True)
class ExplorerState:
    queries: TokenSequence
    kv: TokenSequence | None = None
    controls: Controls = field(default_factory=Controls)
    view: ViewState = field(default_factory=ViewState)
    given: GivenWeights | None = None  # a real head's W_q, W_k, W_v (engine/given.py)
    # What was pinned as A to compare with (its own `pinned` None), or None.
    pinned: ExplorerState | None = None

    def config(self) -> AttentionConfig:
        c = self.controls
        # Heads beyond those computed stay switched off in the controls (fewer heads and back
        # loses nothing) but switch nothing off.
        heads = 1 if c.projection == "none" else c.num_heads if is_int(c.num_heads) else 0
        # Cross-attention without a second sequence reads the queries' own, as the window's
        # key/value table starts as a copy of the queries.
        kv = self.kv if self.kv is not None else self.queries
        return AttentionConfig(
            tokens=self.queries.tokens,
            embeddings=self.queries.embeddings,
            kv_tokens=kv.tokens if c.cross else None,
            kv_embeddings=kv.embeddings if c.cross else None,
            projection=c.projection,
            d_out=c.d_out,
            num_heads=c.num_heads,
            head_layout=c.head_layout,
            out_proj=c.out_proj,
            qkv_bias=c.qkv_bias,
            causal=c.causal,
            mask_method=c.mask_method,
            mask_before_scaling=c.mask_before_scaling,
            valid_len=c.valid_len if c.padding else None,
            scale=c.scale,
            temperature=c.temperature,
            dropout=c.dropout,
            training=c.training,
            seed=c.seed,
            dropout_seed=c.dropout_seed if c.reseed_dropout else None,
            given=self.given,
            ablate=tuple(h for h in c.ablate if h <= heads),
            ablate_mode=c.ablate_mode,
        )

    @classmethod
    def from_config(cls, config: AttentionConfig, view: ViewState | None = None) -> ExplorerState:
        kv = None
        if config.kv_tokens is not None and config.kv_embeddings is not None:
            kv = TokenSequence(config.kv_tokens, config.kv_embeddings)
        controls = Controls(
            projection=config.projection,
            d_out=config.d_out,
            num_heads=config.num_heads,
            head_layout=config.head_layout,
            out_proj=config.out_proj,
            qkv_bias=config.qkv_bias,
            causal=config.causal,
            mask_method=config.mask_method,
            mask_before_scaling=config.mask_before_scaling,
            padding=config.valid_len is not None,
            valid_len=config.valid_len if config.valid_len is not None else config.n_k,
            scale=config.scale,
            temperature=config.temperature,
            dropout=config.dropout,
            training=config.training,
            seed=config.seed,
            cross=kv is not None,
            reseed_dropout=config.dropout_seed is not None,
            dropout_seed=(
                config.dropout_seed if config.dropout_seed is not None else _default("dropout_seed")
            ),
            ablate=config.ablate,
            ablate_mode=config.ablate_mode,
        )
        # A config opens on the weights its context is computed from: dropped ones where
        # dropout applies (the dropout example's description says "kept cells × 2, the rest
        # 0"), else the softmax weights, so that an example without dropout loaded after it
        # does not say "after dropout" over weights that were not dropped.
        weights = "weights_dropped" if config.dropout_active else "weights"
        view = replace(view or ViewState(), weights_array=weights)
        return cls(
            queries=TokenSequence(config.tokens, config.embeddings),
            kv=kv,
            controls=controls,
            view=view,
            given=config.given,
        )

    @classmethod
    def from_preset(cls, example: Preset, view: ViewState | None = None) -> ExplorerState:
        """`from_config` of an example, following the query token the example follows."""
        state = cls.from_config(example.config, view)
        return replace(state, view=replace(state.view, query=example.query))

    def with_controls(self, **changes: object) -> ExplorerState:
        return replace(self, controls=replace(self.controls, **changes))


def default_state() -> ExplorerState:
    return ExplorerState.from_preset(preset(DEFAULT_PRESET))


def random_sequence(n: int, d_in: int, seed: int = 0, normal: bool = False) -> TokenSequence:
    """`n` tokens t1..tn with reproducible values, two decimals like the tutorials'.

    Uniform in [0, 1) like the tutorials' embeddings, or standard normal (`normal=True`), the
    unit-variance inputs under which scores grow like √d_k.
    """
    rng = np.random.default_rng(seed)
    values = rng.standard_normal((n, d_in)) if normal else rng.uniform(0, 1, size=(n, d_in))
    rows = tuple(map(tuple, values.round(2).tolist()))
    return TokenSequence(tuple(f"t{i + 1}" for i in range(n)), rows)


def scaling_demo(state: ExplorerState) -> ExplorerState:
    """Tutorial 004's point made visible: unit-variance embeddings, wide heads, no √d_k.

    The seed and the followed row are the demo's own, because how far a row saturates
    depends on the weights drawn: at seed 123, row 2's largest weight is 0.97 unscaled and
    0.23 with √d_k."""
    demo = random_sequence(8, 16, seed=2, normal=True)
    state = replace(state, queries=demo, kv=demo, view=replace(state.view, query=1))
    return state.with_controls(
        projection="linear",
        seed=123,
        d_out=64,
        num_heads=1,
        scale=False,
        temperature=1.0,
        causal=False,
        padding=False,
        dropout=0.0,
        cross=False,
    )
