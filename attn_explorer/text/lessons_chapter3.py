"""Help → Lessons' table, its first half: the LLM book's chapter 3, section by section, with
the numbers it prints (see text/lessons.py). Data; the running example's printouts that
later tutorials print again are named here and imported by lessons_more."""

from __future__ import annotations

import math

from attn_explorer.text.i18n import N_
from attn_explorer.text.lessons_types import Printed, Section, Tutorial
from attn_explorer.text.tutorials import TUTORIALS as NAMES

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

CHAPTER_3 = Tutorial(
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
