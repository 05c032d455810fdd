"""The current config as a standalone PyTorch script, written the tutorials' way.

The point of the export is that a learner can leave the app and still get the same numbers:
the script defines the tutorials' module classes (generalised to the app's options), seeds
torch, builds the module, runs it once and prints the context and the attention weights. It
depends on torch alone and builds its modules in the order the engine draws its parameters
(see `engine/params.py`), so the printout equals the window digit for digit.

Only the pieces the config uses are written out (the projection kind, the class for the head
layout, the output projection), so the script reads like the tutorial section it extends.
"""

from __future__ import annotations

from attn_explorer import __version__
from attn_explorer.engine import AttentionConfig
from attn_explorer.io.code_modules import (
    ATTENTION_WEIGHTS,
    HEAD_CLASS,
    MASK_FIRST_WEIGHTS,
    head_class,
    no_weights,
    split_class,
    wrapper_class,
)

DECIMALS = 6
_LINE = 88  # generated lines stay readable in any editor


def pytorch_script(config: AttentionConfig) -> str:
    """A runnable script reproducing `config`; ConfigError if the config cannot be computed.

    A script for an impossible config would fail in a way the learner could not trace back,
    so it is refused here with the same message the window shows.
    """
    config.validate()
    split = config.head_layout == "split" and config.projection != "none"
    needs_wrapper = not split and (config.heads > 1 or config.out_proj)
    imports = "import math\nimport sys\n\nimport torch\nfrom torch import nn"
    top = [_header(config), imports, _data(config)]
    weights = MASK_FIRST_WEIGHTS if config.mask_first else ATTENTION_WEIGHTS
    definitions = [weights, split_class(config) if split else head_class(config)]
    if needs_wrapper:
        definitions.append(wrapper_class(config))
    definitions += [_SHOW, _main(config, split, needs_wrapper)]
    return (
        "\n\n".join(part.strip("\n") for part in top)
        + "\n\n\n"
        + "\n\n\n".join(part.strip("\n") for part in definitions)
        + "\n"
    )


# ---------------------------------------------------------------------------- header and data


def _summary(cfg: AttentionConfig) -> list[str]:
    """What the script reproduces, one fact per line, in the order of the computation."""
    kind = {
        "none": f"no projection: {no_weights(cfg)}",
        "rand": "W = torch.rand(d_in, d_out) (SelfAttention_v1)",
        "linear": "W = nn.Linear(d_in, d_out"
        + (", bias=True)" if cfg.qkv_bias else ", bias=False)")
        + " (SelfAttention_v2 / CausalAttention)",
    }[cfg.projection]
    lines = [f"{cfg.n_q} query tokens, d_in {cfg.d_in}", f"projection: {kind}"]
    if cfg.is_cross:
        lines[0] += f"; cross-attention over {cfg.n_k} key/value tokens"
    if cfg.projection != "none":
        if cfg.heads == 1:
            layout = "one head" + (
                " (split layout, MultiHeadAttention)" if cfg.head_layout == "split" else ""
            )
        elif cfg.head_layout == "split":
            layout = (
                f"{cfg.heads} heads of width {cfg.d_head} split from one W (MultiHeadAttention)"
            )
        else:
            layout = f"{cfg.heads} heads of width {cfg.d_out} built one after another"
            layout += " (MultiHeadAttentionWrapper)"
        lines.append(f"d_out {cfg.d_out}; {layout}")
    masks = ["causal"] if cfg.causal else []
    if cfg.valid_len is not None:
        masks.append(f"padding (keys from index {cfg.valid_len} on are hidden)")
    if masks:
        method = (
            "-inf before softmax" if cfg.mask_method == "neg_inf" else "softmax, zero, renormalize"
        )
        if cfg.mask_first:
            method = "-inf on the raw scores, then divided: tutorial 000's order"
        lines.append(f"mask: {' + '.join(masks)} ({method})")
    scaling = f"scores / sqrt(d_k), d_k = {cfg.d_head}" if cfg.scale else "scores not scaled"
    if cfg.temperature != 1:
        scaling += f", temperature {cfg.temperature!r}"
    lines.append(scaling)
    if cfg.dropout:
        mode = "training mode: active" if cfg.training else "eval mode: inactive"
        lines.append(f"dropout p = {cfg.dropout!r} on the attention weights ({mode})")
    if cfg.out_proj:
        lines.append(f"output projection out_proj = nn.Linear({cfg.width}, {cfg.width})")
    seeded = f"torch.manual_seed({cfg.seed}) right before the module is built"
    if not cfg.seed_draws:
        seeded += " (this seed draws nothing: no weights, and no dropout mask follows it)"
    lines.append(seeded)
    if cfg.dropout_seed is not None:
        lines.append(
            f"torch.manual_seed({cfg.dropout_seed}) again right before the forward pass, "
            "so the dropout masks follow from it (tutorial 000 section 3.5.2)"
        )
    return lines


