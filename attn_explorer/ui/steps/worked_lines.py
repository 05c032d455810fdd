"""The followed query's numbers at one stage, written out as the tutorials print them.

Shared by the step-through (under its matrices) and the exported stage figures (a handout
carries the arithmetic the lecture showed). Text only: no widgets.
"""

from __future__ import annotations

import numpy as np

from attn_explorer.engine import ARRAY_INFO, Trace
from attn_explorer.text.explain import explain
from attn_explorer.text.explain_outputs import context_lead
from attn_explorer.text.numbers import NB, num
from attn_explorer.text.titles import array_symbol, divisor_symbol, score_symbols
from attn_explorer.text.tokens import quote_token
from attn_explorer.ui.i18n import tr as _tr


def vector(values: np.ndarray, limit: int = 8) -> str:
    """[0.4306, 1.4551] — a row as the tutorials print it, shortened when long."""
    if values.dtype.kind in "bi":
        items = [str(int(v)) for v in values.tolist()]
    else:
        items = [num(v) for v in values.tolist()]
    if len(items) > limit:
        items = [*items[: limit - 1], "…", items[-1]]
    return "[" + ", ".join(items) + "]"


def _side_by_side(heads: int, n: int) -> str:
    """ "[z2 of head 1 | z2 of head 2]": query n's row of Z_cat, the first four heads named."""
    parts = " | ".join(_tr("z{0} of head {1}").format(n, h + 1) for h in range(min(heads, 4)))
    return f"[{parts}{' | …' if heads > 4 else ''}]"


def _keep_line(trace: Trace, head: int, i: int, n: str) -> str:
    """The row's keep-mask as drawn, the keys the mask hides in parentheses: their weight is
    0 kept or dropped, and a bare 1 under a hatched cell would read as "this key is kept"."""
    keep = trace.dropout_keep[head, i]
    hidden = trace.mask[i] if "mask" in trace.arrays else np.zeros(keep.shape, dtype=bool)
    pairs = zip(keep.tolist(), hidden.tolist(), strict=True)
    items = [f"({int(k)})" if h else str(int(k)) for k, h in pairs]
    if len(items) > 8:
        items = [*items[:7], "…", items[-1]]
    note = _tr("(0 = dropped; in parentheses: hidden by the mask, 0 either way)")
    return f"keep{n} = [{', '.join(items)}]   " + (note if hidden.any() else _tr("(0 = dropped)"))


def _chosen(trace: Trace, name: str, column: tuple[str, int] | None) -> int:
    """The column of `name` whose arithmetic is written: the chosen one where `name`'s
    columns count what the chosen cell's do (keys, or features of a head), else the first."""
    if column is None or ARRAY_INFO[name].cols != column[0]:
        return 0
    width = trace.arrays[name].shape[-1]
    return column[1] if 0 <= column[1] < width else 0


def moved_cell(
    trace: Trace, query: int | None, column: tuple[str, int] | None, rows: int, columns: int
) -> tuple[int, tuple[str, int]]:
    """The followed query and chosen column `rows` down and `columns` right of `query` and
    `column` (the arrow keys on a stage), kept within the matrices; a column never chosen
    counts the keys, from the first."""
    axis, col = column if column is not None else ("k_tokens", 0)
    cfg = trace.config
    width = cfg.n_k if axis == "k_tokens" else trace.head_contexts.shape[-1]
    row = min(max((query or 0) + rows, 0), cfg.n_q - 1)
    return row, (axis, min(max(col + columns, 0), width - 1))


