"""What the examples are called and what each one teaches: the menu's title and the lesson.

The engine's presets (`attn_explorer.engine.presets`) hold only what each example computes;
these are the words a learner reads about them, in the menu, the lesson line under the
matrices and the step-through, and the tooltips.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExampleText:
    """`title` names the example in the menu; `source` says where the tutorial prints it and
    what it shows."""

    title: str
    source: str


EXAMPLES: dict[str, ExampleText] = {
    "simple": ExampleText(
        "Simple attention, no weights",
        "Tutorial 000 §3.3: ω = X·Xᵀ, softmax, Z = A·X (no scaling).",
    ),
    "v1": ExampleText(
        "SelfAttention_v1 (torch.rand, seed 123)",
        "Tutorial 000 §3.4 and 001: W = torch.rand(3, 2), scores / √2.",
    ),
    "v2": ExampleText(
        "SelfAttention_v2 (nn.Linear, seed 789)",
        "Tutorial 000 §3.4.2: nn.Linear(3, 2, bias=False) projections.",
    ),
    "causal": ExampleText(
        "Causal mask (seed 789)",
        "Tutorial 000 §3.5.1: the v2 weights with the future hidden.",
    ),
    "dropout": ExampleText(
        "Dropout 0.5 on the causal weights (reseed 123)",
        "Tutorial 000 §3.5.2: torch.manual_seed(123), then dropout 0.5 on the seed-789 "
        "causal weights: kept cells × 2, the rest 0. It follows “starts”, whose kept weights "
        "are the tutorial's 0.7599, 0.6194, 0.6206 (all of “journey”'s are dropped).",
    ),
    "causal-class": ExampleText(
        "CausalAttention (seed 123)",
        "Tutorial 000 §3.5.3: the CausalAttention class, dropout 0.",
    ),
    "wrapper": ExampleText(
        "MultiHeadAttentionWrapper, 2 heads (seed 123)",
        "Tutorial 000 §3.6.1: two CausalAttention heads, outputs concatenated.",
    ),
    "mha": ExampleText(
        "MultiHeadAttention, split heads + out_proj (seed 123)",
        "Tutorial 000 §3.6.2: one W of width 2 split into 2 heads, then out_proj.",
    ),
    "happy": ExampleText(
        "“I am happy”: Q = K = V = X",
        "Tutorial 003: scaled dot-product attention by hand, divided by √3.",
    ),
    "cross": ExampleText(
        "Cross-attention: decoder reads encoder",
        "Tutorials 002 and 004: queries from the decoder, keys and values from the encoder.",
    ),
    "padding": ExampleText(
        "Padding mask (valid length 4)",
        "Tutorial 002: keys beyond valid_lens are masked before softmax.",
    ),
}


def example_text(name: str) -> ExampleText:
    """The words about example `name` (a key of `attn_explorer.engine.PRESETS`)."""
    return EXAMPLES[name]
