"""The module definitions of an exported script: `attention_weights` and the tutorials'
classes (CausalAttention, SelfAttention_v1, MultiHeadAttentionWrapper, MultiHeadAttention),
each written with only the options the config uses. Kept apart from `code_export`, which
writes the script around them (header, data, the run), because together they would make
one module of over 500 lines; the generated text is the same either way.

The code is Python and stays English; its comments and docstrings are in the current language
(`text.i18n`), written where the script is made, so a learner reads them in the window's
language. `comment` and `docstring` put a translated text into the code as it must be there.
"""

from __future__ import annotations

from attn_explorer.engine import AttentionConfig
from attn_explorer.text.i18n import N_, _
from attn_explorer.text.tutorials import tutorial

HEAD_CLASS = {
    "linear": "CausalAttention",
    "rand": "SelfAttention_v1",
    "none": "DotProductAttention",
}


# ------------------------------------------------------------------ writing text into code


def comment(text: str, indent: str = "") -> str:
    """`text` as comment lines at `indent`, one a line of it: a translation may break lines
    where the English does not, and each must stay a comment."""
    return "\n".join(f"{indent}# {line}".rstrip() for line in text.split("\n"))


def docstring(text: str, indent: str) -> str:
    """`text` as a docstring at `indent` (its first line after the quotes, the rest indented
    and closed on a line of its own; one line closes on itself). A backslash or three quotes
    in a translation are escaped: the docstring still reads as the text, and still parses."""
    text = text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    if text.endswith('"'):
        text = text[:-1] + '\\"'
    lines = text.split("\n")
    if len(lines) == 1:
        return f'{indent}"""{text}"""'
    body = "\n".join(f"{indent}{line}" if line else "" for line in lines[1:])
    return f'{indent}"""{lines[0]}\n{body}\n{indent}"""'


def no_weights(cfg: AttentionConfig) -> tuple[str, str]:
    """What attention without projections takes, and the tutorial it is from: scaled, Day 43's
    by hand; unscaled, the book's simplified self-attention (§3.3), which divides by nothing."""
    qkv = "Q = X, K = V = X_kv" if cfg.is_cross else "Q = K = V = X"
    return qkv, tutorial("day43") if cfg.scale else f"{tutorial('llm')}, §3.3"


_HIDDEN = N_("True = hidden")  # the mask's cells


def attention_weights_code() -> str:
    """`attention_weights` that divides the scores first, then masks them and takes softmax."""
    doc = "\n".join(
        [
            _(
                "softmax(scores / (sqrt(d_k) * temperature)) over the keys; "
                "hidden keys get weight 0."
            ),
            "",
            _(
                "The mask hides later keys (causal) and padding keys (index >= valid_len). "
                '"neg_inf"\n'
                'sets hidden scores to -inf before softmax; "renormalize" takes the softmax, '
                "zeroes the\n"
                "hidden weights and divides each row by its sum. Both give the same weights."
            ),
        ]
    )
    return f"""
def attention_weights(scores, d_k, causal, valid_len, mask_method, scale, temperature):
{docstring(doc, "    ")}
    divisor = (math.sqrt(d_k) if scale else 1.0) * temperature
    if divisor != 1:
        scores = scores / divisor
    if not causal and valid_len is None:
        return torch.softmax(scores, dim=-1)
    n_q, n_k = scores.shape[-2:]
    mask = torch.zeros(n_q, n_k, dtype=torch.bool)  {comment(_(_HIDDEN))}
    if causal:
        mask |= torch.ones(n_q, n_k, dtype=torch.bool).triu(diagonal=1)
    if valid_len is not None:
        mask[:, valid_len:] = True
    if mask_method == "neg_inf":
        return torch.softmax(scores.masked_fill(mask, -torch.inf), dim=-1)
    weights = torch.softmax(scores, dim=-1).masked_fill(mask, 0.0)
    return weights / weights.sum(dim=-1, keepdim=True)
"""


# The book's order (config.mask_first), the two lines it writes in its code.
_BOOK_MASKING = """\
    masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
    attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=-1)"""