def _header(cfg: AttentionConfig) -> str:
    facts = "\n".join(f"  - {line}" for line in _summary(cfg))
    return f'''#!/usr/bin/env python3
"""Attention exactly as attn_explorer {__version__} computed it, rebuilt in plain PyTorch.

Reproduces:
{facts}

Run it with `python <this file>` (it needs only torch). It prints the context vectors
(one row per query token) and the attention weights of every head (rows: queries,
columns: keys), with {DECIMALS} decimals.
"""
'''


def _data(cfg: AttentionConfig) -> str:
    lines = [
        f"# The tokens and their embeddings, one row per token (d_in = {cfg.d_in}).",
        _list_literal("TOKENS", cfg.tokens),
        _table_literal("EMBEDDINGS", cfg.embeddings),
    ]
    if cfg.is_cross:
        lines += [
            "# Cross-attention: keys and values come from this second sequence.",
            _list_literal("KV_TOKENS", cfg.key_tokens),
            _table_literal("KV_EMBEDDINGS", cfg.key_embeddings),
        ]
    settings = {
        "SEED": cfg.seed,
        "D_OUT": cfg.d_out,
        "NUM_HEADS": cfg.heads,
        "QKV_BIAS": cfg.qkv_bias,
        "OUT_PROJ": cfg.out_proj,
        "CAUSAL": cfg.causal,
        "VALID_LEN": cfg.valid_len,
        "MASK_METHOD": cfg.mask_method,
        "SCALE": cfg.scale,
        "TEMPERATURE": cfg.temperature,
        "DROPOUT": cfg.dropout,
        "TRAINING": cfg.training,
    }
    if cfg.dropout_seed is not None:
        settings["DROPOUT_SEED"] = cfg.dropout_seed
    if cfg.mask_first:  # always "neg_inf" here: the masked scores are the raw ones with -inf
        del settings["MASK_METHOD"]
    if cfg.projection == "none":
        for unused in ("D_OUT", "QKV_BIAS"):
            del settings[unused]
    elif cfg.projection == "rand":
        del settings["QKV_BIAS"]
    comments = {
        "VALID_LEN": "  # keys at index >= VALID_LEN are padding" if cfg.valid_len else "",
        "MASK_METHOD": '  # "neg_inf" or "renormalize"',
        "TEMPERATURE": "  # scores are divided by sqrt(d_k) * TEMPERATURE",
        "TRAINING": "  # dropout only acts in training mode",
        "DROPOUT_SEED": "  # torch.manual_seed(DROPOUT_SEED) just before the forward pass",
    }
    lines += ["", "D_IN = len(EMBEDDINGS[0])"]
    lines += [
        f"{key} = {_literal(value)}{comments.get(key, '')}" for key, value in settings.items()
    ]
    return "\n".join(lines)


def _list_literal(name: str, items: tuple[str, ...]) -> str:
    """A list literal wrapped to the line width; repr() keeps any token text valid Python."""
    one_line = f"{name} = [{', '.join(map(_literal, items))}]"
    if len(one_line) <= _LINE:
        return one_line
    out, line = [f"{name} = ["], "   "
    for item in map(_literal, items):
        if len(line) + len(item) + 2 > _LINE and line.strip():
            out.append(line)
            line = "   "
        line += f" {item},"
    out.append(line)
    return "\n".join([*out, "]"])


def _literal(value: object) -> str:
    """repr(), which escapes anything unprintable, with the double quotes of the template."""
    text = repr(value)
    if isinstance(value, str) and text.startswith("'") and '"' not in value:
        text = f'"{text[1:-1]}"'  # no quote inside, so the escapes stay the same
    return text


def _table_literal(name: str, rows: tuple[tuple[float, ...], ...]) -> str:
    body = "\n".join("    [" + ", ".join(map(repr, row)) + "]," for row in rows)
    return f"{name} = [\n{body}\n]"


# ---------------------------------------------------------------------------- running it

