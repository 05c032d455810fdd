"""The engine's sentences: why a config cannot be computed, each under a code, in English.

The engine is the bottom layer and imports no words from `attn_explorer.text`, yet what it
refuses is read by learners in their language. So a problem carries its code and its numbers
(`Problem.code`, `Problem.params`, the same on `ConfigError`), and its English `message` is
formatted here from the template: `str(ConfigError)` stays English for a Python user, and
`attn_explorer.text.problems.problem_text` writes the same sentence in the current language
from the same template, which `N_` marks for the catalogue (engine.po).

A template's placeholders are named, so a translation may reorder them. A parameter is a
number, a symbol (a field name, a Python repr such as 'b' or 1.5), or a tuple of choices,
which English lists as "a, b or c" and each language in its own words.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def N_(message: str) -> str:
    """Mark `message` for the catalogue without translating it: the engine speaks English."""
    return message


PROBLEMS: dict[str, str] = {
    # -------------------------------------------------------- the query sequence
    "tokens_not_strings": N_("The tokens must be a list of strings."),
    "no_tokens": N_("There are no tokens: add at least one."),
    "embeddings_not_table": N_("The embeddings must be a table of numbers."),
    "rows_mismatch": N_(
        "There are {tokens} tokens but {rows} embedding rows: each token needs exactly one row."
    ),
    "no_dimension": N_("The embeddings need at least one dimension."),
    "row_width": N_(
        "Token {index} ({token}) has {numbers} numbers but token 1 has {width}: every "
        "embedding needs the same number of dimensions."
    ),
    "not_a_number": N_("Token {index} ({token}), dimension {dimension} is not a number ({value})."),
    "nan": N_(
        "Token {index} ({token}), dimension {dimension} is NaN: every value must be a number."
    ),
    "infinite": N_(
        "Token {index} ({token}), dimension {dimension} is infinite: every value must be finite."
    ),
    "too_large": N_(
        "Token {index} ({token}), dimension {dimension} is {value:g}, too large for float32 "
        "(about ±3.4e38), the precision the engine computes in."
    ),
    # -------------------------------------------------------- a real head's weights
    "given_d_in": N_(
        "The head's weights read {d_in}-wide embeddings but these are {width} wide: "
        "give every token {d_in} dimensions."
    ),
    "given_heads": N_("The given weights are {heads} heads: set the number of heads to {heads}."),
    "given_d_out": N_("The given weights make heads {d_head} wide: set d_out to {d_out}."),
    # -------------------------------------------------------- the key/value sequence
    "cross_incomplete": N_("Cross-attention needs both key/value tokens and their embeddings."),
    "kv_tokens_not_strings": N_("The key/value tokens must be a list of strings."),
    "kv_no_tokens": N_("There are no key/value tokens: add at least one."),
    "kv_embeddings_not_table": N_("The key/value embeddings must be a table of numbers."),
    "kv_rows_mismatch": N_(
        "There are {tokens} key/value tokens but {rows} embedding rows: each token needs "
        "exactly one row."
    ),
    "kv_no_dimension": N_("The key/value embeddings need at least one dimension."),
    "kv_row_width": N_(
        "Key/value token {index} ({token}) has {numbers} numbers but token 1 has {width}: every "
        "embedding needs the same number of dimensions."
    ),
    "kv_not_a_number": N_(
        "Key/value token {index} ({token}), dimension {dimension} is not a number ({value})."
    ),
    "kv_nan": N_(
        "Key/value token {index} ({token}), dimension {dimension} is NaN: every value must be "
        "a number."
    ),
    "kv_infinite": N_(
        "Key/value token {index} ({token}), dimension {dimension} is infinite: every value "
        "must be finite."
    ),
    "kv_too_large": N_(
        "Key/value token {index} ({token}), dimension {dimension} is {value:g}, too large for "
        "float32 (about ±3.4e38), the precision the engine computes in."
    ),
    "kv_width": N_(
        "The key/value embeddings have {kv} dimensions but the query embeddings have {q}: "
        "both sequences must live in the same embedding space."
    ),
    # -------------------------------------------------------- the settings
    "unknown_projection": N_("Unknown projection {value}: choose {choices}."),
    "unknown_head_layout": N_("Unknown head layout {value}: choose {choices}."),
    "unknown_mask_method": N_("Unknown mask method {value}: choose {choices}."),
    "unknown_ablate_mode": N_("Unknown way to switch a head off {value}: choose {choices}."),
    "not_bool": N_("{name} must be True or False."),
    "d_out_not_int": N_("d_out must be a whole number (it is {value})."),
    "d_out_below_1": N_("d_out must be at least 1 (it is {value})."),
    "heads_not_int": N_("The number of heads must be a whole number ({value})."),
    "heads_below_1": N_("There must be at least one head (it is {value})."),
    "heads_without_projection": N_(
        "Without projections (Q = K = V = X) all {heads} heads would be identical: use one "
        "head, or the rand or linear projection."
    ),
    "heads_do_not_split": N_(
        "d_out {d_out} cannot be split into {heads} heads: with the split layout d_out must "
        "be a multiple of the number of heads."
    ),
    "ablate_not_heads": N_(
        "The heads switched off must be a list of head numbers from 1 (it is {value})."
    ),
    "ablate_range": N_("Head {head} cannot be switched off: the heads are numbered 1 to {heads}."),
    "dropout_range": N_(
        "Dropout must be at least 0 and below 1 (it is {value}): p is the chance of dropping "
        "each attention weight."
    ),
    "temperature_not_positive": N_("The temperature must be a positive number (it is {value})."),
    "valid_len_not_int": N_("The valid length must be a whole number ({value})."),
    "valid_len_range": N_(
        "Valid length {value} is outside 1 to {keys}: at least one key must stay visible and "
        "there are {keys} keys."
    ),
    "causal_cross": N_(
        "A causal mask needs as many queries as keys ({queries} queries, {keys} keys): switch "
        "causal off for cross-attention."
    ),
    "seed_range": N_("The seed must be a whole number from 0 to 2^63-1 ({value})."),
    "dropout_seed_range": N_("The dropout seed must be a whole number from 0 to 2^63-1 ({value})."),
    # -------------------------------------------------------- the size
    "too_big": N_(
        "{queries} queries × {keys} keys is {cells:,} attention weights, more than the "
        "{limit:,} this explorer computes: use fewer tokens or heads."
    ),
    "too_big_heads": N_(
        "{heads} heads × {queries} queries × {keys} keys is {cells:,} attention weights, more "
        "than the {limit:,} this explorer computes: use fewer tokens or heads."
    ),
    # -------------------------------------------------------- found while computing
    "temperature_overflow": N_(
        "The temperature {temperature:g} is so small that the scaled scores overflow float32: "
        "raise it."
    ),
    "overflow": N_(
        "The numbers overflowed float32 while multiplying (largest embedding magnitude "
        "{biggest:.3g}): use smaller embedding values."
    ),
    "method_1_underflow": N_(
        "With method 1 (softmax, zero the hidden, renormalize) a row's visible weights all "
        "underflow to 0, the hidden keys having taken all the weight: raise the temperature "
        "({temperature:g}) or use method 2 (−∞, then softmax)."
    ),
}

# The one axis label the engine names in words: the column of method 1's row sums, each
# row's sum over its visible keys (`Trace.axis_labels`).
ROW_SUM = N_("Σ visible")

# How a sentence lists its choices ("none, rand or linear"): each language has its own "or".
OR = N_("{items} or {last}")

Params = tuple[tuple[str, Any], ...]


def or_list(items: Iterable[str]) -> str:
    """Choices in an English message, "a, b or c", as given: quote the items first to quote
    them."""
    items = tuple(items)
    return OR.format(items=", ".join(items[:-1]), last=items[-1]) if len(items) > 1 else items[0]


def english(code: str, params: Params) -> str:
    """The English sentence of problem `code` with its parameters."""
    return PROBLEMS[code].format(
        **{name: or_list(value) if isinstance(value, tuple) else value for name, value in params}
    )
