"""The exported script of a config with given weights (a real head taken into the lab): the
weights as data, and a function that loads them into the module built from the seed.

The module is built from the seed as for drawn weights, so the output projection and a dropout
mask continue the random stream as the engine's do; then the given W_q, W_k, W_v (and biases)
are copied over the drawn ones.
"""

from __future__ import annotations

from attn_explorer.engine import AttentionConfig
from attn_explorer.io.code_modules import comment, docstring
from attn_explorer.text.i18n import _

NAMES = ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value")


def _nested(value: object) -> str:
    """Nested lists of floats as a list literal, a row of numbers to a line."""
    if isinstance(value, list) and value and isinstance(value[0], list):
        if isinstance(value[0][0], list):
            return "[\n" + ",\n".join(_nested(v) for v in value) + ",\n]"
        return "[\n" + "".join("    [" + ", ".join(map(repr, r)) + "],\n" for r in value) + "]"
    return "[" + ", ".join(map(repr, value)) + "]"  # type: ignore[arg-type]


def given_weights_data(cfg: AttentionConfig) -> str:
    given = cfg.given
    assert given is not None
    lines = [
        comment(
            _(
                "The given weights (a real model's head): W_QUERY[h] is head h's W_q, "
                "(d_in, d_head), applied as x @ W_q; B_QUERY[h] its bias."
            )
        )
    ]
    for name in NAMES:
        value = given.lists(name)
        if name.startswith("b_") and (value is None or not cfg.uses_bias):
            continue
        lines.append(f"{name.upper()} = {_nested(value)}")
    return "\n".join(lines)


def given_weights_loader(cfg: AttentionConfig) -> str:
    doc = _(
        "Copy the given weights over the ones drawn from the seed: torch's nn.Linear keeps "
        "its weight as (d_out, d_in), the transpose of W."
    )
    bias = cfg.uses_bias and cfg.given is not None and cfg.given.has_bias
    load_bias_split = (
        '\n                getattr(module, f"W_{role}").bias.copy_(torch.tensor(b).reshape(-1))'
        if bias
        else ""
    )
    load_bias_head = (
        '\n                getattr(head, f"W_{role}").bias.copy_(torch.tensor(b[h]))'
        if bias
        else ""
    )
    given = '(("query", W_QUERY, {q}), ("key", W_KEY, {k}), ("value", W_VALUE, {v}))'.format(
        q="B_QUERY" if bias else "None",
        k="B_KEY" if bias else "None",
        v="B_VALUE" if bias else "None",
    )
    return f"""
def load_given_weights(module, split, heads):
{docstring(doc, "    ")}
    with torch.no_grad():
        for role, w, b in {given}:
            w = torch.tensor(w)  # (heads, d_in, d_head)
            if split:
                weight = w.permute(1, 0, 2).reshape(w.shape[1], -1)  # (d_in, d_out)
                getattr(module, f"W_{{role}}").weight.copy_(weight.T){load_bias_split}
                continue
            for h, head in enumerate(heads):
                getattr(head, f"W_{{role}}").weight.copy_(w[h].T){load_bias_head}
"""


def given_weights_call(split: bool, wrapper: bool) -> str:
    heads = "module.heads" if wrapper else "[module]"
    note = comment(_("the real head's weights replace the drawn ones"))
    return f"\n    load_given_weights(module, split={split}, heads={heads})  {note}"
