"""Help → Lessons' table, its second half: the notebook, d2l, Ngày 43 and the blog, section
by section, with the numbers they print (see text/lessons.py). Data."""

from __future__ import annotations

from attn_explorer.text.i18n import N_
from attn_explorer.text.lessons_chapter3 import (
    _V1_CONTEXT_2,
    _V1_QUERY_2,
    _V1_SCORES_2,
    _V1_WEIGHTS_2,
)
from attn_explorer.text.lessons_types import Printed, Section, Tutorial
from attn_explorer.text.tutorials import TUTORIALS as NAMES

NOTEBOOK = Tutorial(
    "trainable-weights-notebook",
    NAMES["notebook"].title,
    (
        Section(
            "",
            N_("Initialize the three matrices W_q, W_k, W_v"),
            "v1",
            "projections",
            N_(
                "torch.manual_seed(123), then torch.rand(3, 2) three times: W_query, W_key, "
                "W_value."
            ),
            (
                Printed(
                    "W_query",
                    N_("the query weight matrix"),
                    "w_query",
                    (0,),
                    ((0.2961, 0.5166), (0.2517, 0.6886), (0.0740, 0.8665)),
                ),
                Printed(
                    "W_key",
                    N_("the key weight matrix"),
                    "w_key",
                    (0,),
                    ((0.1366, 0.1025), (0.1841, 0.7264), (0.3153, 0.6871)),
                ),
                Printed(
                    "W_value",
                    N_("the value weight matrix"),
                    "w_value",
                    (0,),
                    ((0.0756, 0.1966), (0.3164, 0.4017), (0.1186, 0.8274)),
                ),
            ),
        ),
        Section(
            "",
            N_("Compute the query, key and value of x⁽²⁾"),
            "v1",
            "projections",
            N_("x⁽²⁾ “journey” multiplied by each weight matrix: x_2 @ W_query, and so on."),
            (
                Printed("query_2", N_("query of “journey”"), "queries", (0, 1), _V1_QUERY_2),
                Printed("key_2", N_("key of “journey”"), "keys", (0, 1), (0.4433, 1.1419)),
                Printed("value_2", N_("value of “journey”"), "values", (0, 1), (0.3951, 1.0037)),
            ),
        ),
        Section(
            "",
            N_("Compute the key and value vectors of every token"),
            "v1",
            "projections",
            N_("inputs @ W_key and inputs @ W_value: one row per token."),
            (
                Printed(
                    "keys",
                    N_("keys of every token"),
                    "keys",
                    (0,),
                    (
                        (0.3669, 0.7646),
                        (0.4433, 1.1419),
                        (0.4361, 1.1156),
                        (0.2408, 0.6706),
                        (0.1827, 0.3292),
                        (0.3275, 0.9642),
                    ),
                ),
                Printed(
                    "values",
                    N_("values of every token"),
                    "values",
                    (0,),
                    (
                        (0.1855, 0.8812),
                        (0.3951, 1.0037),
                        (0.3879, 0.9831),
                        (0.2393, 0.5493),
                        (0.1492, 0.3346),
                        (0.3221, 0.7863),
                    ),
                ),
            ),
        ),
        Section(
            "",
            N_("Compute the attention scores ω₂ᵢ"),
            "v1",
            "scores",
            N_("query_2 @ keys.T: the dot product of “journey”'s query with every key."),
            (
                Printed(
                    "attn_scores_2",
                    N_("attention scores of “journey”"),
                    "scores",
                    (0, 1),
                    _V1_SCORES_2,
                ),
            ),
        ),
        Section(
            "",
            N_("Compute the attention weights"),
            "v1",
            "softmax",
            N_("softmax(attn_scores_2 / √d_k), with d_k = 2, the width of the keys."),
            (
                Printed(
                    "attn_weights_2",
                    N_("attention weights of “journey”"),
                    "weights",
                    (0, 1),
                    _V1_WEIGHTS_2,
                ),
            ),
        ),
        Section(
            "",
            N_("Compute the context vector"),
            "v1",
            "context",
            N_("attn_weights_2 @ values: the values weighted by “journey”'s attention."),
            (
                Printed(
                    "context_vector_2",
                    N_("context vector of “journey”"),
                    "context",
                    (1,),
                    _V1_CONTEXT_2,
                ),
            ),
        ),
    ),
)

