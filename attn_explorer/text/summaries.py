"""One-line descriptions of a config and of a trace's shapes, for status bars and figure titles.

The settings' values (linear, split) are marked too, though the Vietnamese keeps them as the
controls write them ("linear: nn.Linear (v2)"): a language may name them otherwise.
"""

from __future__ import annotations

from attn_explorer.engine import AttentionConfig, Trace
from attn_explorer.text.i18n import ngettext, pgettext


def _projection(name: str) -> str:
    return {
        "none": pgettext("projection", "none"),
        "rand": pgettext("projection", "rand"),
        "linear": pgettext("projection", "linear"),
    }[name]


def _layout(name: str) -> str:
    return {
        "stacked": pgettext("head layout", "stacked"),
        "split": pgettext("head layout", "split"),
    }[name]


def config_summary(config: AttentionConfig) -> str:
    """One line saying what is computed, e.g. 'linear · d_out 2 · 2 heads (split) · causal'."""
    parts = [_projection(config.projection)]
    if config.projection != "none":
        parts.append(f"d_out {config.d_out}")
    heads = config.heads
    parts.append(
        ngettext("{n} head", "{n} heads", heads).format(n=heads)
        + (f" ({_layout(config.head_layout)})" if heads > 1 else "")
    )
    if config.is_cross:
        parts.append(pgettext("summary", "cross"))
    if config.causal:
        parts.append(pgettext("summary", "causal"))
    if config.valid_len is not None:
        parts.append(pgettext("summary", "valid {0}").format(config.valid_len))
    if not config.scale:
        parts.append(pgettext("summary", "unscaled"))
    if config.temperature != 1:
        parts.append(f"T {config.temperature:g}")
    if config.dropout_active:
        parts.append(pgettext("summary", "dropout {0}").format(f"{config.dropout:g}"))
        if config.dropout_seed is not None:
            parts.append(pgettext("summary", "dropout seed {0}").format(config.dropout_seed))
    if config.out_proj:
        parts.append("out_proj")
    if config.seed_draws:  # "seed 123" where nothing is drawn claimed it mattered
        parts.append(pgettext("summary", "seed {0}").format(config.seed))
    return " · ".join(parts)


def shapes_summary(trace: Trace) -> str:
    """The arrays' shapes, "X 6×3 → Q,K,V 1×6×2 → α 1×6×6 → out 6×2": symbols and numbers
    alone, alike in every language."""
    cfg = trace.config
    x = f"X {cfg.n_q}×{cfg.d_in}"
    qkv = (
        f"Q,K,V {cfg.heads}×{cfg.n_q}×{cfg.d_head}"
        if not cfg.is_cross
        else (f"Q {cfg.heads}×{cfg.n_q}×{cfg.d_head}, K,V {cfg.heads}×{cfg.n_k}×{cfg.d_head}")
    )
    return f"{x} → {qkv} → α {cfg.heads}×{cfg.n_q}×{cfg.n_k} → out {cfg.n_q}×{cfg.width}"
