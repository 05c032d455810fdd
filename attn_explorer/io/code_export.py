"""The current config as a standalone PyTorch script, written the tutorials' way.

The point of the export is that a learner can leave the app and still get the same numbers:
the script defines the tutorials' module classes (generalised to the app's options), seeds
torch, builds the module, runs it once and prints the context and the attention weights. It
depends on torch alone and builds its modules in the order the engine draws its parameters
(see `engine/params.py`), so the printout equals the window digit for digit.

Only the pieces the config uses are written out (the projection kind, the class for the head
layout, the output projection), so the script reads like the tutorial section it extends.

Its comments, docstrings and the titles it prints are in the current language (`text.i18n`);
the code, and so the numbers, are the same in every language.
"""

from __future__ import annotations

import string

from attn_explorer import __version__
from attn_explorer.engine import AttentionConfig
from attn_explorer.io.code_given import (
    given_weights_call,
    given_weights_data,
    given_weights_loader,
)
from attn_explorer.io.code_heads import hook_code, output_code, switch_off_code
from attn_explorer.io.code_modules import (
    HEAD_CLASS,
    attention_weights_code,
    comment,
    docstring,
    head_class,
    mask_first_weights_code,
    no_weights,
    python_string,
    split_class,
    wrapper_class,
)
from attn_explorer.text.i18n import _
from attn_explorer.text.tutorials import tutorial

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
    weights = mask_first_weights_code() if config.mask_first else attention_weights_code()
    definitions = [weights, split_class(config) if split else head_class(config)]
    if needs_wrapper:
        definitions.append(wrapper_class(config))
    if config.uses_given:
        definitions.append(given_weights_loader(config))
    if config.ablate:
        definitions.append(switch_off_code(config))
    definitions += [_show(), _main(config, split, needs_wrapper)]
    return (
        "\n\n".join(part.strip("\n") for part in top)
        + "\n\n\n"
        + "\n\n\n".join(part.strip("\n") for part in definitions)
        + "\n"
    )


# ---------------------------------------------------------------------------- header and data


def _summary(cfg: AttentionConfig) -> list[str]:
    """What the script reproduces, one fact per line, in the order of the computation."""
    qkv, source = no_weights(cfg)
    kind = {
        "none": _("no projection: {qkv} ({tutorial})").format(qkv=qkv, tutorial=source),
        "rand": "W = torch.rand(d_in, d_out) (SelfAttention_v1)",
        "linear": "W = nn.Linear(d_in, d_out"
        + (", bias=True)" if cfg.qkv_bias else ", bias=False)")
        + " (SelfAttention_v2 / CausalAttention)",
    }[cfg.projection]
    if cfg.is_cross:
        tokens = _("{n_q} query tokens, d_in {d_in}; cross-attention over {n_k} key/value tokens")
    else:
        tokens = _("{n_q} query tokens, d_in {d_in}")
    lines = [
        tokens.format(n_q=cfg.n_q, d_in=cfg.d_in, n_k=cfg.n_k),
        _("projection: {kind}").format(kind=kind),
    ]
    if cfg.projection != "none":
        if cfg.heads == 1 and cfg.head_layout == "split":
            layout = _("one head (split layout, MultiHeadAttention)")
        elif cfg.heads == 1:
            layout = _("one head")
        elif cfg.head_layout == "split":
            layout = _("{heads} heads of width {width} split from one W (MultiHeadAttention)")
        else:
            layout = _(
                "{heads} heads of width {width} built one after another (MultiHeadAttentionWrapper)"
            )
        width = cfg.d_head if cfg.head_layout == "split" else cfg.d_out
        layout = layout.format(heads=cfg.heads, width=width)
        lines.append(_("d_out {d_out}; {layout}").format(d_out=cfg.d_out, layout=layout))
    masks = [_("causal")] if cfg.causal else []
    if cfg.valid_len is not None:
        masks.append(
            _("padding (keys from index {valid_len} on are hidden)").format(valid_len=cfg.valid_len)
        )
    if masks:
        if cfg.mask_first:
            method = _("-inf on the raw scores, then divided, as in {tutorial}").format(
                tutorial=tutorial("llm")
            )
        elif cfg.mask_method == "neg_inf":
            method = _("-inf before softmax")
        else:
            method = _("softmax, zero, renormalize")
        lines.append(_("mask: {masks} ({method})").format(masks=" + ".join(masks), method=method))
    if cfg.scale:
        scaling = _("scores / sqrt(d_k), d_k = {d_k}").format(d_k=cfg.d_head)
    else:
        scaling = _("scores not scaled")
    if cfg.temperature != 1:
        scaling += _(", temperature {temperature}").format(temperature=repr(cfg.temperature))
    lines.append(scaling)
    if cfg.dropout:
        if cfg.training:
            dropout = _("dropout p = {p} on the attention weights (training mode: active)")
        else:
            dropout = _("dropout p = {p} on the attention weights (eval mode: inactive)")
        lines.append(dropout.format(p=repr(cfg.dropout)))
    if cfg.out_proj:
        lines.append(
            _("output projection out_proj = nn.Linear({width}, {width})").format(width=cfg.width)
        )
    if cfg.seed_draws:
        seeded = _("torch.manual_seed({seed}) right before the module is built")
    else:
        seeded = _(
            "torch.manual_seed({seed}) right before the module is built (this seed draws "
            "nothing: no weights, and no dropout mask follows it)"
        )
    lines.append(seeded.format(seed=cfg.seed))
    if cfg.dropout_seed is not None:
        lines.append(
            _(
                "torch.manual_seed({seed}) again right before the forward pass, so the dropout "
                "masks follow from it ({tutorial})"
            ).format(seed=cfg.dropout_seed, tutorial=tutorial("llm") + ", §3.5.2")
        )
    return lines