# d2l prints no number in this section (only a shape); its sections are unnumbered here as in
# the Vietnamese edition's source.
D2L = Tutorial(
    "d2l-multihead",
    NAMES["d2l"].title,
    (
        Section(
            "",
            N_("Model"),
            "mha",
            "out_proj",
            N_(
                "Each head attends with its own projections of the queries, keys and values; "
                "the heads' outputs are concatenated and multiplied by W_o (here out_proj)."
            ),
        ),
        Section(
            "",
            N_("Implementation"),
            "cross",
            "scores",
            N_(
                "The tutorial tests its class on 4 queries and 6 key-value pairs and prints "
                "only the output's shape, (2, 4, 100). Here 4 decoder tokens read the running "
                "example's 6 tokens, through 2 heads of width 2 and W_o (seed 123)."
            ),
            part=N_("queries and keys of different lengths"),
        ),
        Section(
            "",
            N_("Implementation"),
            "padding",
            "mask",
            N_(
                "With valid_lens, the keys beyond the valid length are masked before "
                "softmax: the two <pad> tokens get weight 0 in every row."
            ),
            part=N_("the padding mask (valid_lens)"),
        ),
        Section(
            "",
            N_("Exercises"),
            "cross",
            None,
            N_(
                "Exercise 1: visualize the attention weights of the heads. Ctrl+[ and Ctrl+] "
                "step through the heads; Ctrl+G shows them side by side."
            ),
            part=N_("the attention weights of every head"),
        ),
    ),
)


