"""What the examples are called and what each one teaches: the menu's title and the lesson.

The engine's presets (`attn_explorer.engine.presets`) hold only what each example computes;
these are the words a learner reads about them, in the menu, the lesson line under the
matrices and the step-through, and the tooltips. The tables hold the English, marked;
`example_text` gives them in the language of the moment, each lesson opening with the
tutorial it comes from, named as learners know it (`text.tutorials`).
"""

from __future__ import annotations

from dataclasses import dataclass

from attn_explorer.text.i18n import N_, _
from attn_explorer.text.tutorials import tutorial


@dataclass(frozen=True)
class ExampleText:
    """`title` names the example in the menu; `source` says where the tutorial prints it and
    what it shows."""

    title: str
    source: str


@dataclass(frozen=True)
class _Example:
    """An example's words in English, marked: `lesson` has a {tutorial} (and, where two
    tutorials show it, an {other}) for the names `cites` gives: (key, section) each."""

    title: str
    lesson: str
    cites: tuple[tuple[str, str], ...]


_LLM = "llm"  # the book's chapter 3, where most examples come from

_EXAMPLES: dict[str, _Example] = {
    "simple": _Example(
        N_("Simple attention, no weights"),
        N_("{tutorial}: ω = X·Xᵀ, softmax, Z = A·X (no scaling)."),
        ((_LLM, "§3.3"),),
    ),
    "v1": _Example(
        N_("SelfAttention_v1 (torch.rand, seed 123)"),
        N_("{tutorial} and {other}: W = torch.rand(3, 2), scores / √2."),
        ((_LLM, "§3.4 SelfAttention_v1"), ("notebook", "")),
    ),
    "v2": _Example(
        N_("SelfAttention_v2 (nn.Linear, seed 789)"),
        N_("{tutorial}: nn.Linear(3, 2, bias=False) projections."),
        ((_LLM, "§3.4.2 SelfAttention_v2"),),
    ),
    "causal": _Example(
        N_("Causal mask (seed 789)"),
        N_("{tutorial}: the v2 weights with the future hidden."),
        ((_LLM, "§3.5.1"),),
    ),
    "dropout": _Example(
        N_("Dropout 0.5 on the causal weights (reseed 123)"),
        N_(
            "{tutorial}: torch.manual_seed(123), then dropout 0.5 on the seed-789 causal "
            "weights: kept cells × 2, the rest 0. It follows “starts”, whose kept weights "
            "are the tutorial's 0.7599, 0.6194, 0.6206 (all of “journey”'s are dropped)."
        ),
        ((_LLM, "§3.5.2"),),
    ),
    "causal-class": _Example(
        N_("CausalAttention (seed 123)"),
        N_("{tutorial}: the CausalAttention class, dropout 0."),
        ((_LLM, "§3.5.3 CausalAttention"),),
    ),
    "wrapper": _Example(
        N_("MultiHeadAttentionWrapper, 2 heads (seed 123)"),
        N_("{tutorial}: two CausalAttention heads, outputs concatenated."),
        ((_LLM, "§3.6.1 MultiHeadAttentionWrapper"),),
    ),
    "mha": _Example(
        N_("MultiHeadAttention, split heads + out_proj (seed 123)"),
        N_("{tutorial}: one W of width 2 split into 2 heads, then out_proj."),
        ((_LLM, "§3.6.2 MultiHeadAttention"),),
    ),
    "happy": _Example(
        N_("“I am happy”: Q = K = V = X"),
        N_("{tutorial}: scaled dot-product attention by hand, divided by √3."),
        (("day43", ""),),
    ),
    "cross": _Example(
        N_("Cross-attention: decoder reads encoder"),
        N_("{tutorial} and {other}: queries from the decoder, keys and values from the encoder."),
        (("d2l", ""), ("blog", "")),
    ),
    "padding": _Example(
        N_("Padding mask (valid length 4)"),
        N_("{tutorial}: keys beyond valid_lens are masked before softmax."),
        (("d2l", ""),),
    ),
}
# The examples the engine defines, in its order (the menu's).
EXAMPLES = tuple(_EXAMPLES)


def example_text(name: str) -> ExampleText:
    """The words about example `name` (a key of `attn_explorer.engine.PRESETS`), in the
    current language."""
    words = _EXAMPLES[name]
    names = [tutorial(key, section) for key, section in words.cites]
    names += [""] * (2 - len(names))
    return ExampleText(_(words.title), _(words.lesson).format(tutorial=names[0], other=names[1]))
