"""Derivations of the inputs' cells: embeddings, the projection weights and biases (where
they were drawn from, where print(module.weight) shows them), and the projections Q, K, V."""

from __future__ import annotations

import math

from attn_explorer.engine.trace import Trace
from attn_explorer.text.i18n import N_, _
from attn_explorer.text.numbers import factor, num, sum_of_products
from attn_explorer.text.titles import array_symbol
from attn_explorer.text.tokens import quoted


def _embedding(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    tokens = trace.q_tokens if name == "x" else trace.k_tokens
    if name == "x":
        about = _("Dimension {dim} of the embedding of token {index} {token}, as typed.")
    else:
        about = _("Dimension {dim} of the embedding of key/value token {index} {token}, as typed.")
    value = trace[name][i, j]
    return f"{_x_letter(name)}{i + 1}[{j + 1}] = {num(value)}\n" + about.format(
        dim=j + 1, index=i + 1, token=quoted(tokens, i)
    )


def _x_letter(source: str) -> str:
    """The embedding's letter: xₖᵥ for the second sequence of cross-attention, as the editor's
    "Keys & values Xₖᵥ" tab, so that key 2 is not mistaken for query token 2."""
    return "xₖᵥ" if source == "x_kv" else "x"


def _drawn_from(trace: Trace, name: str) -> str:
    cfg = trace.config
    if name in ("w_out", "b_out"):
        n = cfg.width
        # Without projections (Q = K = V = X) out_proj is the first module drawn.
        if cfg.projection == "none":
            text = _(
                "Drawn by nn.Linear({n}, {n})'s initialisation, uniform in ±1/√{n} = ±{bound},"
                " from torch.manual_seed({seed})."
            )
        else:
            text = _(
                "Drawn by nn.Linear({n}, {n})'s initialisation, uniform in ±1/√{n} = ±{bound},"
                " after the q/k/v projections, from torch.manual_seed({seed})."
            )
        return text.format(n=n, bound=num(1 / math.sqrt(n)), seed=cfg.seed)
    if cfg.projection == "rand":
        return _(
            "Drawn by torch.rand(d_in, d_out), uniform in [0, 1), from torch.manual_seed({seed})."
        ).format(seed=cfg.seed)
    bound = 1 / math.sqrt(cfg.d_in)
    return _(
        "Drawn by nn.Linear({d_in}, {d_out})'s initialisation, uniform in ±1/√d_in = ±{bound},"
        " from torch.manual_seed({seed})."
    ).format(d_in=cfg.d_in, d_out=cfg.d_out, bound=num(bound), seed=cfg.seed)


def _weight(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    symbol = array_symbol(trace.config, name)
    value = trace.matrix(name, h)[i, j]
    if name == "w_out":
        if trace.heads > 1:
            where = _("row {row} (concatenated dimension), column {column} (output dimension).")
        else:
            where = _("row {row} (dimension of Z), column {column} (output dimension).")
    else:
        where = _(_WEIGHT_CELL[name])
    where = where.format(row=i + 1, column=j + 1)
    lines = [f"{symbol}[{i + 1},{j + 1}] = {num(value)}", where]
    lines += [_stored_as(trace, name, h, i, j), _drawn_from(trace, name)]
    return "\n".join(line for line in lines if line)


_WEIGHT_CELL = {
    "w_query": N_("row {row} (input dimension), column {column} (query dimension)."),
    "w_key": N_("row {row} (input dimension), column {column} (key dimension)."),
    "w_value": N_("row {row} (input dimension), column {column} (value dimension)."),
}

# The modules' names, as the tutorials' classes and the exported code call them.
_MODULES = {"w_query": "W_query", "w_key": "W_key", "w_value": "W_value", "w_out": "out_proj"}


def _stored_as(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    """Where print(module.weight) shows a W cell: nn.Linear keeps its weight as
    (out_features, in_features) and computes x·weightᵀ, so the W of X·W is weightᵀ and
    W[i,j] is weight[j,i]. torch.rand(d_in, d_out) (projection "rand") is W as it is."""
    cfg = trace.config
    if name != "w_out" and cfg.projection != "linear":
        return ""
    symbol, module = array_symbol(trace.config, name), _MODULES[name]
    whole, row = f"{module}.weightᵀ", j
    if name != "w_out" and cfg.heads > 1:
        if cfg.head_layout == "split":  # one W_query for all heads, split by columns
            d_k = cfg.d_head
            row = h * d_k + j
            # A range of one column is that column, not "columns 2–2" (d_out = heads).
            if d_k == 1:
                whole = _("column {column} of {matrix}").format(column=h + 1, matrix=whole)
            else:
                whole = _("columns {first}–{last} of {matrix}").format(
                    first=h * d_k + 1, last=(h + 1) * d_k, matrix=whole
                )
        else:  # each head an nn.Linear of its own
            whole = _("head {head}'s {matrix}").format(head=h + 1, matrix=whole)
    return _(
        "{symbol} = {whole} (nn.Linear stores W transposed): print({module}.weight) shows "
        "this value in row {row}, column {column}."
    ).format(symbol=symbol, whole=whole, module=module, row=row + 1, column=i + 1)


def _bias(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    symbol = array_symbol(trace.config, name)
    value = trace.matrix(name, h)[0, j]
    return f"{symbol}[{j + 1}] = {num(value)}\n{_drawn_from(trace, name)}"


_PROJECTION_CELL = {
    "queries": N_("Dimension {dim} of the query of token {index} {token}."),
    "keys": N_("Dimension {dim} of the key of token {index} {token}."),
    "values": N_("Dimension {dim} of the value of token {index} {token}."),
}


def _projection(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    letter = {"queries": "q", "keys": "k", "values": "v"}[name]
    role = {"queries": "query", "keys": "key", "values": "value"}[name]
    source = "x" if name == "queries" or not trace.config.is_cross else "x_kv"
    tokens = trace.q_tokens if name == "queries" else trace.k_tokens
    value = trace[name][h, i, j]
    head = f"{letter}{i + 1}[{j + 1}]"
    about = _(_PROJECTION_CELL[name]).format(dim=j + 1, index=i + 1, token=quoted(tokens, i))
    x_row = trace[source][i]
    if f"w_{role}" not in trace.arrays:
        return f"{head} = {_x_letter(source)}{i + 1}[{j + 1}] = {num(value)}\n{about} " + _(
            "No projection: {matrix} = X."
        ).format(matrix=letter.upper())
    w_col = trace[f"w_{role}"][h, :, j]
    pairs = list(zip(x_row.tolist(), w_col.tolist(), strict=True))
    w = array_symbol(trace.config, f"w_{role}")
    formula = f"{head} = {_x_letter(source)}{i + 1}·{w}[:,{j + 1}]"
    sums = sum_of_products(pairs)
    bias_name = f"b_{role}"
    if bias_name in trace.arrays:
        b = trace[bias_name][h, j]
        formula += f" + {array_symbol(trace.config, bias_name)}[{j + 1}]"
        sums += f" + {factor(b)}"
    return f"{formula} = {sums} = {num(value)}\n{about}"


EXPLAINERS = {
    "x": _embedding,
    "x_kv": _embedding,
    "w_query": _weight,
    "w_key": _weight,
    "w_value": _weight,
    "w_out": _weight,
    "b_query": _bias,
    "b_key": _bias,
    "b_value": _bias,
    "b_out": _bias,
    "queries": _projection,
    "keys": _projection,
    "values": _projection,
}