# Ngày 43 did the arithmetic by hand, to 2 or 3 decimals: `written` holds what it wrote, the
# values the exact numbers (SEEDS.md).
DAY_43 = Tutorial(
    "day-43",
    NAMES["day43"].title,
    (
        Section(
            "",
            N_("Step 1: Create word embeddings"),
            "happy",
            "embeddings",
            N_("“I am happy”: three tokens of 3 dimensions."),
            (
                Printed(
                    "I, am, happy",
                    N_("the embeddings"),
                    "x",
                    (),
                    ((0.1, 0.2, 0.3), (0.4, 0.5, 0.6), (0.7, 0.8, 0.9)),
                    written=(("0.1", "0.2", "0.3"), ("0.4", "0.5", "0.6"), ("0.7", "0.8", "0.9")),
                ),
            ),
        ),
        Section(
            "",
            N_("Step 2: Turn them into Q, K, V"),
            "happy",
            "projections",
            N_(
                "For simplicity the tutorial takes Q = K = V = the embeddings, with no "
                "learned projection; the example computes none either."
            ),
            (
                Printed(
                    "Q",
                    N_("the queries (the keys and values are the same)"),
                    "queries",
                    (0,),
                    ((0.1, 0.2, 0.3), (0.4, 0.5, 0.6), (0.7, 0.8, 0.9)),
                    written=(("0.1", "0.2", "0.3"), ("0.4", "0.5", "0.6"), ("0.7", "0.8", "0.9")),
                ),
            ),
        ),
        Section(
            "",
            N_("Step 3: Compute Q × Kᵀ (dot products)"),
            "happy",
            "scores",
            N_("Every query's dot product with every key; the first row is “I”'s."),
            (
                Printed(
                    "Q × K^T",
                    N_("attention scores"),
                    "scores",
                    (0,),
                    ((0.14, 0.32, 0.50), (0.32, 0.77, 1.22), (0.50, 1.22, 1.94)),
                    written=(
                        ("0.14", "0.32", "0.50"),
                        ("0.32", "0.77", "1.22"),
                        ("0.50", "1.22", "1.94"),
                    ),
                ),
            ),
        ),
        Section(
            "",
            N_("Step 4: Scale by √d_k"),
            "happy",
            "scale",
            N_("d_k = 3: every score divided by √3 ≈ 1.7321."),
            (
                Printed(
                    "Q×K^T / √3",
                    N_("scaled attention scores"),
                    "scaled_scores",
                    (0,),
                    (
                        (0.0808, 0.1848, 0.2887),
                        (0.1848, 0.4446, 0.7044),
                        (0.2887, 0.7044, 1.1201),
                    ),
                    written=(
                        ("0.08", "0.18", "0.29"),
                        ("0.18", "0.44", "0.70"),
                        ("0.29", "0.70", "1.12"),
                    ),
                ),
            ),
        ),
        Section(
            "",
            N_("Step 5: Apply softmax"),
            "happy",
            "softmax",
            N_(
                "The tutorial's first row is right; its rows for “am” and “happy” have slips "
                "of hand arithmetic: the largest score of a row must get the largest weight."
            ),
            (
                Printed(
                    "softmax",
                    N_("attention weights"),
                    "weights",
                    (0,),
                    (
                        (0.2994, 0.3321, 0.3685),
                        (0.2514, 0.3260, 0.4227),
                        (0.2078, 0.3149, 0.4773),
                    ),
                    written=(
                        ("0.30", "0.33", "0.37"),
                        ("0.26", "0.37", "0.37"),
                        ("0.25", "0.36", "0.39"),
                    ),
                ),
            ),
        ),
        Section(
            "",
            N_("Step 6: Multiply by the value matrix (V)"),
            "happy",
            "context",
            N_(
                "The rows for “am” and “happy” carry the slips of step 5, and the first row "
                "adds products rounded to 2 decimals: 0.53 where the exact value is 0.5207."
            ),
            (
                Printed(
                    "Context",
                    N_("context vectors"),
                    "context",
                    (),
                    (
                        (0.4207, 0.5207, 0.6207),
                        (0.4514, 0.5514, 0.6514),
                        (0.4808, 0.5808, 0.6808),
                    ),
                    written=(
                        ("0.42", "0.53", "0.62"),
                        ("0.433", "0.533", "0.633"),
                        ("0.442", "0.542", "0.642"),
                    ),
                ),
            ),
        ),
        Section(
            "",
            N_("Multi-head attention: many perspectives"),
            "mha",
            "concat",
            N_(
                "Concat(head₁, …, head_h) × W_o, with h = 8 in the original paper. The example "
                "has 2 heads on the running example, then out_proj as W_o; Ctrl+G shows the "
                "heads side by side."
            ),
        ),
    ),
)

BLOG = Tutorial(
    "self-attention-blog",
    NAMES["blog"].title,
    (
        Section(
            "",
            N_("Query, Key, Value matrices (Q, K, V)"),
            "v2",
            "projections",
            N_(
                "Q, K and V are the token matrix multiplied by three learned matrices W_Q, "
                "W_K, W_V (here nn.Linear(3, 2), seed 789)."
            ),
        ),
        Section(
            "",
            N_("Figure 5: softmax as its input is scaled up"),
            "v2",
            "softmax",
            N_(
                "Why divide by √d_k: the larger softmax's inputs, the closer its output comes "
                "to one-hot, and the gradients vanish. The panel under the softmax stage "
                "multiplies the followed row's scores and shows the weights sharpen."
            ),
        ),
        Section(
            "",
            N_("The names of attention at different places in the transformer"),
            "causal",
            "mask",
            N_(
                "In the decoder each token attends only to itself and the tokens before it: "
                "the causal mask, on the running example (seed 789)."
            ),
            part=N_("masked decoder self-attention"),
        ),
        Section(
            "",
            N_("The names of attention at different places in the transformer"),
            "cross",
            "scores",
            N_(
                "The queries come from the decoder (4 tokens of a translation begun), the "
                "keys and values from the encoder (the running example's 6 tokens)."
            ),
            part=N_("cross-attention"),
        ),
        Section(
            "",
            N_("Multi-Head Attention"),
            "mha",
            "concat",
            N_(
                "Several self-attentions side by side, concatenated and multiplied by W_O: "
                "2 heads here, then out_proj."
            ),
        ),
    ),
)
