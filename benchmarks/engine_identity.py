"""Are two trees' engines the same to the last bit? Dump every trace of a fixed set of configs
from each, then compare the dumps.

The engine reproduces the tutorials digit for digit, so a change meant to make it faster must
change no number: this computes the presets (each at its seed and the next), 400 random configs
over every option (projection, heads, layout, biases, output projection, causal and padding
masks, both masking methods and orders, scaling, temperature down to 1e-30, dropout continued or
reseeded, cross-attention, a real head's given weights, switched-off heads, 1 to 300 tokens),
four 512-token ones and 28 with values up to float32's largest (computed, or refused as an
overflow) through a buffer pool that lends its buffers again, each with and without the
comparison of the masking methods. Every array is kept as its bytes, dtype, shape and whether it
is read-only; every step as its fields; a refused config as its problem's code and field.

    cd OLD_TREE && PYTHONPATH=$PWD python NEW_TREE/benchmarks/engine_identity.py dump /tmp/old.pkl
    cd NEW_TREE && PYTHONPATH=$PWD python -m benchmarks.engine_identity dump /tmp/new.pkl
    python -m benchmarks.engine_identity compare /tmp/old.pkl /tmp/new.pkl

(Each run from its own tree: the current directory comes first on the import path.)

`compare` prints what differs and exits with status 1 if anything does.
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import random
import sys

import numpy as np

RANDOM_CONFIGS = 400


def configs() -> list:
    from attn_explorer.engine import PRESETS, AttentionConfig
    from attn_explorer.engine.given import GivenWeights

    out = []
    for p in PRESETS.values():
        out += [p.config, dataclasses.replace(p.config, seed=p.config.seed + 1)]
    rng = random.Random(2026)
    for i in range(RANDOM_CONFIGS):
        n = rng.choice([1, 2, 3, 6, 7, 16, 33, 64, 100, 256, 300] if i % 4 else [1, 3, 6])
        d_in = rng.choice([1, 2, 3, 4, 8, 16, 64])
        projection = rng.choice(["none", "rand", "linear", "linear"])
        heads = 1 if projection == "none" else rng.choice([1, 2, 3, 4, 8])
        layout = rng.choice(["stacked", "split"])
        d_head = rng.choice([1, 2, 3, 4, 8, 16])
        d_out = d_head * heads if layout == "split" else d_head
        cross = rng.random() < 0.15
        n_k = rng.choice([2, 5, n]) if cross else n
        numbers = np.random.default_rng(i)
        given = None
        if projection == "linear" and rng.random() < 0.1:
            shape = (heads, d_in, d_head)
            biases = [numbers.normal(0, 0.1, (heads, d_head)) for _ in range(3)]
            given = GivenWeights(
                *(numbers.normal(0, 0.5, shape) for _ in range(3)),
                *(biases if rng.random() < 0.5 else ()),
            )
        out.append(
            AttentionConfig(
                tokens=tuple(f"t{j}" for j in range(n)),
                embeddings=tuple(map(tuple, numbers.uniform(-1, 1, (n, d_in)).round(2).tolist())),
                kv_tokens=tuple(f"k{j}" for j in range(n_k)) if cross else None,
                kv_embeddings=(
                    tuple(map(tuple, numbers.normal(0, 1, (n_k, d_in)).tolist())) if cross else None
                ),
                projection=projection,
                d_out=d_out,
                num_heads=heads,
                head_layout=layout,
                out_proj=rng.random() < 0.4,
                qkv_bias=rng.random() < 0.4,
                causal=not cross and rng.random() < 0.6,
                mask_method=rng.choice(["neg_inf", "renormalize"]),
                valid_len=rng.randint(1, n_k) if rng.random() < 0.25 else None,
                scale=rng.random() < 0.8,
                temperature=rng.choice([1.0, 1.0, 0.5, 2.0, 1e-30]),
                dropout=rng.choice([0.0, 0.0, 0.1, 0.5]),
                training=rng.random() < 0.8,
                seed=rng.randint(0, 2**40),
                dropout_seed=rng.choice([None, None, 123]),
                mask_before_scaling=rng.random() < 0.3,
                given=given,
                ablate=(
                    tuple(rng.sample(range(1, heads + 1), rng.randint(0, heads)))
                    if rng.random() < 0.2
                    else ()
                ),
                ablate_mode=rng.choice(["zeros", "mean"]),
            )
        )
    rows = np.random.default_rng(5).uniform(0, 1, (512, 16)).round(2)
    big = AttentionConfig(
        tokens=tuple(f"t{j}" for j in range(512)),
        embeddings=tuple(map(tuple, rows.tolist())),
        num_heads=4,
        d_out=8,
        causal=True,
    )
    out += [
        dataclasses.replace(big, seed=s, mask_method=("neg_inf", "renormalize")[s % 2])
        for s in range(4)
    ]
    # Huge values, up to float32's largest: computed, or refused as an overflow of the scores
    # (to +inf or to −inf), of the scaled scores (a tiny temperature) or of the projections.
    for magnitude in (1e15, 1e17, 1e18, 3e18, 1e19, 1e20, 3e38):
        numbers = np.random.default_rng(int(np.log10(magnitude)))
        rows = (numbers.uniform(-1, 1, (6, 3)) * magnitude).astype(np.float32).tolist()
        rows[0][0] = magnitude  # one value exactly as large
        huge = AttentionConfig(
            tokens=tuple(f"t{j}" for j in range(6)),
            embeddings=tuple(map(tuple, rows)),
            projection="none" if magnitude < 1e18 else "linear",
            d_out=2,
            num_heads=2 if magnitude >= 1e18 else 1,
            causal=True,
        )
        out += [
            huge,
            dataclasses.replace(huge, mask_before_scaling=True),
            dataclasses.replace(huge, temperature=1e-10, valid_len=4),
            dataclasses.replace(huge, projection="none", num_heads=1, mask_method="renormalize"),
        ]
    return out


def dump(path: str) -> None:
    import torch

    from attn_explorer.engine import ConfigError
    from attn_explorer.engine.attention import compute
    from attn_explorer.engine.buffers import BufferPool

    torch.set_num_threads(1)  # as the window computes every trace this small
    pool = BufferPool()
    shown: list = []  # the last traces stay alive, as on screen: the pool must not lend theirs
    results = []
    for index, config in enumerate(configs()):
        for compare in (True, False):
            try:
                trace = compute(
                    config, compare_mask_methods=compare, pool=pool if index % 2 else None
                )
            except ConfigError as error:
                results.append(("refused", error.code, error.field, str(error)))
                continue
            shown = [*shown[-1:], trace]
            arrays = {
                name: (a.dtype.str, a.shape, a.tobytes(), a.flags.writeable)
                for name, a in trace.arrays.items()
            }
            steps = [
                (s.key, s.reads, s.writes, dict(s.shapes), s.applies, s.skip, s.config is config)
                for s in trace.steps
            ]
            results.append(("trace", arrays, steps))
    with open(path, "wb") as file:
        pickle.dump(results, file)
    refused = sum(1 for r in results if r[0] == "refused")
    print(f"{len(results)} computations ({refused} refused) written to {path}")


def compare(old_path: str, new_path: str) -> int:
    with open(old_path, "rb") as file:
        old = pickle.load(file)
    with open(new_path, "rb") as file:
        new = pickle.load(file)
    if len(old) != len(new):
        print(f"different numbers of computations: {len(old)} and {len(new)}")
        return 1
    differing = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    for i in differing[:10]:
        a, b = old[i], new[i]
        if a[0] != "trace" or b[0] != "trace":
            print(
                f"computation {i}: {a[:3] if a[0] == 'refused' else 'a trace'} against "
                f"{b[:3] if b[0] == 'refused' else 'a trace'}"
            )
            continue
        names = sorted(n for n in set(a[1]) | set(b[1]) if a[1].get(n) != b[1].get(n))
        print(f"computation {i}: arrays {names}" + ("; steps" if a[2] != b[2] else ""))
    print(f"compared {len(old)} computations: {len(differing)} differ")
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("dump").add_argument("path")
    both = commands.add_parser("compare")
    both.add_argument("old")
    both.add_argument("new")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.path)
        return 0
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
