"""What each array of a trace is: its axes and how its values should be read.

One registry of structural facts serves every consumer: axis labels, the colour map choice
(signed values on a diverging map, weights on a sequential one), CSV headers and JSON
entries. Axis names refer to `Trace.axis_labels()`. The symbols and titles a user reads are
words, and live in `attn_explorer.text.titles`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArrayInfo:
    """How to read one trace array.

    `rows`/`cols` name the label set of each axis ("q_tokens", "k_tokens", "d_in", "d_head",
    "row_sum", "concat", "width"); `rows` is None for a vector. `kind` is "signed" (diverging
    colours centred on 0), "weights" (0..1, sequential), "mask" (True = masked) or "keep"
    (True = kept by dropout).
    """

    name: str
    rows: str | None
    cols: str
    per_head: bool
    kind: str = "signed"


ARRAY_INFO: dict[str, ArrayInfo] = {
    info.name: info
    for info in (
        ArrayInfo("x", "q_tokens", "d_in", False),
        ArrayInfo("x_kv", "k_tokens", "d_in", False),
        ArrayInfo("w_query", "d_in", "d_head", True),
        ArrayInfo("w_key", "d_in", "d_head", True),
        ArrayInfo("w_value", "d_in", "d_head", True),
        ArrayInfo("b_query", None, "d_head", True),
        ArrayInfo("b_key", None, "d_head", True),
        ArrayInfo("b_value", None, "d_head", True),
        ArrayInfo("queries", "q_tokens", "d_head", True),
        ArrayInfo("keys", "k_tokens", "d_head", True),
        ArrayInfo("values", "k_tokens", "d_head", True),
        ArrayInfo("scores", "q_tokens", "k_tokens", True),
        ArrayInfo("scaled_scores", "q_tokens", "k_tokens", True),
        ArrayInfo("mask", "q_tokens", "k_tokens", False, "mask"),
        ArrayInfo("masked_scores", "q_tokens", "k_tokens", True),
        # Mask method 1's own steps (tutorial 000): softmax of every scaled score, the hidden
        # weights zeroed, each row's visible sum (which the zeroed row is divided by).
        ArrayInfo("weights_unmasked", "q_tokens", "k_tokens", True, "weights"),
        ArrayInfo("weights_zeroed", "q_tokens", "k_tokens", True, "weights"),
        ArrayInfo("row_sums", "q_tokens", "row_sum", True, "weights"),
        ArrayInfo("weights", "q_tokens", "k_tokens", True, "weights"),
        ArrayInfo("weights_neg_inf", "q_tokens", "k_tokens", True, "weights"),
        ArrayInfo("weights_renormalize", "q_tokens", "k_tokens", True, "weights"),
        ArrayInfo("dropout_keep", "q_tokens", "k_tokens", True, "keep"),
        ArrayInfo("weights_dropped", "q_tokens", "k_tokens", True, "weights"),
        ArrayInfo("head_contexts", "q_tokens", "d_head", True),
        ArrayInfo("concat", "q_tokens", "concat", False),
        ArrayInfo("w_out", "concat", "width", False),
        ArrayInfo("b_out", None, "width", False),
        ArrayInfo("context", "q_tokens", "width", False),
    )
}