def mask_first_weights_code() -> str:
    """`attention_weights` in the book's order (config.mask_first): the raw scores masked,
    kept to be printed, then divided."""
    doc = "\n".join(
        [
            _("As in {tutorial}:\nmask the raw scores, then divide them and take softmax.").format(
                tutorial=tutorial("llm")
            ),
            "",
            _BOOK_MASKING,
            "",
            _(
                "The mask hides later keys (causal) and padding keys (index >= valid_len). "
                "-inf divided\n"
                "by sqrt(d_k) stays -inf, so the weights equal those of dividing first. "
                "Returns the masked\n"
                "scores (what the tutorial prints as `masked`) and the weights."
            ),
        ]
    )
    return f"""
def attention_weights(scores, d_k, causal, valid_len, scale, temperature):
{docstring(doc, "    ")}
    n_q, n_k = scores.shape[-2:]
    mask = torch.zeros(n_q, n_k, dtype=torch.bool)  {comment(_(_HIDDEN))}
    if causal:
        mask |= torch.ones(n_q, n_k, dtype=torch.bool).triu(diagonal=1)
    if valid_len is not None:
        mask[:, valid_len:] = True
    masked = scores.masked_fill(mask, -torch.inf)
    divisor = (math.sqrt(d_k) if scale else 1.0) * temperature
    return masked, torch.softmax(masked / divisor, dim=-1)
"""


# The options every module takes besides its sizes, and how it keeps them.
_OPTION_ARGS = 'causal=False, mask_method="neg_inf", scale=True, temperature=1.0,'
_OPTIONS_INIT = """\
        self.dropout = nn.Dropout(dropout)
        self.causal = causal
        self.mask_method = mask_method
        self.scale = scale
        self.temperature = temperature"""
_WEIGHTS_CALL = """\
        self.attn_weights = attention_weights(
            attn_scores, keys.shape[-1], self.causal, valid_len,
            self.mask_method, self.scale, self.temperature,
        )
        self.attn_weights_dropped = self.dropout(self.attn_weights)"""


_MASK_FIRST_OPTION_ARGS = "causal=False, scale=True, temperature=1.0,"
_MASK_FIRST_OPTIONS_INIT = """\
        self.dropout = nn.Dropout(dropout)
        self.causal = causal
        self.scale = scale
        self.temperature = temperature"""
_MASK_FIRST_WEIGHTS_CALL = """\
        self.masked, self.attn_weights = attention_weights(
            attn_scores, keys.shape[-1], self.causal, valid_len, self.scale, self.temperature,
        )
        self.attn_weights_dropped = self.dropout(self.attn_weights)"""


def _options(cfg: AttentionConfig) -> tuple[str, str, str]:
    """The modules' options, how they keep them and how they call `attention_weights`: in
    the book's order (mask first) the module keeps the masked scores too."""
    if cfg.mask_first:
        return _MASK_FIRST_OPTION_ARGS, _MASK_FIRST_OPTIONS_INIT, _MASK_FIRST_WEIGHTS_CALL
    return _OPTION_ARGS, _OPTIONS_INIT, _WEIGHTS_CALL


def _weights_init(projection: str) -> str:
    """The three projections, drawn in the tutorials' order: query, key, value."""
    if projection == "rand":
        make = "nn.Parameter(torch.rand(d_in, d_out))"
    else:
        make = "nn.Linear(d_in, d_out, bias=qkv_bias)"
    return "\n".join(f"        self.W_{role} = {make}" for role in ("query", "key", "value"))


def _project(projection: str, role: str, source: str) -> str:
    """The expression projecting `source`; rand weights multiply, nn.Linear is called."""
    if projection == "rand":
        return f"{source} @ self.W_{role}"
    return f"self.W_{role}({source})"


def _cross_comment() -> str:
    return comment(_("cross-attention: keys/values from x_kv"))


def head_class(cfg: AttentionConfig) -> str:
    """One head: CausalAttention (nn.Linear), SelfAttention_v1 (torch.rand) or no weights."""
    name = HEAD_CLASS[cfg.projection]
    if cfg.projection == "none":
        if cfg.scale:
            doc = _("Scaled dot-product attention with {qkv}\n({tutorial}): no weights.")
        else:
            doc = _("Attention, not scaled, with {qkv}\n({tutorial}): no weights.")
        qkv, source = no_weights(cfg)
        doc = doc.format(qkv=qkv, tutorial=source)
        sizes = "d_in, dropout,"
        kept = comment(_("no projection: the output keeps the input's width"))
        init = f"        self.d_out = d_in  {kept}"
        project = "        queries, keys, values = x, x_kv, x_kv"
    else:
        if cfg.projection == "rand":
            doc = _("SelfAttention_v1 (torch.rand weights), with masks, dropout and temperature.")
            sizes = "d_in, d_out, dropout,"
        else:
            doc = _("CausalAttention from {tutorial}:\nnn.Linear projections, mask and dropout.")
            doc = doc.format(tutorial=tutorial("llm", "§3.5.3"))
            sizes = "d_in, d_out, dropout, qkv_bias=False,"
        init = "        self.d_out = d_out\n" + _weights_init(cfg.projection)
        project = (
            f"        keys = {_project(cfg.projection, 'key', 'x_kv')}\n"
            f"        queries = {_project(cfg.projection, 'query', 'x')}\n"
            f"        values = {_project(cfg.projection, 'value', 'x_kv')}"
        )
    option_args, options_init, weights_call = _options(cfg)
    return f"""
class {name}(nn.Module):
{docstring(doc, "    ")}

    def __init__(
        self, {sizes}
        {option_args}
    ):
        super().__init__()
{init}
{options_init}

    def forward(self, x, x_kv=None, valid_len=None):
        x_kv = x if x_kv is None else x_kv  {_cross_comment()}
{project}
        attn_scores = queries @ keys.transpose(1, 2)  # (batch, n_q, n_k)
{weights_call}
        return self.attn_weights_dropped @ values
"""


