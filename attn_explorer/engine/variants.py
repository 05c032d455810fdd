"""Exercises like a given one, one per learner: each its own seed and its own embeddings.

A worksheet handed to a class must differ from desk to desk, or neighbours copy; and each
must be reproducible from what is printed on it, so that the teacher can open it again and
the learner can check it. `variant(config, seed)` is a function of the original config and
the printed seed alone: the same seed gives the same exercise on any machine, today or next
year. Its numbers come from a private numpy Generator; torch's and numpy's global random
states are never touched (the window may be drawing from them).

The embeddings are drawn in the ranges of the original's, with its number of decimals (the
running example's 0.05 to 0.89 in hundredths; "I am happy"'s 0.1 to 0.9 in tenths), so the
hand arithmetic is as hard as the tutorial's and no harder. A row of zeros (padding) stays
zeros: it is what the padding example is about. The tokens, the settings and the dropout
seed stay; the projections are drawn from the new seed, as `torch.manual_seed(seed)` draws
them.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from attn_explorer.engine.config import AttentionConfig

# Variant seeds as the window's seed box takes them (0 to 9999, `model.settings`), so that
# `--set seed=N` and a session open every one; four digits copy from paper without slips.
SEED_RANGE = (1, 10_000)
MOST_DECIMALS = 4


def variant_seeds(base: int, n: int) -> tuple[int, ...]:
    """`n` different seeds, decided by `base` alone (and never `base` itself, the original's)."""
    rng = np.random.default_rng(base)
    seeds: list[int] = []
    while len(seeds) < n:
        seed = int(rng.integers(*SEED_RANGE))
        if seed != base and seed not in seeds:
            seeds.append(seed)
    return tuple(seeds)


def _decimals(table: tuple[tuple[float, ...], ...]) -> int:
    """The decimals the table's values are written with (at most four)."""
    for decimals in range(MOST_DECIMALS + 1):
        if all(round(v, decimals) == v for row in table for v in row):
            return decimals
    return MOST_DECIMALS


def _varied(
    table: tuple[tuple[float, ...], ...], rng: np.random.Generator
) -> tuple[tuple[float, ...], ...]:
    """`table` drawn anew: each value uniform in the range of the table's values, rounded to
    its decimals; rows of zeros (padding) kept."""
    kept = [row for row in table if any(row)]
    if not kept:
        return table
    low = min(min(row) for row in kept)
    high = max(max(row) for row in kept)
    decimals = _decimals(table)
    rows = []
    for row in table:
        drawn = rng.uniform(low, high, size=len(row))
        values = np.clip(np.round(drawn, decimals), low, high) if any(row) else np.zeros(len(row))
        rows.append(tuple(round(float(v), decimals) + 0.0 for v in values))
    return tuple(rows)


def variant(config: AttentionConfig, seed: int) -> AttentionConfig:
    """The exercise of `config` numbered `seed`: its embeddings (and key/value embeddings)
    drawn anew in their ranges, its projections drawn from `seed`."""
    rng = np.random.default_rng([seed, 7])  # not torch's stream of the same seed
    embeddings = _varied(config.embeddings, rng)
    kv = config.kv_embeddings
    if kv is not None:
        kv = _varied(kv, rng)
    return replace(config, embeddings=embeddings, kv_embeddings=kv, seed=seed)


def variants(config: AttentionConfig, n: int) -> tuple[AttentionConfig, ...]:
    """`n` exercises like `config`, all different, decided by its seed: the same command
    prints the same worksheets. Two with the same embeddings (possible in principle with
    a few tenths to draw) are not both kept."""
    found: list[AttentionConfig] = []
    tried = 0
    while len(found) < n:
        seeds = variant_seeds(config.seed, tried + n - len(found))
        for seed in seeds[tried:]:
            made = variant(config, seed)
            tables = (made.embeddings, made.kv_embeddings)
            if all((v.embeddings, v.kv_embeddings) != tables for v in found):
                found.append(made)
        tried = len(seeds)
    return tuple(found)