def followed_text(
    trace: Trace, key: str, head: int, i: int, column: tuple[str, int] | None = None
) -> str:
    """The followed query's numbers at one stage, written out: its row, and the arithmetic
    of one cell of it. `column`: the chosen cell's column, as (what the columns of its
    matrix count, "k_tokens" or "d_head"..., and which), as clicked on the stage; the
    worked line is that column's in every array whose columns count the same, else the
    first column's."""
    cfg = trace.config
    if not 0 <= i < cfg.n_q:
        return ""

    def worked(name: str) -> str:
        """The first line of the chosen cell's arithmetic in array `name`."""
        return explain(trace, name, head, i, _chosen(trace, name, column)).split("\n")[0]

    token = quote_token(cfg.tokens[i])
    n = i + 1
    same_kv = not cfg.is_cross and i < cfg.n_k
    alpha = array_symbol(trace.config, "weights_dropped")  # α_d, or α where dropout does not apply
    scaled, fed = score_symbols(cfg)  # ω̃ only where scaled, ω̃ₘ only where masked
    lines: list[str] = []
    if key == "embeddings":
        lines.append(f"x{n} {token} = {vector(trace.x[i])}")
    elif key == "projections":
        if "w_query" not in trace.arrays:  # no projection: the embeddings are used as they are
            names = f"q{n} = k{n} = v{n}" if same_kv else f"q{n}"
            lines.append(f"{names} = x{n} = {vector(trace.queries[head, i])}")
        else:
            bias = "b_query" in trace.arrays
            for letter, array in (("q", trace.queries), ("k", trace.keys), ("v", trace.values)):
                if letter == "q" or same_kv:
                    plus = f" + b_{letter}" if bias else ""
                    lines.append(f"{letter}{n} = x{n}·W_{letter}{plus} = {vector(array[head, i])}")
            lines.append(worked("queries"))
    elif key == "scores":
        lines.append(f"ω{n} = q{n}·Kᵀ = {vector(trace.scores[head, i])}")
        lines.append(worked("scores"))
    elif key == "scale" and cfg.mask_first:  # tutorial 000's order: ωₘ divided, −∞ stays
        lines.append(
            f"{fed}{n} = ωₘ{n} / {divisor_symbol(cfg)} = {vector(trace.scaled_scores[head, i])}"
        )
        lines.append(worked("scaled_scores"))
        hidden = np.flatnonzero(trace.mask[i])
        if hidden.size:
            lines.append(explain(trace, "scaled_scores", head, i, hidden[0]).split("\n")[0])
    elif key == "mask" and cfg.mask_first:  # the raw scores are masked, then divided
        lines.append(f"M{n} = {vector(trace.mask[i])}   " + _tr("(1 = hidden)"))
        lines.append(
            _tr("{0}   (the raw scores ω{1} masked; the division comes next)").format(
                f"ωₘ{n} = {vector(trace.masked_scores[head, i])}", n
            )
        )
    elif key == "scale":
        scores = f"{scaled}{n} = {vector(trace.scaled_scores[head, i])}"
        if scaled == "ω":  # nothing divided: no ω̃, and no "ω[2,1] = ω[2,1]" to work out
            lines.append(_tr("{0}   (not scaled: it goes on as it is)").format(scores))
        else:
            lines.append(scores)
            lines.append(worked("scaled_scores"))
    elif key == "mask":
        if cfg.has_mask:
            lines.append(f"M{n} = {vector(trace.mask[i])}   " + _tr("(1 = hidden)"))
        else:
            lines.append(f"M{n} = {vector(trace.mask[i])}   " + _tr("(every key is visible)"))
        if cfg.method_1:  # the scores go to softmax as they are; its output is masked
            scores = f"{scaled}{n} = {vector(trace.masked_scores[head, i])}"
            lines.append(
                _tr(
                    "{0} goes to softmax unmasked (method 1 zeroes the hidden weights after it)"
                ).format(scores)
            )
        elif not cfg.has_mask:
            scores = f"{fed}{n} = {vector(trace.masked_scores[head, i])}"
            lines.append(_tr("{0}   (no mask: softmax reads it as it is)").format(scores))
        else:
            lines.append(f"{fed}{n} = {vector(trace.masked_scores[head, i])}")
    elif key == "softmax":
        row = trace.weights[head, i]
        total = num(float(row.astype(np.float64).sum()))
        if cfg.method_1:  # tutorial 000's three steps: softmax, zero the hidden, ÷ the sum
            # Each line whole, in the formula's terms: "α = softmax(ω̃) ⊙ (1 − M) / Σ_visible"
            # (not one continuing another: "α2 = ⊙ (1 − M2) / 0.3700").
            soft = f"softmax({scaled}{n})"
            zeroed = f"{soft} ⊙ (1 − M{n})"
            row_sum = num(trace.row_sums[head, i, 0])
            lines.append(
                _tr("{0}   (every key)").format(
                    f"{soft} = {vector(trace.weights_unmasked[head, i])}"
                )
            )
            lines.append(
                f"{zeroed} = {vector(trace.weights_zeroed[head, i])},  Σ_visible = {row_sum}"
            )
            lines.append(f"α{n} = {zeroed} / Σ_visible = {vector(row)},  Σ α{n} = {total}")
        else:
            lines.append(f"α{n} = softmax({fed}{n}) = {vector(row)}")
            lines.append(f"Σ α{n} = {total}")
        lines.append(worked("weights"))
    elif key == "dropout":
        if "dropout_keep" in trace.arrays:
            lines.append(_keep_line(trace, head, i, n))
        lines.append(f"{alpha}{n} = {vector(trace.weights_dropped[head, i])}")
    elif key == "context":
        lines.append(f"{context_lead(alpha, i)}{NB}= {vector(trace.head_contexts[head, i])}")
        lines.append(worked("head_contexts"))
    elif key == "concat":
        if cfg.heads == 1:  # nothing concatenated: no "[z2 of head 1]"
            lines.append(f"Z_cat{n} = z{n} = {vector(trace.concat[i], 12)}")
        else:
            lines.append(f"Z_cat{n} = {_side_by_side(cfg.heads, n)}")
            lines.append(f"       = {vector(trace.concat[i], 12)}")
    elif key == "out_proj":
        lines.append(f"out{n} = {vector(trace.context[i])}")
        lines.append(worked("context"))
    head_note = (
        _tr(", head {0}").format(head + 1)
        if cfg.heads > 1 and key not in ("embeddings", "concat", "out_proj")
        else ""
    )
    return _tr("Following query {0} {1}{2}:").format(n, token, head_note) + "\n" + "\n".join(lines)


