"""The engine's input: one immutable description of an attention computation.

A config is plain data (tuples, numbers, strings) so it can be hashed, cached, sent to a worker
thread and written to a session file. Validation is separate from construction: the UI keeps
what the learner typed even when it is not (yet) a valid computation, and asks `problems()`
what to say next to which control.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

# FLOAT32_MAX: the largest magnitude a float32 holds; the engine computes in float32 like
# the tutorials.
from attn_explorer.engine.given import FLOAT32_MAX as FLOAT32_MAX
from attn_explorer.engine.given import ArrayRows, GivenWeights, row_width
from attn_explorer.engine.words import Params, english
from attn_explorer.engine.words import or_list as or_list

PROJECTIONS = ("none", "rand", "linear")
HEAD_LAYOUTS = ("stacked", "split")
MASK_METHODS = ("neg_inf", "renormalize")
# How a switched-off head's context is replaced (engine/heads.py): zeros, as pruning does, or
# its mean over the query tokens, as ablation studies do.
ABLATE_MODES = ("zeros", "mean")

MAX_SEED = 2**63 - 1
# Weights per matrix (heads × queries × keys): 2^25 float32s are 128 MB, and a trace holds about
# eight such matrices. 1024 tokens with 16 heads (2^24) is the largest benchmarked size.
MAX_ATTENTION_CELLS = 2**25


class ConfigError(ValueError):
    """An attention config that cannot be computed, with a message meant for a learner.

    `field` names the config field the message is about (the UI shows the message next to
    that control); it is None when the problem is not tied to one field. The message is
    English; `code` and `params` are what `attn_explorer.text.problems.problem_text` writes
    it from in the learner's language (see `attn_explorer.engine.words`).
    """

    def __init__(
        self, message: str, field: str | None = None, code: str = "", params: Params = ()
    ) -> None:
        super().__init__(message)
        self.field = field
        self.code = code
        self.params = params

    @classmethod
    def of(cls, problem: Problem) -> ConfigError:
        return cls(problem.message, problem.field, problem.code, problem.params)

    @classmethod
    def coded(cls, field: str, code: str, **params: Any) -> ConfigError:
        return cls.of(problem(field, code, **params))


@dataclass(frozen=True)
class Problem:
    """One reason a config cannot be computed: `message` in English, and the `code` and
    `params` it was written from (`attn_explorer.engine.words`), empty for a problem made
    with a message of its own."""

    field: str
    message: str
    code: str = ""
    params: Params = ()


def problem(field: str, code: str, **params: Any) -> Problem:
    """Problem `code` of `field`, with its English message."""
    given = tuple(params.items())
    return Problem(field, english(code, given), code, given)


def _as_tuple(value: Any) -> Any:
    """Lists and arrays become tuples so a config is hashable; anything else is kept as given."""
    if type(value) is ArrayRows:  # rows of a float array: tuples by construction
        return value
    if type(value) is tuple and (
        all(type(row) is tuple for row in value) or all(type(v) is str for v in value)
    ):
        return value  # a table of tuples or the tokens (the UI's case): no per-element rebuild
    if isinstance(value, np.ndarray):
        return tuple(_as_tuple(v) for v in value.tolist())
    if isinstance(value, list | tuple):
        return tuple(_as_tuple(v) for v in value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def seed_draws(projection: str, out_proj: bool, dropout_active: bool, reseeded: bool) -> bool:
    """Whether `torch.manual_seed(seed)` decides any number of the computation: the
    projections' weights, the output projection's, or a dropout mask continuing its stream.
    With projection "none", no output projection and no dropout drawn after it (none acting,
    or one reseeded from its own seed), the seed is a setting that changes nothing, which the
    window and its summaries must not present as if it mattered."""
    return projection != "none" or out_proj or (dropout_active and not reseeded)


def mask_order_matters(has_mask: bool, mask_method: str, divides: bool) -> bool:
    """Whether masking before or after the division by √d_k (and T) is a choice at all: only
    with a mask set by method 2 (hidden scores to −∞) and a division that happens. Tutorial
    000 masks the raw scores (`masked_fill`, then `softmax(masked / √d_k)`), tutorial 002
    scales first; the weights are the same either way (−∞ / √d_k is −∞, the visible scores
    are divided all the same), but the matrix between the two stages is not. Method 1 masks
    softmax's output, and without a division there is only one matrix."""
    return has_mask and mask_method == "neg_inf" and divides


