"""Help → Lessons: every section of the five tutorials that an example reproduces, with the
numbers the tutorial prints there.

A learner knows where they are in a tutorial ("3.5.2 Dropout"), not which example holds it;
this table takes them from the section to its example, on the stage the section is about, and
lists the numbers the section prints so they can be found on screen. Every number here is
checked against the engine to the digits printed (tests/text/test_lessons.py): a table of
numbers nobody recomputes drifts from what the window shows.

It is one table (some 900 lines, nearly all of it data: 32 sections and their printouts), kept
in one file so a teacher adding a section sees the others beside it.

Qt-free data. The words are marked `N_` and translated where shown, so the table never holds
the language of the moment it was imported; section titles are translated into the headings
the Vietnamese tutorials themselves use. Code names (`attn_scores_2`, `SelfAttention_v1`) and
symbols are never translated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from attn_explorer.text.i18n import N_
from attn_explorer.text.numbers import num
from attn_explorer.text.tutorials import TUTORIALS as NAMES

# A number, a row of numbers or a matrix, as nested tuples.
Values = float | tuple[float, ...] | tuple[tuple[float, ...], ...]
Written = str | tuple[str, ...] | tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Printed:
    """One printout of a section: what the tutorial prints and where the engine holds it.

    `code` is the tutorial's own name for it (its variable or expression, never translated)
    and `what` says in words what it is. The engine's value is `trace[array][index]` times
    `times` (dropout printed on a matrix of ones is the keep-mask × 1/(1 − p)). `values` are
    the exact numbers, as PyTorch prints them (4 decimals). Where the tutorial did the
    arithmetic by hand, `written` is what it wrote, as written ("0.30"): the dialog marks
    where that differs from the exact value at the tutorial's own precision (`slips`).
    """

    code: str
    what: str
    array: str
    index: tuple[int, ...]
    values: Values
    times: float = 1.0
    written: Written | None = None


@dataclass(frozen=True)
class Section:
    """A section of a tutorial and the example that reproduces it.

    `number` is the tutorial's own numbering ("3.5.2"), empty where it numbers none; `title`
    its heading, and `part` which of several examples of one section this is (3.4.2 prints
    both SelfAttention_v1 and _v2): words marked `N_`, or a class's name, which no
    catalogue translates. `preset` is the example (a key of
    `attn_explorer.engine.PRESETS`), `stage` the step-through stage it opens on (a key of
    `attn_explorer.engine.STEP_KEYS`), or None for the Matrices tab.
    """

    number: str
    title: str
    preset: str
    stage: str | None
    note: str
    printed: tuple[Printed, ...] = ()
    part: str = ""


@dataclass(frozen=True)
class Tutorial:
    """A tutorial as learners know it, and its sections the app reproduces, in its order."""

    key: str
    title: str
    sections: tuple[Section, ...]


# The running example's printouts, shared by the sections that print them again.
_JOURNEY_SCORES_SIMPLE = (0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865)
_JOURNEY_WEIGHTS_SIMPLE = (0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581)
_V1_QUERY_2 = (0.4306, 1.4551)
_V1_SCORES_2 = (1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440)
_V1_WEIGHTS_2 = (0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820)
_V1_CONTEXT_2 = (0.3061, 0.8210)
_CAUSAL_789 = (
    (1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000),
    (0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000),
    (0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000),
    (0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000),
    (0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000),
    (0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529),
)
_INF = math.inf
_CAUSAL_CLASS_123 = (
    (-0.4519, 0.2216),
    (-0.5874, 0.0058),
    (-0.6300, -0.0632),
    (-0.5675, -0.0843),
    (-0.5526, -0.0981),
    (-0.5299, -0.1081),
)

_CHAPTER_3 = Tutorial(
    "llm-chapter-3",
    NAMES["llm"].title,
    (
        Section(
            "3.3.1",
            N_("A simple self-attention mechanism without trainable weights"),
            "simple",
            "softmax",
            N_(
                "The attention scores of x⁽²⁾ “journey” are its dot products with every "
                "token; softmax turns them into weights (nothing is divided here), and the "
                "embeddings weighted by them add up to its context vector z⁽²⁾."
            ),
            (
                Printed(
                    "attn_scores_2",
                    N_("attention scores of “journey”"),
                    "scores",
                    (0, 1),
                    _JOURNEY_SCORES_SIMPLE,
                ),
                Printed(
                    "attn_weights_2",
                    N_("attention weights of “journey”"),
                    "weights",
                    (0, 1),
                    _JOURNEY_WEIGHTS_SIMPLE,
                ),
                Printed(
                    "context_vec_2",
                    N_("context vector of “journey”"),
                    "context",
                    (1,),
                    (0.4419, 0.6515, 0.5683),
                ),
            ),
        ),
        Section(
            "3.3.2",
            N_("Computing attention weights for all input tokens"),
            "simple",
            "context",
            N_(
                "The same three steps for every token at once: inputs @ inputs.T, softmax "
                "along each row, then the weights @ inputs. The second row is “journey”'s "
                "of 3.3.1."
            ),
            (
                Printed(
                    "attn_scores",
                    N_("attention scores of every token"),
                    "scores",
                    (0,),
                    (
                        (0.9995, 0.9544, 0.9422, 0.4753, 0.4576, 0.6310),
                        _JOURNEY_SCORES_SIMPLE,
                        (0.9422, 1.4754, 1.4570, 0.8296, 0.7154, 1.0605),
                        (0.4753, 0.8434, 0.8296, 0.4937, 0.3474, 0.6565),
                        (0.4576, 0.7070, 0.7154, 0.3474, 0.6654, 0.2935),
                        (0.6310, 1.0865, 1.0605, 0.6565, 0.2935, 0.9450),
                    ),
                ),
                Printed(
                    "attn_weights",
                    N_("attention weights of every token"),
                    "weights",
                    (0,),
                    (
                        (0.2098, 0.2006, 0.1981, 0.1242, 0.1220, 0.1452),
                        _JOURNEY_WEIGHTS_SIMPLE,
                        (0.1390, 0.2369, 0.2326, 0.1242, 0.1108, 0.1565),
                        (0.1435, 0.2074, 0.2046, 0.1462, 0.1263, 0.1720),
                        (0.1526, 0.1958, 0.1975, 0.1367, 0.1879, 0.1295),
                        (0.1385, 0.2184, 0.2128, 0.1420, 0.0988, 0.1896),
                    ),
                ),
                Printed(
                    "all_context_vecs",
                    N_("context vectors of every token"),
                    "context",
                    (),
                    (
                        (0.4421, 0.5931, 0.5790),
                        (0.4419, 0.6515, 0.5683),
                        (0.4431, 0.6496, 0.5671),
                        (0.4304, 0.6298, 0.5510),
                        (0.4671, 0.5910, 0.5266),
                        (0.4177, 0.6503, 0.5645),
                    ),
                ),
            ),
        ),
        Section(
            "3.4.1",
            N_("Computing the attention weights step by step"),
            "v1",
            "softmax",
            N_(
                "torch.manual_seed(123), then W_query, W_key, W_value = torch.rand(3, 2), in "
                "that order. The scores of “journey” are divided by √d_k = √2 before softmax."
            ),
            (
                Printed("query_2", N_("query of “journey”"), "queries", (0, 1), _V1_QUERY_2),
                Printed(
                    "attn_score_22",
                    N_("attention score of “journey” with itself (ω₂₂)"),
                    "scores",
                    (0, 1, 1),
                    1.8524,
                ),
                Printed(
                    "attn_scores_2",
                    N_("attention scores of “journey”"),
                    "scores",
                    (0, 1),
                    _V1_SCORES_2,
                ),
                Printed(
                    "attn_weights_2",
                    N_("attention weights of “journey”"),
                    "weights",
                    (0, 1),
                    _V1_WEIGHTS_2,
                ),
                Printed(
                    "context_vec_2",
                    N_("context vector of “journey”"),
                    "context",
                    (1,),
                    _V1_CONTEXT_2,
                ),
            ),
        ),
        Section(
            "3.4.2",
            N_("Implementing a compact self-attention Python class"),
            "v1",
            "context",
            N_(
                "The class SelfAttention_v1 (seed 123) computes the steps of 3.4.1 for every "
                "token at once; the second row is “journey”'s context vector."
            ),
            (
                Printed(
                    "sa_v1(inputs)",
                    N_("context vectors of every token"),
                    "context",
                    (),
                    (
                        (0.2996, 0.8053),
                        _V1_CONTEXT_2,
                        (0.3058, 0.8203),
                        (0.2948, 0.7939),
                        (0.2927, 0.7891),
                        (0.2990, 0.8040),
                    ),
                ),
            ),
            part="SelfAttention_v1",
        ),
        Section(
            "3.4.2",
            N_("Implementing a compact self-attention Python class"),
            "v2",
            "context",
            N_(
                "SelfAttention_v2 builds W_query, W_key, W_value as nn.Linear(3, 2, "
                "bias=False) after torch.manual_seed(789): other weights, so other context "
                "vectors."
            ),
            (
                Printed(
                    "sa_v2(inputs)",
                    N_("context vectors of every token"),
                    "context",
                    (),
                    (
                        (-0.0739, 0.0713),
                        (-0.0748, 0.0703),
                        (-0.0749, 0.0702),
                        (-0.0760, 0.0685),
                        (-0.0763, 0.0679),
                        (-0.0754, 0.0693),
                    ),
                ),
            ),
            part="SelfAttention_v2",
        ),
        Section(
            "3.5.1",
            N_("Applying a causal attention mask"),
            "causal",
            "mask",
            N_(
                "Two ways to hide the tokens after each query (SelfAttention_v2's weights, "
                "seed 789): zero their weights after softmax and divide each row by its sum, "
                "or set their scores to −∞ before softmax. Both give the same weights; the "
                "mask stage shows them side by side."
            ),
            (
                Printed(
                    "masked_simple_norm",
                    N_("weights zeroed after softmax, each row divided by its sum"),
                    "weights_renormalize",
                    (0,),
                    _CAUSAL_789,
                ),
                Printed(
                    "masked",
                    N_("attention scores with the later tokens set to −∞"),
                    "masked_scores",
                    (0,),
                    (
                        (0.2899, -_INF, -_INF, -_INF, -_INF, -_INF),
                        (0.4656, 0.1723, -_INF, -_INF, -_INF, -_INF),
                        (0.4594, 0.1703, 0.1731, -_INF, -_INF, -_INF),
                        (0.2642, 0.1024, 0.1036, 0.0186, -_INF, -_INF),
                        (0.2183, 0.0874, 0.0882, 0.0177, 0.0786, -_INF),
                        (0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078),
                    ),
                ),
                Printed(
                    "attn_weights",
                    N_("softmax of the masked scores divided by √d_k"),
                    "weights",
                    (0,),
                    _CAUSAL_789,
                ),
            ),
        ),
        Section(
            "3.5.2",
            N_("Masking additional attention weights with dropout"),
            "dropout",
            "dropout",
            N_(
                "torch.manual_seed(123), then dropout 0.5 on the causal weights of 3.5.1: "
                "a kept weight is multiplied by 1 / (1 − 0.5) = 2, the others become 0. "
                "Dropout acts only in training. The example follows “starts”, whose kept "
                "weights are 0.7599, 0.6194, 0.6206."
            ),
            (
                Printed(
                    "dropout(example)",
                    N_("dropout 0.5 on a 6 × 6 matrix of ones"),
                    "dropout_keep",
                    (0,),
                    (
                        (2.0, 2.0, 0.0, 2.0, 2.0, 0.0),
                        (0.0, 0.0, 0.0, 2.0, 0.0, 2.0),
                        (2.0, 2.0, 2.0, 2.0, 0.0, 2.0),
                        (0.0, 2.0, 2.0, 0.0, 0.0, 2.0),
                        (0.0, 2.0, 0.0, 2.0, 0.0, 2.0),
                        (0.0, 2.0, 2.0, 2.0, 2.0, 0.0),
                    ),
                    times=2.0,
                ),
                Printed(
                    "dropout(attn_weights)",
                    N_("dropout 0.5 on the causal attention weights"),
                    "weights_dropped",
                    (0,),
                    (
                        (2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000),
                        (0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000),
                        (0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000),
                        (0.0000, 0.4921, 0.4925, 0.0000, 0.0000, 0.0000),
                        (0.0000, 0.3966, 0.0000, 0.3775, 0.0000, 0.0000),
                        (0.0000, 0.3327, 0.3331, 0.3084, 0.3331, 0.0000),
                    ),
                ),
            ),
        ),
        Section(
            "3.5.3",
            N_("Implementing a compact causal attention class"),
            "causal-class",
            "context",
            N_(
                "The class CausalAttention (seed 123, dropout 0): nn.Linear projections, the "
                "causal mask, softmax of the masked scores divided by √d_k, dropout. The "
                "tutorial feeds a batch of the same sentence twice: both halves print these."
            ),
            (
                Printed(
                    "context_vecs",
                    N_("context vectors of every token"),
                    "context",
                    (),
                    _CAUSAL_CLASS_123,
                ),
            ),
        ),
        Section(
            "3.6.1",
            N_("Stacking multiple single-head attention layers"),
            "wrapper",
            "concat",
            N_(
                "MultiHeadAttentionWrapper (seed 123): two CausalAttention heads built one "
                "after the other, their context vectors concatenated, 2 × 2 = 4 columns. The "
                "first head's are those of 3.5.3."
            ),
            (
                Printed(
                    "context_vecs",
                    N_("the two heads' context vectors, concatenated"),
                    "context",
                    (),
                    (
                        (-0.4519, 0.2216, 0.4772, 0.1063),
                        (-0.5874, 0.0058, 0.5891, 0.3257),
                        (-0.6300, -0.0632, 0.6202, 0.3860),
                        (-0.5675, -0.0843, 0.5478, 0.3589),
                        (-0.5526, -0.0981, 0.5321, 0.3428),
                        (-0.5299, -0.1081, 0.5077, 0.3493),
                    ),
                ),
            ),
        ),
        Section(
            "3.6.2",
            N_("Implementing multi-head attention with weight splits"),
            "mha",
            "out_proj",
            N_(
                "One W_query, W_key, W_value of width d_out = 2, split into 2 heads of width "
                "1, then out_proj = nn.Linear(2, 2) (seed 123). The tutorial's own example "
                "(6-dimensional tokens, no seed) prints other numbers on every run; these "
                "are the book's, for the running example."
            ),
            (
                Printed(
                    "context_vecs",
                    N_("context vectors after out_proj"),
                    "context",
                    (),
                    (
                        (0.3190, 0.4858),
                        (0.2943, 0.3897),
                        (0.2856, 0.3593),
                        (0.2693, 0.3873),
                        (0.2639, 0.3928),
                        (0.2575, 0.4028),
                    ),
                ),
            ),
        ),
    ),
)

# The notebook numbers none of its steps: its own bullets name them.
_NOTEBOOK = Tutorial(
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
_D2L = Tutorial(
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
_DAY_43 = Tutorial(
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

_BLOG = Tutorial(
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

TUTORIALS: tuple[Tutorial, ...] = (_CHAPTER_3, _NOTEBOOK, _D2L, _DAY_43, _BLOG)


def sections() -> list[tuple[Tutorial, Section]]:
    """Every section of every tutorial, in the tutorials' order."""
    return [(tutorial, section) for tutorial in TUTORIALS for section in tutorial.sections]


def rows(values: Values | Written) -> list[list]:
    """`values` as rows of cells: a number is one row of one, a vector one row."""
    if not isinstance(values, tuple):
        return [[values]]
    if values and not isinstance(values[0], tuple):
        return [list(values)]
    return [list(row) for row in values]


def exact_rows(printed: Printed) -> list[list[str]]:
    """The exact numbers as the window writes them (4 decimals, "−∞"), as rows."""
    return [[num(value) for value in row] for row in rows(printed.values)]


def _decimals(text: str) -> int:
    return len(text.partition(".")[2])


def slips(printed: Printed) -> set[tuple[int, int]]:
    """(row, column) of every number the tutorial wrote that is not the exact value rounded
    to the decimals it wrote: its slips of hand arithmetic."""
    if printed.written is None:
        return set()
    found = set()
    for r, (wrote, exact) in enumerate(
        zip(rows(printed.written), rows(printed.values), strict=True)
    ):
        for c, (text, value) in enumerate(zip(wrote, exact, strict=True)):
            if f"{value:.{_decimals(text)}f}" != text:
                found.add((r, c))
    return found
