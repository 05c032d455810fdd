"""explain(trace, name, head, i, j): one cell's derivation, written out with its real numbers.

Indices in the text count from 1, like the tutorials' x^(2) for "journey" and like the UI's
labels; the function itself takes 0-based indices, like numpy. The last number of every
derivation is the trace's own (float32) value, so a tooltip always agrees with the cell.
"""

from __future__ import annotations

import math
import re
import unicodedata

import numpy as np

from attn_explorer.engine.arrays import ARRAY_INFO, divisor_symbol, score_symbols
from attn_explorer.engine.trace import Trace

MAX_TERMS = 8  # longer sums show their first terms, an ellipsis and the last term
# A no-break space: a long derivation wraps between its terms, never inside a term or a
# fraction ("2.4556 / 16.3685" broke after its "/").
NB = "\u00a0"


def num(value: float) -> str:
    """A number as the UI prints it: 4 decimals, or 4 significant digits when huge or tiny."""
    value = float(value)
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    if value != 0 and (abs(value) >= 1e5 or abs(value) < 1e-4):
        return f"{value:.4g}"
    return f"{value:.4f}"


def operand(value: float) -> str:
    """A number that a shown division or product works from: 4 decimals where they hold 5
    significant digits, else 5 significant digits. 1.8524 / 0.1414 gives 13.1004, not the
    13.0983 written after it; with 0.14142 the shown division holds to the shown digits."""
    value = float(value)
    if not math.isfinite(value) or value == 0 or abs(value) >= 1:
        return num(value)
    usual, precise = num(value), f"{value:.5g}"
    return usual if float(usual) == float(precise) else precise  # 0.5000, not 0.5


def _factor(value: float) -> str:
    text = num(value)
    return f"({text})" if value < 0 else text


def _sum_of_products(pairs: list[tuple[float, float]]) -> str:
    # A negative factor is bracketed, "+ (-0.0264)×0.2216", as no sum writes "+ -0.0264".
    terms = [f"{_factor(a) if k else num(a)}×{_factor(b)}" for k, (a, b) in enumerate(pairs)]
    if len(terms) > MAX_TERMS:
        terms = [*terms[: MAX_TERMS - 2], "…", terms[-1]]
        return " + ".join(terms) + f"  ({len(pairs)} terms)"
    return " + ".join(terms) if terms else "0"


# Characters a token cannot show as they are: C0 controls and DEL as their Unicode control
# pictures (U+2400...), line and paragraph breaks as "↵", noncharacters and lone surrogates as
# "�" (they also make an exported SVG invalid XML).
_VISIBLE = {code: 0x2400 + code for code in range(0x20)} | {0x7F: 0x2421}
_VISIBLE |= {0x0A: "↵", 0x0D: "↵", 0x85: "↵", 0x2028: "↵", 0x2029: "↵", 0x09: "⇥"}
_VISIBLE |= {0xFFFE: "�", 0xFFFF: "�"}
_SURROGATE = re.compile("[\ud800-\udfff]")
# Bidirectional classes that reorder the text around them: right-to-left letters, Arabic
# digits, and the explicit embeddings, overrides and isolates.
_REORDERING = frozenset(("R", "AL", "AN", "LRE", "LRO", "RLE", "RLO", "PDF", "LRI", "RLI", "FSI"))
QUOTED_LIMIT = 24  # characters of a token name written in a sentence


def visible_token(token: str) -> str:
    """A token with its control characters and line breaks made visible, on one line."""
    return _SURROGATE.sub("�", token.translate(_VISIBLE))


def label_token(token: str) -> str:
    """A token as a label on its own (a table cell, a tick): visible as `visible_token`, and
    a name of spaces or zero-width characters as "␣" each, so it does not pass for no name."""
    shown = visible_token(token)
    if all(c.isspace() or unicodedata.category(c) == "Cf" for c in shown):
        return "␣" * max(len(shown), 1)
    return shown


def quote_token(token: str, limit: int = QUOTED_LIMIT) -> str:
    """A token name to write in a sentence: “journey”.

    On one line (a line break shows as ↵), at most `limit` characters (a longer name ends in
    "…"), and, when it holds right-to-left letters or a direction override, isolated
    (U+2068 … U+2069): "x2 “שלום” = [0.55, 0.87]" then keeps its numbers in reading order,
    and an override in a name does not reverse the rest of the sentence.
    """
    shown = visible_token(token)
    if len(shown) > limit:
        shown = shown[: limit - 1] + "…"
    if any(unicodedata.bidirectional(c) in _REORDERING for c in shown):
        shown = f"\u2068{shown}\u2069"
    return f"“{shown}”"