@dataclass(frozen=True)
class AttentionConfig:
    """Everything that determines one attention computation.

    Field meanings follow the tutorials' classes: `projection` "rand" is `SelfAttention_v1`
    (each W is `torch.rand(d_in, d_out)`), "linear" is `SelfAttention_v2` / `CausalAttention`
    (`nn.Linear`), "none" uses the embeddings themselves as Q, K and V. `qkv_bias` only exists
    for "linear" projections and is ignored otherwise. Random draws follow
    `torch.manual_seed(seed)` followed by building the module; the dropout mask continues
    that stream, as a forward pass right after building does, unless `dropout_seed` is set:
    then it follows a fresh `torch.manual_seed(dropout_seed)`, as tutorial 000 §3.5.2 reseeds
    with 123 before applying dropout to the seed-789 weights. `mask_before_scaling` is
    tutorial 000's order, `masked_fill` on the raw scores and then `softmax(masked / √d_k)`:
    the trace then holds the tutorial's printed `masked` matrix (see `mask_first`).
    """

    tokens: tuple[str, ...]
    embeddings: tuple[tuple[float, ...], ...]
    kv_tokens: tuple[str, ...] | None = None
    kv_embeddings: tuple[tuple[float, ...], ...] | None = None
    projection: str = "linear"
    d_out: int = 2
    num_heads: int = 1
    head_layout: str = "stacked"
    out_proj: bool = False
    qkv_bias: bool = False
    causal: bool = False
    mask_method: str = "neg_inf"
    valid_len: int | None = None
    scale: bool = True
    temperature: float = 1.0
    dropout: float = 0.0
    training: bool = True
    seed: int = 123
    dropout_seed: int | None = None
    mask_before_scaling: bool = False
    given: GivenWeights | None = None  # a real head's W_q, W_k, W_v (engine/given.py)
    # The heads switched off (counted from 1, as the learner counts them), and how.
    ablate: tuple[int, ...] = ()
    ablate_mode: str = "zeros"

    def __post_init__(self) -> None:
        for name in ("tokens", "embeddings", "kv_tokens", "kv_embeddings"):
            object.__setattr__(self, name, _as_tuple(getattr(self, name)))
        if isinstance(self.given, dict):  # as a data export's config.json holds them
            object.__setattr__(self, "given", GivenWeights(**self.given))
        ablate = _as_tuple(self.ablate)
        if isinstance(ablate, tuple) and all(is_int(h) for h in ablate):
            ablate = tuple(sorted(set(ablate)))  # one config per set of heads, in order
        object.__setattr__(self, "ablate", ablate)
        for name in ("d_out", "num_heads", "seed", "valid_len", "dropout_seed"):
            value = getattr(self, name)
            if isinstance(value, np.integer):
                object.__setattr__(self, name, int(value))
        for name in ("temperature", "dropout"):
            value = getattr(self, name)
            if isinstance(value, np.floating | np.integer):
                object.__setattr__(self, name, float(value))

    # ----------------------------------------------------------------- derived facts
    @property
    def is_cross(self) -> bool:
        return self.kv_tokens is not None or self.kv_embeddings is not None

    @property
    def n_q(self) -> int:
        return len(self.tokens)

    @property
    def n_k(self) -> int:
        return len(self.kv_tokens) if self.is_cross and self.kv_tokens is not None else self.n_q

    @property
    def d_in(self) -> int:
        return row_width(self.embeddings)

    @property
    def key_tokens(self) -> tuple[str, ...]:
        return self.kv_tokens if self.is_cross and self.kv_tokens is not None else self.tokens

    @property
    def key_embeddings(self) -> tuple[tuple[float, ...], ...]:
        if self.is_cross and self.kv_embeddings is not None:
            return self.kv_embeddings
        return self.embeddings

    @property
    def heads(self) -> int:
        """Number of heads actually computed ("none" always has one)."""
        return 1 if self.projection == "none" else self.num_heads

    @property
    def d_head(self) -> int:
        """Width of one head's queries, keys and values: the d_k of the scaling."""
        if self.projection == "none":
            return self.d_in
        if self.head_layout == "split":
            return self.d_out // self.num_heads
        return self.d_out

    @property
    def width(self) -> int:
        """Width of the concatenated heads (and of the output)."""
        return self.heads * self.d_head

    @property
    def attention_cells(self) -> int:
        """Weights per attention matrix, heads × queries × keys: what size limits count."""
        return self.heads * self.n_q * self.n_k

    @property
    def has_mask(self) -> bool:
        return self.causal or self.valid_len is not None

    @property
    def method_1(self) -> bool:
        """A mask applied by method 1: softmax of the unmasked scores, the hidden weights
        zeroed, each row divided by its visible sum (tutorial 000's first way)."""
        return self.has_mask and self.mask_method == "renormalize"

    @property
    def mask_first(self) -> bool:
        """Whether the raw scores are masked before they are divided (tutorial 000's order):
        `mask_before_scaling` where the order is a choice (`mask_order_matters`). Then
        `masked_scores` is ωₘ, the raw scores with −∞ where hidden, and `scaled_scores` is
        ωₘ / √d_k, what softmax reads; otherwise `scaled_scores` is ω / √d_k and
        `masked_scores` what softmax reads."""
        return self.mask_before_scaling is True and mask_order_matters(
            self.has_mask, self.mask_method, bool(self.scale) or self.temperature != 1
        )

    @property
    def dropout_active(self) -> bool:
        return self.training and self.dropout > 0

    @property
    def uses_bias(self) -> bool:
        return self.projection == "linear" and self.qkv_bias

    @property
    def uses_given(self) -> bool:
        """Whether the projections are the given weights rather than drawn ones."""
        return self.given is not None and self.projection == "linear"

    @property
    def seed_draws(self) -> bool:
        """Whether `seed` decides any number: see `seed_draws`."""
        projection = "none" if self.uses_given else self.projection
        return seed_draws(
            projection, self.out_proj, self.dropout_active, self.dropout_seed is not None
        )

    @property
    def scale_divisor(self) -> float:
        """What the raw scores are divided by: √d_k (when scaling) times the temperature."""
        root = math.sqrt(self.d_head) if self.scale else 1.0
        return root * self.temperature

    # ----------------------------------------------------------------- validation
    def problems(self) -> list[Problem]:
        """Every reason this config cannot be computed, in the order of the controls."""
        out: list[Problem] = []
        out += _sequence_problems("tokens", "embeddings", self.tokens, self.embeddings, "")
        if self.is_cross:
            if self.kv_tokens is None or self.kv_embeddings is None:
                out.append(problem("kv_tokens", "cross_incomplete"))
            else:
                out += _sequence_problems(
                    "kv_tokens", "kv_embeddings", self.kv_tokens, self.kv_embeddings, "kv_"
                )
                if not out and len(self.kv_embeddings[0]) != self.d_in:
                    out.append(
                        problem(
                            "kv_embeddings", "kv_width", kv=len(self.kv_embeddings[0]), q=self.d_in
                        )
                    )
        out += self._choice_problems()
        out += self._number_problems()
        if not out and self.uses_given:
            out += self._given_problems()
        if not out:
            out += self._size_problems()
        return out

    def validate(self) -> None:
        """Raise ConfigError with the first problem, if any."""
        found = self.problems()
        if found:
            raise ConfigError.of(found[0])

    def _choice_problems(self) -> list[Problem]:
        out = []
        for name, allowed in (
            ("projection", PROJECTIONS),
            ("head_layout", HEAD_LAYOUTS),
            ("mask_method", MASK_METHODS),
            ("ablate_mode", ABLATE_MODES),
        ):
            value = getattr(self, name)
            if value not in allowed:
                out.append(problem(name, f"unknown_{name}", value=repr(value), choices=allowed))
        for name in ("out_proj", "qkv_bias", "causal", "scale", "training", "mask_before_scaling"):
            if not isinstance(getattr(self, name), bool):
                out.append(problem(name, "not_bool", name=name))
        return out

    def _number_problems(self) -> list[Problem]:
        out: list[Problem] = []
        if not is_int(self.d_out):
            out.append(problem("d_out", "d_out_not_int", value=repr(self.d_out)))
        elif self.d_out < 1:
            out.append(problem("d_out", "d_out_below_1", value=self.d_out))
        if not is_int(self.num_heads):
            out.append(problem("num_heads", "heads_not_int", value=repr(self.num_heads)))
        elif self.num_heads < 1:
            out.append(problem("num_heads", "heads_below_1", value=self.num_heads))
        elif self.projection == "none" and self.num_heads > 1:
            out.append(problem("num_heads", "heads_without_projection", heads=self.num_heads))
        elif (
            self.head_layout == "split"
            and self.projection != "none"
            and is_int(self.d_out)
            and self.d_out >= 1
            and self.d_out % self.num_heads
        ):
            out.append(
                problem("num_heads", "heads_do_not_split", d_out=self.d_out, heads=self.num_heads)
            )
        out += self._ablate_problems()
        if not is_number(self.dropout) or not 0 <= self.dropout < 1:
            out.append(problem("dropout", "dropout_range", value=repr(self.dropout)))
        if not is_number(self.temperature) or not 0 < self.temperature < math.inf:
            out.append(
                problem("temperature", "temperature_not_positive", value=repr(self.temperature))
            )
        if self.valid_len is not None:
            n_k = self.n_k
            if not is_int(self.valid_len):
                out.append(problem("valid_len", "valid_len_not_int", value=repr(self.valid_len)))
            elif not 1 <= self.valid_len <= max(n_k, 1):
                out.append(problem("valid_len", "valid_len_range", value=self.valid_len, keys=n_k))
        if self.causal is True and self.n_q != self.n_k:
            out.append(problem("causal", "causal_cross", queries=self.n_q, keys=self.n_k))
        if not is_int(self.seed) or not 0 <= self.seed <= MAX_SEED:
            out.append(problem("seed", "seed_range", value=repr(self.seed)))
        if self.dropout_seed is not None and (
            not is_int(self.dropout_seed) or not 0 <= self.dropout_seed <= MAX_SEED
        ):
            out.append(problem("dropout_seed", "dropout_seed_range", value=repr(self.dropout_seed)))
        return out

    def _given_problems(self) -> list[Problem]:
        """The given weights fix d_in, the number of heads and their width."""
        given = self.given
        assert given is not None
        if self.d_in != given.d_in:
            return [problem("embeddings", "given_d_in", d_in=given.d_in, width=self.d_in)]
        if self.num_heads != given.heads:
            return [problem("num_heads", "given_heads", heads=given.heads)]
        if self.d_head != given.d_head or self.d_out != given.d_head * (
            given.heads if self.head_layout == "split" else 1
        ):
            need = given.d_head * (given.heads if self.head_layout == "split" else 1)
            return [problem("d_out", "given_d_out", d_head=given.d_head, d_out=need)]
        return []

    def _ablate_problems(self) -> list[Problem]:
        if not isinstance(self.ablate, tuple) or not all(is_int(h) for h in self.ablate):
            return [problem("ablate", "ablate_not_heads", value=repr(self.ablate))]
        if not is_int(self.num_heads) or self.projection not in PROJECTIONS:
            return []  # said above; the heads cannot be counted
        outside = [h for h in self.ablate if not 1 <= h <= self.heads]
        if outside:
            return [problem("ablate", "ablate_range", head=outside[0], heads=self.heads)]
        return []

    def _size_problems(self) -> list[Problem]:
        """Refuse what would not fit in memory rather than freeze the machine trying."""
        cells = self.attention_cells
        if cells <= MAX_ATTENTION_CELLS:
            return []
        sizes = dict(queries=self.n_q, keys=self.n_k, cells=cells, limit=MAX_ATTENTION_CELLS)
        if self.heads > 1:
            return [problem("num_heads", "too_big_heads", heads=self.heads, **sizes)]
        return [problem("tokens", "too_big", **sizes)]