def matrices_text(trace: Trace, weights: str, head: int, i: int) -> str:
    """The followed query's numbers in the seven matrices: its row of the weights shown
    (`weights`: "weights" or "weights_dropped"), the context it makes of V, and its output
    row where that is more than the context (another head, an output projection).

    It names the query and writes its arithmetic, as the stage figures do: a handout of the
    seven matrices alone reads only as colours and an outline.
    """
    cfg = trace.config
    if not 0 <= i < cfg.n_q:
        return ""
    n = i + 1
    alpha = array_symbol(trace.config, "weights_dropped")  # α_d, or α where dropout does not apply
    scaled, fed = score_symbols(cfg)
    lines: list[str] = []
    if weights == "weights_dropped" and alpha != "α":
        lines.append(f"{alpha}{n} = {vector(trace.weights_dropped[head, i])}")
    elif cfg.method_1:
        soft = f"softmax({scaled}{n}) ⊙ (1 − M{n}) / Σ_visible"
        lines.append(f"α{n} = {soft} = {vector(trace.weights[head, i])}")
    else:
        lines.append(f"α{n} = softmax({fed}{n}) = {vector(trace.weights[head, i])}")
    context = f"{context_lead(alpha, i)}{NB}= {vector(trace.head_contexts[head, i])}"
    if "w_out" in trace.arrays:
        lines.append(context)
        bias = " + b_o" if "b_out" in trace.arrays else ""
        every = ""
        if cfg.heads > 1:
            every = _tr("   (Z_cat{0}: z{0} of every head, side by side)").format(n)
        lines.append(f"out{n} = Z_cat{n}·W_o{bias} = {vector(trace.context[i], 12)}{every}")
    elif cfg.heads > 1:
        lines.append(context)
        side_by_side = _side_by_side(cfg.heads, n)
        lines.append(f"out{n} = Z_cat{n} = {side_by_side} = {vector(trace.context[i], 12)}")
    else:  # one head, no projection: the output is the context itself
        lines.append(f"out{n} = {context}")
    head_note = _tr(", head {0}").format(head + 1) if cfg.heads > 1 else ""
    token = quote_token(cfg.tokens[i])
    return _tr("Following query {0} {1}{2}:").format(n, token, head_note) + "\n" + "\n".join(lines)