_SHOW = f'''
def show(title, matrix, labels):
    """Print a matrix as labelled rows: the title with its shape, then one line per row."""
    rows, cols = matrix.shape
    print(f"{{title}} ({{rows}} x {{cols}}):")
    width = max(len(label) for label in labels)
    for label, row in zip(labels, matrix.tolist()):
        numbers = "".join(f" {{value:11.{DECIMALS}f}}" for value in row)
        print(f"  {{label:<{{width}}}}{{numbers}}")
    print()
'''


def _main(cfg: AttentionConfig, split: bool, wrapper: bool) -> str:
    sizes = "D_IN, D_OUT, " if cfg.projection != "none" else "D_IN, "
    if split:
        build = "MultiHeadAttention(\n        D_IN, D_OUT, NUM_HEADS, DROPOUT, out_proj=OUT_PROJ,"
    elif wrapper:
        build = f"MultiHeadAttentionWrapper(\n        {sizes}NUM_HEADS, DROPOUT, out_proj=OUT_PROJ,"
    else:
        build = f"{HEAD_CLASS[cfg.projection]}(\n        {sizes}DROPOUT,"
    if cfg.projection == "linear":
        build += " qkv_bias=QKV_BIAS,"
    method = "" if cfg.mask_first else " mask_method=MASK_METHOD,"
    build += f"\n        causal=CAUSAL,{method} scale=SCALE, temperature=TEMPERATURE,\n    )"
    if split:
        weights = "module.attn_weights[0]  # (heads, n_q, n_k)"
        dropped = "module.attn_weights_dropped[0]"
        masked = "module.masked[0]"
    else:
        heads = "module.heads" if wrapper else "[module]"
        weights = f"torch.cat([head.attn_weights for head in {heads}])  # (heads, n_q, n_k)"
        dropped = f"torch.cat([head.attn_weights_dropped for head in {heads}])"
        masked = f"torch.cat([head.masked for head in {heads}])"
    x_kv = "torch.tensor([KV_EMBEDDINGS], dtype=torch.float32)" if cfg.is_cross else "None"
    key_tokens = "KV_TOKENS" if cfg.is_cross else "TOKENS"
    mode = "module.train()  # training mode" if cfg.training else "module.eval()  # eval mode"
    mode += ": dropout " + ("acts" if cfg.dropout_active else "does nothing")
    if cfg.dropout_seed is None:
        reseed = ""
        seeded = "the random weights (and dropout masks) follow from here"
    else:
        reseed = (
            "\n    torch.manual_seed(DROPOUT_SEED)  # reseed: the dropout masks follow from here"
        )
        seeded = "the random weights follow from here"
    if not cfg.seed_draws:
        seeded = "nothing here draws from it: no weights, and no dropout mask follows it"
    show_dropped = (
        '\n        show(f"weights after dropout, head {h + 1}", dropped[h], rows)'
        if cfg.dropout_active
        else ""
    )
    # Tutorial 000's order: its printed `masked`, the raw scores with -inf where hidden.
    masked_line = (
        f"\n    masked = {masked}  # the raw scores, -inf where hidden" if cfg.mask_first else ""
    )
    show_masked = (
        '\n        show(f"masked scores (raw, -inf where hidden), head {h + 1}", masked[h], rows)'
        if cfg.mask_first
        else ""
    )
    return f"""
def main():
    # A console that cannot show a token's letters (a Windows pipe, PYTHONIOENCODING=cp1252)
    # prints them as escapes such as \\u1ee7 instead of stopping with UnicodeEncodeError.
    # (A notebook's stdout has no reconfigure, and shows every letter anyway.)
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")

    x = torch.tensor([EMBEDDINGS], dtype=torch.float32)  # a batch of one: (1, n_q, d_in)
    x_kv = {x_kv}

    torch.manual_seed(SEED)  # {seeded}
    module = {build}
    {mode}{reseed}
    with torch.no_grad():
        context = module(x, x_kv, valid_len=VALID_LEN)[0]
    weights = {weights}
    dropped = {dropped}{masked_line}

    rows = [repr(token) for token in TOKENS]
    print("keys (the columns of the weights):", ", ".join(repr(t) for t in {key_tokens}))
    print()
    show("context", context, rows)
    for h in range(NUM_HEADS):{show_masked}
        show(f"weights, head {{h + 1}}", weights[h], rows){show_dropped}
    return context, weights, dropped


if __name__ == "__main__":
    main()
"""