def wrapper_class(cfg: AttentionConfig) -> str:
    head = HEAD_CLASS[cfg.projection]
    if cfg.projection == "none":
        sizes, make_head = "d_in, num_heads", f"{head}(d_in, dropout, **options)"
    else:
        sizes, make_head = "d_in, d_out, num_heads", f"{head}(d_in, d_out, dropout, **options)"
    doc = "\n".join(
        [
            _(
                "Heads built one after another, outputs concatenated: the wrapper of\n{tutorial}."
            ).format(tutorial=tutorial("llm", "§3.6.1")),
            "",
            _(
                "With out_proj, an nn.Linear(width, width) mixes the heads; "
                "it is built after every head."
            ),
        ]
    )
    return f"""
class MultiHeadAttentionWrapper(nn.Module):
{docstring(doc, "    ")}

    def __init__(self, {sizes}, dropout, out_proj=False, **options):
        super().__init__()
        self.heads = nn.ModuleList(
            [{make_head} for _ in range(num_heads)]
        )
        width = sum(head.d_out for head in self.heads)
        self.out_proj = nn.Linear(width, width) if out_proj else None

    def forward(self, x, x_kv=None, valid_len=None):
        context = torch.cat([head(x, x_kv, valid_len) for head in self.heads], dim=-1)
        return context if self.out_proj is None else self.out_proj(context)
"""


def split_class(cfg: AttentionConfig) -> str:
    p = cfg.projection
    bias_arg = " qkv_bias=False," if p == "linear" else ""
    what = "nn.Linear" if p == "linear" else "torch.rand"
    option_args, options_init, weights_call = _options(cfg)
    doc = "\n".join(
        [
            _(
                "MultiHeadAttention from {tutorial}:\none {kind} W of width d_out split into heads."
            ).format(tutorial=tutorial("llm", "§3.6.2"), kind=what),
            "",
            _(
                "Every head sees d_out // num_heads of the columns of W_query, W_key and W_value; "
                "all\n"
                "heads run in one batched matmul, then out_proj (if any) mixes them."
            ),
        ]
    )
    split_doc = _("(batch, n, d_out) -> (batch, heads, n, head_dim): each head gets its columns.")
    divisible = _("d_out must be divisible by num_heads")
    return f"""
class MultiHeadAttention(nn.Module):
{docstring(doc, "    ")}

    def __init__(
        self, d_in, d_out, num_heads, dropout,{bias_arg} out_proj=True,
        {option_args}
    ):
        super().__init__()
        assert d_out % num_heads == 0, {python_string(divisible)}
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
{_weights_init(p)}
        self.out_proj = nn.Linear(d_out, d_out) if out_proj else None
{options_init}

    def split_heads(self, t):
{docstring(split_doc, "        ")}
        b, n, _d_out = t.shape
        return t.view(b, n, self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x, x_kv=None, valid_len=None):
        x_kv = x if x_kv is None else x_kv  {_cross_comment()}
        b, n_q, _d_in = x.shape
        keys = self.split_heads({_project(p, "key", "x_kv")})
        values = self.split_heads({_project(p, "value", "x_kv")})
        queries = self.split_heads({_project(p, "query", "x")})
        attn_scores = queries @ keys.transpose(2, 3)  # (batch, heads, n_q, n_k)
{weights_call}
        context = (self.attn_weights_dropped @ values).transpose(1, 2)
        context = context.contiguous().view(b, n_q, self.d_out)
        return context if self.out_proj is None else self.out_proj(context)
"""


def python_string(value: str) -> str:
    """A string literal for `value`: repr(), which escapes anything unprintable, with double
    quotes where no quote is inside (the template's own)."""
    text = repr(value)
    if text.startswith("'") and '"' not in value:
        text = f'"{text[1:-1]}"'  # no quote inside, so the escapes stay the same
    return text