def _token(tokens: tuple[str, ...], index: int) -> str:
    return quote_token(tokens[index])


def _columns(first: int, last: int) -> str:
    """'column 2' or 'columns 3–4' (1-based, both ends included): a range of one column is
    that column, not "columns 2–2" (one column per head, d_out = heads)."""
    return f"column {first}" if first == last else f"columns {first}–{last}"


def explain(trace: Trace, name: str, head: int, i: int, j: int) -> str:
    """The derivation of `trace[name]` at row i, column j of head `head` (all 0-based).

    For arrays without a head axis `head` is ignored; for vectors (biases) `i` must be 0.
    Raises KeyError for an array the trace does not have and IndexError outside its shape.
    """
    if name not in trace.arrays:
        raise KeyError(f"this trace has no array {name!r}")
    info = ARRAY_INFO[name]
    if info.per_head and not 0 <= head < trace.heads:
        raise IndexError(f"head {head} is outside 0..{trace.heads - 1}")
    matrix = trace.matrix(name, head if info.per_head else 0)
    if not (0 <= i < matrix.shape[0] and 0 <= j < matrix.shape[1]):
        raise IndexError(f"cell ({i}, {j}) is outside {name}'s shape {matrix.shape}")
    h = head if info.per_head else 0
    text = _EXPLAINERS[name](trace, name, h, i, j)
    if info.per_head and trace.heads > 1:
        text += f"\n(head {h + 1} of {trace.heads})"
    return text