def _sequence_problems(
    tokens_field: str, emb_field: str, tokens: Any, embeddings: Any, kind: str
) -> list[Problem]:
    """Problems of one token sequence and its embedding rows: `kind` "" for the queries,
    "kv_" for the keys and values, the start of each problem's code."""
    if any(seen[0] is tokens and seen[1] is embeddings for seen in _VALID_SEQUENCES):
        return []
    found = _first_sequence_problem(tokens_field, emb_field, tokens, embeddings, kind)
    if found:
        return [found]
    _VALID_SEQUENCES[:] = [(tokens, embeddings), *_VALID_SEQUENCES[:1]]
    return []


# The last two sequences (tokens and rows) found valid, the queries' and the keys', compared by
# identity: every move of a slider hands the same tuples again, and checking each token and
# row took a Python step apiece (2 µs at 6 tokens, 0.1 ms at 1024). Both are immutable; held
# here, neither object's id can be given to another (two real layers' rows: 13 MB at most).
_VALID_SEQUENCES: list[tuple[Any, Any]] = []


def _first_sequence_problem(
    tokens_field: str, emb_field: str, tokens: Any, embeddings: Any, kind: str
) -> Problem | None:
    if not isinstance(tokens, tuple) or not all(isinstance(t, str) for t in tokens):
        return problem(tokens_field, f"{kind}tokens_not_strings")
    if not tokens:
        return problem(tokens_field, f"{kind}no_tokens")
    if not isinstance(embeddings, ArrayRows) and (
        not isinstance(embeddings, tuple) or not all(isinstance(r, tuple) for r in embeddings)
    ):
        return problem(emb_field, f"{kind}embeddings_not_table")
    if len(tokens) != len(embeddings):
        return problem(emb_field, f"{kind}rows_mismatch", tokens=len(tokens), rows=len(embeddings))
    width = row_width(embeddings)
    if width == 0:
        return problem(emb_field, f"{kind}no_dimension")
    if _all_finite_numbers(embeddings, width):
        return None
    for i, (token, row) in enumerate(zip(tokens, embeddings, strict=True)):
        name = dict(index=i + 1, token=repr(token))
        if len(row) != width:
            return problem(emb_field, f"{kind}row_width", **name, numbers=len(row), width=width)
        for j, value in enumerate(row):
            where = dict(name, dimension=j + 1)
            if not is_number(value):
                return problem(emb_field, f"{kind}not_a_number", **where, value=repr(value))
            if math.isnan(value):
                return problem(emb_field, f"{kind}nan", **where)
            if math.isinf(value):
                return problem(emb_field, f"{kind}infinite", **where)
            if abs(value) > FLOAT32_MAX:
                return problem(emb_field, f"{kind}too_large", **where, value=value)
    return None


# The last few tables found valid, compared by identity: a slider move reuses the same table
# object, so only an edit pays for checking it again.
_CHECKED: list[tuple] = []


def _all_finite_numbers(embeddings: tuple, width: int) -> bool:
    """Fast path for big tables: C-level type and range checks instead of a Python loop.

    False means "look closer", and the caller's loop then finds the first bad value.
    """
    if any(seen is embeddings for seen in _CHECKED):
        return True
    if isinstance(embeddings, ArrayRows):  # rows of a float array: checked when made
        return embeddings.array.shape[1:] == (width,) and embeddings.bounded
    if set(map(len, embeddings)) != {width}:
        return False
    if not set(map(type, chain.from_iterable(embeddings))) <= {float, int}:
        return False
    values = np.array(embeddings, dtype=np.float64)
    if not np.all(np.abs(values) <= FLOAT32_MAX):  # False for NaN and ±inf too
        return False
    _CHECKED[:] = [embeddings, *_CHECKED[:3]]
    return True


def is_int(value: object) -> bool:
    """A whole number as JSON and Python spell it: True and False are not numbers here."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: object) -> bool:
    """An int or a float, not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)