def _header(cfg: AttentionConfig) -> str:
    facts = "\n".join(f"  - {line}" for line in _summary(cfg))
    text = "\n".join(
        [
            _(
                "Attention exactly as attn_explorer {version} computed it, rebuilt in plain "
                "PyTorch."
            ).format(version=__version__),
            "",
            _("Reproduces:"),
            facts,
            "",
            _(
                "Run it with `python <this file>` (it needs only torch). It prints the context "
                "vectors\n"
                "(one row per query token) and the attention weights of every head (rows: "
                "queries,\n"
                "columns: keys), with {decimals} decimals."
            ).format(decimals=DECIMALS),
        ]
    )
    return f"#!/usr/bin/env python3\n{docstring(text, '')}\n"


def _data(cfg: AttentionConfig) -> str:
    lines = [
        comment(
            _("The tokens and their embeddings, one row per token (d_in = {d_in}).").format(
                d_in=cfg.d_in
            )
        ),
        _list_literal("TOKENS", cfg.tokens),
        _table_literal("EMBEDDINGS", cfg.embeddings),
    ]
    if cfg.is_cross:
        lines += [
            comment(_("Cross-attention: keys and values come from this second sequence.")),
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
    said = {
        "VALID_LEN": _("keys at index >= VALID_LEN are padding") if cfg.valid_len else "",
        "MASK_METHOD": _('"neg_inf" or "renormalize"'),
        "TEMPERATURE": _("scores are divided by sqrt(d_k) * TEMPERATURE"),
        "TRAINING": _("dropout only acts in training mode"),
        "DROPOUT_SEED": _("torch.manual_seed(DROPOUT_SEED) just before the forward pass"),
    }
    comments = {key: "  " + comment(text) for key, text in said.items() if text}
    lines += ["", "D_IN = len(EMBEDDINGS[0])"]
    lines += [
        f"{key} = {_literal(value)}{comments.get(key, '')}" for key, value in settings.items()
    ]
    if cfg.uses_given:
        lines += ["", given_weights_data(cfg)]
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
    return python_string(value) if isinstance(value, str) else repr(value)


def _fstring(template: str, **expressions: str) -> str:
    """A double-quoted f-string printing `template` (translated), each {name} in it replaced by
    the Python expression `expressions[name]`: the words escaped as in a string literal, their
    braces doubled, so that any translation stays valid code."""
    parts = []
    for words, name, _spec, _conversion in string.Formatter().parse(template):
        parts.append(_inside_quotes(words).replace("{", "{{").replace("}", "}}"))
        if name is not None:
            parts.append(f"{{{expressions[name]}}}")
    return f'f"{"".join(parts)}"'


def _inside_quotes(words: str) -> str:
    """`words` as the inside of a double-quoted literal: repr()'s escapes, a quote escaped."""
    text = repr(words)
    if text[0] == '"':  # repr chose double quotes: there is none inside to escape
        return text[1:-1]
    return text[1:-1].replace("\\'", "'").replace('"', '\\"')


def _table_literal(name: str, rows: tuple[tuple[float, ...], ...]) -> str:
    body = "\n".join("    [" + ", ".join(map(repr, row)) + "]," for row in rows)
    return f"{name} = [\n{body}\n]"


# ---------------------------------------------------------------------------- running it


def _show() -> str:
    doc = _("Print a matrix as labelled rows: the title with its shape, then one line per row.")
    return f"""
def show(title, matrix, labels):
{docstring(doc, "    ")}
    rows, cols = matrix.shape
    print(f"{{title}} ({{rows}} x {{cols}}):")
    width = max(len(label) for label in labels)
    for label, row in zip(labels, matrix.tolist()):
        numbers = "".join(f" {{value:11.{DECIMALS}f}}" for value in row)
        print(f"  {{label:<{{width}}}}{{numbers}}")
    print()
"""


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
    if cfg.training and cfg.dropout_active:
        mode = "module.train()  " + comment(_("training mode: dropout acts"))
    elif cfg.training:
        mode = "module.train()  " + comment(_("training mode: dropout does nothing"))
    else:
        mode = "module.eval()  " + comment(_("eval mode: dropout does nothing"))
    if cfg.dropout_seed is None:
        reseed = ""
        seeded = _("the random weights (and dropout masks) follow from here")
    else:
        follow = comment(_("reseed: the dropout masks follow from here"))
        reseed = f"\n    torch.manual_seed(DROPOUT_SEED)  {follow}"
        seeded = _("the random weights follow from here")
    if not cfg.seed_draws:
        seeded = _("nothing here draws from it: no weights, and no dropout mask follows it")
    head = {"number": "h + 1"}
    title = _fstring(_("weights, head {number}"), **head)
    dropped_title = _fstring(_("weights after dropout, head {number}"), **head)
    show_dropped = (
        f"\n        show({dropped_title}, dropped[h], rows)" if cfg.dropout_active else ""
    )
    # The book's order: its printed `masked`, the raw scores with -inf where hidden.
    raw = comment(_("the raw scores, -inf where hidden"))
    masked_line = f"\n    masked = {masked}  {raw}" if cfg.mask_first else ""
    masked_title = _fstring(_("masked scores (raw, -inf where hidden), head {number}"), **head)
    show_masked = f"\n        show({masked_title}, masked[h], rows)" if cfg.mask_first else ""
    console = comment(
        _(
            "A console that cannot show a token's letters (a Windows pipe, "
            "PYTHONIOENCODING=cp1252)\n"
            "prints them as escapes such as \\u1ee7 instead of stopping with "
            "UnicodeEncodeError.\n"
            "(A notebook's stdout has no reconfigure, and shows every letter anyway.)"
        ),
        "    ",
    )
    batch = comment(_("a batch of one: (1, n_q, d_in)"))
    load_given = given_weights_call(split, wrapper) if cfg.uses_given else ""
    keys = python_string(_("keys (the columns of the weights):"))
    context = python_string(_("context"))
    return f"""
def main():
{console}
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="backslashreplace")

    x = torch.tensor([EMBEDDINGS], dtype=torch.float32)  {batch}
    x_kv = {x_kv}

    torch.manual_seed(SEED)  {comment(seeded)}
    module = {build}{load_given}
    {mode}{reseed}{hook_code(cfg)}
    with torch.no_grad():
        context = module(x, x_kv, valid_len=VALID_LEN)[0]{output_code(cfg)}
    weights = {weights}
    dropped = {dropped}{masked_line}

    rows = [repr(token) for token in TOKENS]
    print({keys}, ", ".join(repr(t) for t in {key_tokens}))
    print()
    show({context}, context, rows)
    for h in range(NUM_HEADS):{show_masked}
        show({title}, weights[h], rows){show_dropped}
    return context, weights, dropped


if __name__ == "__main__":
    main()
"""