# ---------------------------------------------------------------------------- inputs & weights
def _embedding(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    tokens = trace.q_tokens if name == "x" else trace.k_tokens
    which = "token" if name == "x" else "key/value token"
    value = trace[name][i, j]
    return (
        f"{_x(name)}{i + 1}[{j + 1}] = {num(value)}\n"
        f"Dimension {j + 1} of the embedding of {which} {i + 1} {_token(tokens, i)}, as typed."
    )


def _x(source: str) -> str:
    """The embedding's letter: xₖᵥ for the second sequence of cross-attention, as the editor's
    "Keys & values Xₖᵥ" tab, so that key 2 is not mistaken for query token 2."""
    return "xₖᵥ" if source == "x_kv" else "x"


def _drawn_from(trace: Trace, name: str) -> str:
    cfg = trace.config
    if name in ("w_out", "b_out"):
        n = cfg.width
        # Without projections (Q = K = V = X) out_proj is the first module drawn.
        after = "" if cfg.projection == "none" else " after the q/k/v projections,"
        return (
            f"Drawn by nn.Linear({n}, {n})'s initialisation, uniform in ±1/√{n} = "
            f"±{num(1 / math.sqrt(n))},{after} from torch.manual_seed({cfg.seed})."
        )
    if cfg.projection == "rand":
        return (
            "Drawn by torch.rand(d_in, d_out), uniform in [0, 1), from "
            f"torch.manual_seed({cfg.seed})."
        )
    bound = 1 / math.sqrt(cfg.d_in)
    return (
        f"Drawn by nn.Linear({cfg.d_in}, {cfg.d_out})'s initialisation, uniform in ±1/√d_in = "
        f"±{num(bound)}, from torch.manual_seed({cfg.seed})."
    )


def _weight(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    symbol = ARRAY_INFO[name].symbol
    value = trace.matrix(name, h)[i, j]
    if name == "w_out":
        rows = "concatenated dimension" if trace.heads > 1 else "dimension of Z"
        where = f"row {i + 1} ({rows}), column {j + 1} (output dimension)"
    else:
        role = name.removeprefix("w_")
        where = f"row {i + 1} (input dimension), column {j + 1} ({role} dimension)"
    lines = [f"{symbol}[{i + 1},{j + 1}] = {num(value)}", f"{where}."]
    lines += [_stored_as(trace, name, h, i, j), _drawn_from(trace, name)]
    return "\n".join(line for line in lines if line)


# The modules' names, as the tutorials' classes and the exported code call them.
_MODULES = {"w_query": "W_query", "w_key": "W_key", "w_value": "W_value", "w_out": "out_proj"}


def _stored_as(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    """Where print(module.weight) shows a W cell: nn.Linear keeps its weight as
    (out_features, in_features) and computes x·weightᵀ, so the W of X·W is weightᵀ and
    W[i,j] is weight[j,i]. torch.rand(d_in, d_out) (projection "rand") is W as it is."""
    cfg = trace.config
    if name != "w_out" and cfg.projection != "linear":
        return ""
    symbol, module = ARRAY_INFO[name].symbol, _MODULES[name]
    whole, row = f"{module}.weightᵀ", j
    if name != "w_out" and cfg.heads > 1:
        if cfg.head_layout == "split":  # one W_query for all heads, split by columns
            d_k = cfg.d_head
            row = h * d_k + j
            whole = f"{_columns(h * d_k + 1, (h + 1) * d_k)} of {whole}"
        else:  # each head an nn.Linear of its own
            whole = f"head {h + 1}'s {whole}"
    return (
        f"{symbol} = {whole} (nn.Linear stores W transposed): print({module}.weight) shows "
        f"this value in row {row + 1}, column {i + 1}."
    )


def _bias(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    symbol = ARRAY_INFO[name].symbol
    value = trace.matrix(name, h)[0, j]
    return f"{symbol}[{j + 1}] = {num(value)}\n{_drawn_from(trace, name)}"


def _projection(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    letter = {"queries": "q", "keys": "k", "values": "v"}[name]
    role = {"queries": "query", "keys": "key", "values": "value"}[name]
    source = "x" if name == "queries" or not trace.config.is_cross else "x_kv"
    tokens = trace.q_tokens if name == "queries" else trace.k_tokens
    value = trace[name][h, i, j]
    head = f"{letter}{i + 1}[{j + 1}]"
    about = f"Dimension {j + 1} of the {role} of token {i + 1} {_token(tokens, i)}."
    x_row = trace[source][i]
    if f"w_{role}" not in trace.arrays:
        return (
            f"{head} = {_x(source)}{i + 1}[{j + 1}] = {num(value)}\n"
            f"{about} No projection: {letter.upper()} = X."
        )
    w_col = trace[f"w_{role}"][h, :, j]
    pairs = list(zip(x_row.tolist(), w_col.tolist(), strict=True))
    w = ARRAY_INFO[f"w_{role}"].symbol
    formula = f"{head} = {_x(source)}{i + 1}·{w}[:,{j + 1}]"
    sums = _sum_of_products(pairs)
    bias_name = f"b_{role}"
    if bias_name in trace.arrays:
        b = trace[bias_name][h, j]
        formula += f" + {ARRAY_INFO[bias_name].symbol}[{j + 1}]"
        sums += f" + {_factor(b)}"
    return f"{formula} = {sums} = {num(value)}\n{about}"


# ---------------------------------------------------------------------------- scores & mask
def _mask_reason(trace: Trace, i: int, j: int) -> str:
    cfg = trace.config
    reasons = []
    if cfg.causal and j > i:
        reasons.append(f"key {j + 1} comes after query {i + 1} (causal mask)")
    if cfg.valid_len is not None and j >= cfg.valid_len:
        reasons.append(f"key {j + 1} is padding, beyond the valid length {cfg.valid_len}")
    return " and ".join(reasons)


def _scores(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    q = trace["queries"][h, i]
    k = trace["keys"][h, j]
    value = trace["scores"][h, i, j]
    pairs = list(zip(q.tolist(), k.tolist(), strict=True))
    return (
        f"ω[{i + 1},{j + 1}] = q{i + 1}·k{j + 1} = {_sum_of_products(pairs)} = {num(value)}\n"
        f"How much query {i + 1} {_token(trace.q_tokens, i)} matches key {j + 1} "
        f"{_token(trace.k_tokens, j)}."
    )


def _divisor_text(trace: Trace) -> tuple[str, str]:
    """The divisor symbolically and as a number, e.g. ('√2 · 0.5', '0.7071')."""
    cfg = trace.config
    parts = []
    if cfg.scale:
        parts.append(f"√{cfg.d_head}")
    if cfg.temperature != 1:
        parts.append(f"{cfg.temperature:g}")
    return " · ".join(parts), operand(cfg.scale_divisor)


def _scaled(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    if trace.config.mask_first:
        return _scaled_masked(trace, h, i, j)
    raw = trace["scores"][h, i, j]
    value = trace["scaled_scores"][h, i, j]
    symbolic = _divisor_text(trace)[0]
    if not symbolic:  # no ω̃: the scores go on as ω, as every stage after writes them
        return (
            f"ω[{i + 1},{j + 1}] = {num(value)}\n"
            "Not scaled: √d_k scaling is off and T = 1, so the score goes on as it is."
        )
    if " · " in symbolic:
        symbolic = f"({symbolic})"
    why = []
    if trace.config.scale:
        why.append(f"√d_k with d_k = {trace.config.d_head}, the width of a key")
    if trace.config.temperature != 1:
        why.append(f"temperature T = {trace.config.temperature:g}")
    dividend, divisor = _division(float(raw), trace.config.scale_divisor, float(value))
    return (
        f"ω̃[{i + 1},{j + 1}] = ω[{i + 1},{j + 1}] / {symbolic} = {dividend} / {divisor} = "
        f"{num(value)}\nDivided by {' and '.join(why)}."
    )


def _scaled_masked(trace: Trace, h: int, i: int, j: int) -> str:
    """A cell of ωₘ / √d_k, tutorial 000's order: the masked raw score divided, −∞ staying
    −∞ (softmax(masked / keys.shape[-1]**0.5))."""
    cfg = trace.config
    symbolic = _divisor_text(trace)[0]
    if " · " in symbolic:
        symbolic = f"({symbolic})"
    cell = f"[{i + 1},{j + 1}]"
    lead = f"ω̃ₘ{cell} = ωₘ{cell} / {symbolic}"
    reason = _mask_reason(trace, i, j)
    if reason:
        return (
            f"{lead} = −∞ / {symbolic} = −∞\nHidden, because {reason}: masked before the "
            "division, and −∞ divided by a positive number stays −∞; softmax gives it 0."
        )
    raw = trace["masked_scores"][h, i, j]
    value = trace["scaled_scores"][h, i, j]
    why = []
    if cfg.scale:
        why.append(f"√d_k with d_k = {cfg.d_head}, the width of a key")
    if cfg.temperature != 1:
        why.append(f"temperature T = {cfg.temperature:g}")
    dividend, divisor = _division(float(raw), cfg.scale_divisor, float(value))
    return (
        f"{lead} = {dividend} / {divisor} = {num(value)}\n"
        f"The masked score divided by {' and '.join(why)}: what softmax reads."
    )


def _digits(value: float, significant: int) -> str:
    return f"{value:.{significant}g}"


def _division(
    a: float, b: float, value: float, first: tuple[str, str] | None = None
) -> tuple[str, str]:
    """The two numbers a shown division a / b = value works from: `first` (by default the
    score as its matrix shows it, 4 decimals, and b as `operand` writes it), unless their
    quotient would then miss the shown result; then one or both with a digit or two more.
    0.0760 / 0.5000 is not 0.1521, 0.076033 / 0.5000 is; 0.3200 / 1.7321 is not 0.1848,
    0.3200 / 1.73205 is; 1.0085 / 7.2010 is not 0.1401 to the digit, 1.00854 / 7.2010 is."""
    tries = [
        first or (num(a), operand(b)),
        (_digits(a, 5), operand(b)),
        (_digits(a, 6), operand(b)),
        (num(a), _digits(b, 6)),
        (_digits(a, 6), _digits(b, 6)),
        (_digits(a, 7), _digits(b, 7)),
    ]
    for x, y in tries:
        if float(y) != 0 and _holds(float(x) / float(y), value):
            return x, y
    return tries[0]


def _holds(quotient: float, value: float) -> bool:
    """Whether a shown quotient rounds to the shown value, as a learner rounds by hand (half
    up; a binary float's 0.14004999… for 0.14005 is no miss)."""
    shown = float(num(value))
    return abs(quotient - shown) <= 0.5e-4 * (1 + 1e-9) or num(quotient) == num(value)


def _mask(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    reason = _mask_reason(trace, i, j)
    if reason:
        return f"M[{i + 1},{j + 1}] = True: hidden, because {reason}."
    return (
        f"M[{i + 1},{j + 1}] = False: query {i + 1} {_token(trace.q_tokens, i)} may attend to "
        f"key {j + 1} {_token(trace.k_tokens, j)}."
    )


def _masked(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    reason = _mask_reason(trace, i, j)
    scaled, fed = score_symbols(trace.config)
    if not trace.config.has_mask:  # softmax reads the scores of the stage before as they are
        if scaled == "ω":
            text = _scores(trace, "scores", h, i, j).split("\n")[0]
            return f"{text}\nNot scaled, no mask: softmax reads ω as it is."
        text = _scaled(trace, "scaled_scores", h, i, j).split("\n")[0]
        return f"{text}\nNo mask: softmax reads ω̃ as it is."
    if trace.config.mask_first:  # tutorial 000's order: the raw scores are masked
        if reason:
            return (
                f"ωₘ[{i + 1},{j + 1}] = −∞: hidden, because {reason}.\n"
                "The raw score is masked before it is divided (masked_fill, then "
                f"softmax(masked / {divisor_symbol(trace.config)})): −∞ stays −∞, and "
                "exp(−∞) = 0 gives it weight 0."
            )
        value = trace["masked_scores"][h, i, j]
        return (
            f"ωₘ[{i + 1},{j + 1}] = ω[{i + 1},{j + 1}] = {num(value)} (visible).\n"
            "The raw score, masked before it is divided."
        )
    if trace.config.method_1:  # the scores go to softmax unmasked; its output is masked
        value = trace["masked_scores"][h, i, j]
        text = f"{scaled}[{i + 1},{j + 1}] = {num(value)}: fed to softmax as it is"
        if not reason:
            return f"{text} (method 1 does not mask the scores)."
        zeroed = trace["weights_unmasked"][h, i, j]
        return (
            f"{text}, though hidden, because {reason}.\n"
            f"Method 1 masks after softmax: its weight softmax({scaled})[{i + 1},{j + 1}] = "
            f"{num(zeroed)} is then zeroed, and the row divided by its visible sum."
        )
    if reason:
        return (
            f"{fed}[{i + 1},{j + 1}] = −∞: hidden, because {reason}.\n"
            "exp(−∞) = 0, so its attention weight will be exactly 0."
        )
    value = trace["masked_scores"][h, i, j]
    return f"{fed}[{i + 1},{j + 1}] = {scaled}[{i + 1},{j + 1}] = {num(value)} (visible)."


# ---------------------------------------------------------------------------- softmax & dropout
def _neg_inf_row(trace: Trace, h: int, i: int) -> np.ndarray:
    """Row i of the scores method 2 feeds softmax: −∞ where hidden. Under method 1 the trace's
    scores fed to softmax are unmasked, and the comparison's method 2 masks them itself."""
    if trace.config.mask_first:  # masked, then divided: the scaled scores are softmax's
        return trace["scaled_scores"][h, i].astype(np.float64)
    if not trace.config.method_1:
        return trace["masked_scores"][h, i].astype(np.float64)
    row = trace["scaled_scores"][h, i].astype(np.float64)
    return np.where(trace["mask"][i], -np.inf, row)


def _softmax_terms(row: np.ndarray, j: int, lead: str, value: float) -> str:
    """lead = exp(row[j]) / (exp(…) + …) = a / b = value, over the row's finite entries."""
    visible = np.flatnonzero(np.isfinite(row))
    shift = float(row[visible].max())
    shifted = abs(shift) > 30  # exp would overflow or hide the digits: subtract the row maximum
    offset = shift if shifted else 0.0
    exps = np.exp(row[visible] - offset)

    def term(k: int) -> str:
        if shifted:
            return f"exp({num(row[k])}{NB}−{NB}{_factor(shift)})"
        return f"exp({num(row[k])})"

    terms = [term(k) for k in visible]
    if len(terms) > MAX_TERMS:
        terms = [*terms[: MAX_TERMS - 2], "…", terms[-1]]
    numerator = float(np.exp(row[j] - offset))
    denominator = float(exps.sum())
    top, bottom = _division(
        numerator, denominator, value, (operand(numerator), operand(denominator))
    )
    # Breaks only after "=" and "+": the fractions and the terms stay whole.
    text = (
        f"{lead}{NB}= {term(j)}{NB}/{NB}({f'{NB}+ '.join(terms)}){NB}= "
        f"{top}{NB}/{NB}{bottom}{NB}= {num(value)}"
    )
    if shifted:
        text += f"\nThe row maximum {num(shift)} is subtracted first; softmax does not change."
    return text


def _softmax_lead(cell: str, scores: str, i: int, j: int) -> str:
    """α[2,1] = exp(ω̃ₘ[2,1]) / Σⱼ' exp(ω̃ₘ[2,j']): the softmax stage's formula, its cell
    filled in; one unbreakable piece."""
    return f"{cell}{NB}={NB}exp({scores}[{i + 1},{j + 1}]){NB}/{NB}Σⱼ'{NB}exp({scores}[{i + 1},j'])"


def _softmax_neg_inf(trace: Trace, h: int, i: int, j: int, value: float) -> str:
    row = _neg_inf_row(trace, h, i)
    scaled = score_symbols(trace.config)[0]  # (method 2's, also in a method 1 trace)
    fed = f"{scaled}ₘ" if trace.config.has_mask else scaled
    lead = _softmax_lead(f"α[{i + 1},{j + 1}]", fed, i, j)
    text = _softmax_terms(row, j, lead, value)
    hidden = int(row.size - np.isfinite(row).sum())
    if hidden:
        first, *rest = text.split("\n", 1)
        keys = "The hidden key adds" if hidden == 1 else f"The {hidden} hidden keys add"
        text = "\n".join([first, f"{keys} exp(−∞) = 0 to the sum.", *rest])
    return text


def _unmasked_row(trace: Trace, h: int, i: int) -> np.ndarray:
    """Row i of the scaled scores with no mask (float64): method 1 takes softmax of these.
    Where the raw scores were masked first the trace's scaled scores hold −∞; the comparison
    then divides the raw scores itself, as the engine does."""
    if trace.config.mask_first:
        raw = trace["scores"][h, i]
        return (raw / np.float32(trace.config.scale_divisor)).astype(np.float64)
    return trace["scaled_scores"][h, i].astype(np.float64)


def _softmax_renormalize(trace: Trace, h: int, i: int, j: int, value: float) -> str:
    row = _unmasked_row(trace, h, i)
    soft = np.exp(row - row.max())
    soft /= soft.sum()
    hidden = trace["mask"][i]
    kept = float(soft[~hidden].sum())
    top, bottom = _division(float(soft[j]), kept, value, (operand(soft[j]), operand(kept)))
    s = score_symbols(trace.config)[0]
    return (
        f"α[{i + 1},{j + 1}] = softmax({s})[{i + 1},{j + 1}] / Σ_visible softmax({s})[{i + 1},j'] "
        f"= {top} / {bottom} = {num(value)}\n"
        "Method 1: softmax over the whole row, zero the hidden cells, divide by what is left."
    )


def _weights(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    value = float(trace[name][h, i, j])
    reason = _mask_reason(trace, i, j)
    method = trace.config.mask_method if name == "weights" else name.removeprefix("weights_")
    if reason:
        text = f"α[{i + 1},{j + 1}] = 0: hidden, because {reason}."
        if trace.config.has_mask and method == "renormalize":
            gave = _unmasked_softmax(trace, h, i)[j]
            text += f"\nMethod 1: softmax gave it {num(gave)}, zeroed before renormalizing."
        return text
    if trace.config.has_mask and method == "renormalize":
        text = _softmax_renormalize(trace, h, i, j, value)
    else:
        text = _softmax_neg_inf(trace, h, i, j, value)
    return (
        f"{text}\nQuery {i + 1} {_token(trace.q_tokens, i)} gives this share of its attention "
        f"to key {j + 1} {_token(trace.k_tokens, j)}; the row sums to 1."
    )


def _unmasked_softmax(trace: Trace, h: int, i: int) -> np.ndarray:
    """softmax(ω̃) of row i, every key included: method 1's first step (float64)."""
    row = _unmasked_row(trace, h, i)
    soft = np.exp(row - row.max())
    return soft / soft.sum()


# ---------------------------------------------------------------------------- method 1's steps
def _weights_unmasked(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    row = trace["scaled_scores"][h, i].astype(np.float64)
    value = float(trace[name][h, i, j])
    s = score_symbols(trace.config)[0]
    lead = _softmax_lead(f"softmax({s})[{i + 1},{j + 1}]", s, i, j)
    text = _softmax_terms(row, j, lead, value)
    reason = _mask_reason(trace, i, j)
    hidden = int(trace["mask"][i].sum())
    if row.size == 1:
        text += "\nMethod 1, first step: softmax over the row's one key."
    elif hidden:
        text += (
            f"\nMethod 1, first step: softmax over all {row.size} keys of the row, the "
            f"{'hidden one' if hidden == 1 else f'{hidden} hidden ones'} included."
        )
    else:  # a row without hidden keys ("the hidden ones included" where there are none)
        text += (
            f"\nMethod 1, first step: softmax over all {row.size} keys of the row; none of "
            f"them is hidden from query {i + 1}."
        )
    if reason:
        text += f"\nHidden, because {reason}: this weight is zeroed next."
    return text


def _weights_zeroed(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    soft = trace["weights_unmasked"][h, i, j]
    value = trace[name][h, i, j]
    reason = _mask_reason(trace, i, j)
    s = score_symbols(trace.config)[0]
    lead = (
        f"softmax({s})[{i + 1},{j + 1}] × (1 − M[{i + 1},{j + 1}]) = {operand(soft)} × "
        f"{0 if reason else 1} = "
    )
    if reason:
        return f"{lead}0: hidden, because {reason}.\nMethod 1, second step: zero the hidden."
    row_sum = trace["row_sums"][h, i, 0]
    if not trace["mask"][i].any():  # not "now sums to 1.0000, not 1"
        return (
            f"{lead}{num(value)} (visible).\nMethod 1, second step: no key of row {i + 1} is "
            "hidden, so none of its weights is zeroed; it still sums to 1."
        )
    return (
        f"{lead}{num(value)} (visible).\nMethod 1, second step: the hidden weights are zeroed; "
        f"row {i + 1} now sums to {num(row_sum)}, not 1."
    )


def _row_sums(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    zeroed = trace["weights_zeroed"][h, i]
    visible = np.flatnonzero(~trace["mask"][i])
    value = trace[name][h, i, 0]
    terms = [operand(zeroed[k]) for k in visible]
    if len(terms) > MAX_TERMS:
        terms = [*terms[: MAX_TERMS - 2], "…", terms[-1]]
    hidden_share = 1.0 - float(value)
    sum_line = f"Σ_visible[{i + 1}] = {' + '.join(terms)} = {num(value)}"
    hidden = trace["mask"][i].size - visible.size
    if not hidden:  # not "the hidden keys had taken 0.0000"
        return (
            f"{sum_line}\nMethod 1, third step: no key of row {i + 1} is hidden, so its "
            f"{visible.size} weights already sum to 1 and dividing by the sum changes nothing."
            if visible.size > 1
            else f"{sum_line}\nMethod 1, third step: row {i + 1}'s one weight is 1 already."
        )
    if visible.size == 1:
        divided = f"row {i + 1}'s one visible weight is divided by this sum, which makes it 1"
    else:
        divided = (
            f"row {i + 1}'s {visible.size} visible weights are divided by this sum, so that "
            "they add up to 1 again"
        )
    taken = "the hidden key had" if hidden == 1 else f"the {hidden} hidden keys had"
    return f"{sum_line}\nMethod 1, third step: {divided}; {taken} taken {num(hidden_share)}."


def _keep(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    p = trace.config.dropout
    if trace["dropout_keep"][h, i, j]:
        return (
            f"keep[{i + 1},{j + 1}] = 1: kept (probability 1 − p = {1 - p:g}), "
            f"then multiplied by 1/(1 − p) = {num(1 / (1 - p))}."
        )
    return f"keep[{i + 1},{j + 1}] = 0: dropped (probability p = {p:g}); the weight becomes 0."


def _dropped(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    weight = float(trace["weights"][h, i, j])
    value = trace["weights_dropped"][h, i, j]
    cfg = trace.config
    reason = _mask_reason(trace, i, j)
    if not cfg.dropout_active:  # the cell is α's, and is named so (as its matrix is)
        why = "evaluation mode" if not cfg.training else "p = 0"
        if reason:
            return f"α[{i + 1},{j + 1}] = 0: hidden, because {reason} (no dropout: {why})."
        return (
            f"α[{i + 1},{j + 1}] = {num(value)}: no dropout ({why}), the softmax weight "
            "is used as it is."
        )
    keep = int(trace["dropout_keep"][h, i, j])
    if reason:  # α is 0 there already: whatever the keep-mask says, the cell stays 0
        return (
            f"α_d[{i + 1},{j + 1}] = 0: hidden, because {reason}.\n"
            f"Its softmax weight α[{i + 1},{j + 1}] is 0, and dropout (keep = {keep}) "
            "leaves it 0."
        )
    # The weight as its matrix shows it (4 decimals), unless the shown product would then
    # miss the shown result: 0.3800 × 1 / 0.5000 is not 0.7599, 0.37997 × 1 / 0.5000 is.
    scale = 1 / (1 - cfg.dropout)
    shown = num(weight)
    if keep and num(float(shown) * scale) != num(value):
        shown = operand(weight)
    text = (
        f"α_d[{i + 1},{j + 1}] = α[{i + 1},{j + 1}] × keep / (1 − p) = {shown} × "
        f"{keep} / {operand(1 - cfg.dropout)} = {num(value)}"
    )
    if not keep:
        text += f"\nDropped by the keep-mask (probability p = {cfg.dropout:g})."
    return text


# ---------------------------------------------------------------------------- outputs
def context_lead(alpha: str, i: int, j: int | None = None) -> str:
    """z2[1] = Σⱼ α[2,j]·vⱼ[1]: the context stage's formula, its query (and dimension) filled
    in, in the formula's notation; one unbreakable piece. The whole row (j None) is
    z2 = Σⱼ α[2,j]·vⱼ."""
    dim = "" if j is None else f"[{j + 1}]"
    return f"z{i + 1}{dim}{NB}={NB}Σⱼ{NB}{alpha}[{i + 1},j]·vⱼ{dim}"


def _head_context(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    weights = trace["weights_dropped"][h, i]
    values = trace["values"][h, :, j]
    value = trace["head_contexts"][h, i, j]
    used = [k for k in range(weights.size) if weights[k] != 0]
    pairs = [(float(weights[k]), float(values[k])) for k in used]
    # After dropout the weights are α_d, and they no longer sum to 1.
    alpha = trace.info("weights_dropped").symbol
    dropped = trace.config.dropout_active
    text = f"{context_lead(alpha, i, j)}{NB}= {_sum_of_products(pairs)} = {num(value)}"
    skipped = weights.size - len(used)
    if skipped:
        keys = "1 key with weight 0 is" if skipped == 1 else f"{skipped} keys with weight 0 are"
        text += f"\n{keys} left out of the sum."
    kind = (
        "a weighted sum of the values (after dropout the weights sum to "
        f"{num(float(weights.astype(np.float64).sum()))}, not 1)"
        if dropped
        else "a weighted average of the values"
    )
    return (
        f"{text}\nDimension {j + 1} of the context of query {i + 1} {_token(trace.q_tokens, i)}: "
        f"{kind}."
    )


def _concat(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    d_head = trace.config.d_head
    head, dim = divmod(j, d_head)
    value = trace["concat"][i, j]
    if trace.heads == 1:
        return f"Z_cat[{i + 1},{j + 1}] = z{i + 1}[{j + 1}] = {num(value)}\nOne head: Z_cat is Z."
    columns = _columns(head * d_head + 1, (head + 1) * d_head)
    hold = "holds" if d_head == 1 else "hold"
    return (
        f"Z_cat[{i + 1},{j + 1}] = z{i + 1}[{dim + 1}] of head {head + 1} = {num(value)}\n"
        f"{columns.capitalize()} {hold} head {head + 1}'s context."
    )


def _context(trace: Trace, name: str, h: int, i: int, j: int) -> str:
    value = trace["context"][i, j]
    if "w_out" not in trace.arrays:
        # The output is a head's context itself: its derivation, not a pointer to Z_cat, which
        # the Matrices tab does not show.
        head, dim = divmod(j, trace.config.d_head)
        derivation = _head_context(trace, "head_contexts", head, i, dim)
        if trace.heads == 1:
            lead = (
                f"out{i + 1}[{j + 1}] = z{i + 1}[{dim + 1}]: no output projection, the output is Z."
            )
        else:
            lead = (
                f"out{i + 1}[{j + 1}] = Z_cat[{i + 1},{j + 1}] = z{i + 1}[{dim + 1}] of head "
                f"{head + 1}: no output projection, the output is Z_cat, the heads' contexts "
                "side by side."
            )
        return f"{lead}\n{derivation}"
    pairs = list(zip(trace["concat"][i].tolist(), trace["w_out"][:, j].tolist(), strict=True))
    bias = trace["b_out"][j]
    return (
        f"out{i + 1}[{j + 1}] = Z_cat{i + 1}·W_o[:,{j + 1}] + b_o[{j + 1}] = "
        f"{_sum_of_products(pairs)} + {_factor(bias)} = {num(value)}"
    )


_EXPLAINERS = {
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
    "scores": _scores,
    "scaled_scores": _scaled,
    "mask": _mask,
    "masked_scores": _masked,
    "weights": _weights,
    "weights_neg_inf": _weights,
    "weights_renormalize": _weights,
    "weights_unmasked": _weights_unmasked,
    "weights_zeroed": _weights_zeroed,
    "row_sums": _row_sums,
    "dropout_keep": _keep,
    "weights_dropped": _dropped,
    "head_contexts": _head_context,
    "concat": _concat,
    "context": _context,
}
