"""One forward pass of a model on a text, with every layer's attention captured.

How: a forward pre-hook on each layer's self-attention module (GPT-2's `attn`, BERT's
`attention.self`) keeps the rows that module reads, the hidden states after the layer norm
(GPT-2 normalises before attention, `ln_1`; BERT after the previous layer, so its attention reads
the previous layer's normalised output). The model runs with eager attention and
`output_attentions=True`, whose weights the model view shows. A head's Q, K, V, scores, mask,
weights and output are recomputed from those rows and the layer's own W_q, W_k, W_v
(`attn_explorer.lens.heads`); the tests hold the recomputed weights equal to
`output_attentions` for every layer and head.

The weights of every layer and head are kept as float16, half the memory of float32 (a GPT-2
small at 1,024 tokens: 302 MB instead of 604), as only the model view draws them; the summaries
are computed from the float32 weights before that, and a head's own numbers are recomputed in
float32.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from attn_explorer.lens.errors import LensError
from attn_explorer.lens.loading import LoadedModel
from attn_explorer.lens.summaries import HeadSummaries, layer_summary
from attn_explorer.lens.tokens import readable
from attn_explorer.text.i18n import _


@dataclass(frozen=True, eq=False)
class ModelRun:
    """What one text did in a model: its tokens, each layer's input rows and weights."""

    loaded: LoadedModel
    text: str
    tokens: tuple[str, ...]
    inputs: np.ndarray  # (layers, n, d_model) float32: what each attention module read
    weights: np.ndarray  # (layers, heads, n, n) float16: the model's own attention weights
    summaries: HeadSummaries
    rows_cache: dict = field(default_factory=dict, repr=False)  # lens.lab.layer_rows

    @property
    def n(self) -> int:
        return len(self.tokens)


def token_ids(loaded: LoadedModel, text: str) -> tuple[list[int], tuple[str, ...]]:
    """The ids the model reads for `text` and their readable pieces; too long a text refused."""
    if not text.strip():
        raise LensError(_("Type a sentence for the model to read."), 2)
    ids = loaded.tokenizer(text)["input_ids"]
    if len(ids) > loaded.max_tokens:
        raise LensError(
            _("The text is {count} tokens long; {name} reads at most {limit}. Shorten it.").format(
                count=len(ids), name=loaded.name, limit=loaded.max_tokens
            ),
            2,
        )
    pieces = loaded.tokenizer.convert_ids_to_tokens(ids)
    return ids, readable(pieces, loaded.family)


@torch.inference_mode()
def forward(loaded: LoadedModel, text: str) -> tuple[tuple[str, ...], list, tuple]:
    """Run the model on `text`: its readable tokens, each attention module's input rows
    (float32 tensors on the model's device) and the model's own `output_attentions`."""
    ids, tokens = token_ids(loaded, text)
    seen: list[torch.Tensor | None] = [None] * loaded.layers

    def keep(layer: int):
        def hook(_module, args, kwargs):
            rows = args[0] if args else kwargs["hidden_states"]
            seen[layer] = rows[0].detach().float()

        return hook

    handles = [
        module.register_forward_pre_hook(keep(i), with_kwargs=True)
        for i, module in enumerate(loaded.attention_modules())
    ]
    try:
        batch = torch.tensor([ids], device=loaded.device)
        out = loaded.model(
            input_ids=batch,
            attention_mask=torch.ones_like(batch),
            output_attentions=True,
        )
    finally:
        for handle in handles:
            handle.remove()
    return tokens, seen, out.attentions


def run(loaded: LoadedModel, text: str) -> ModelRun:
    """The model's attention on `text`, every layer and head."""
    tokens, seen, attentions = forward(loaded, text)
    n = len(tokens)
    inputs = np.stack([rows.cpu().numpy() for rows in seen])
    weights = np.empty((loaded.layers, loaded.heads, n, n), dtype=np.float16)
    parts = []
    for layer, attention in enumerate(attentions):
        full = attention[0].float().cpu()
        weights[layer] = full.numpy()
        parts.append((*layer_summary(full), full.mean(0)))
    return ModelRun(
        loaded=loaded,
        text=text,
        tokens=tokens,
        inputs=inputs,
        weights=weights,
        summaries=HeadSummaries.of(parts),
    )
