"""Which heads of a real model matter: each head switched off alone, as pruning does, and how
much the model's prediction changes without it.

How a head is switched off: a forward pre-hook on the layer's output projection (GPT-2's
`attn.c_proj`, BERT's `attention.output.dense`) zeroes the head's slice of the concatenated
head outputs that projection reads, exactly the lab's "zeros" ablation. transformers 5 no longer
takes a `head_mask`, so the hook is the one way that works on every version the lens opens; the
tests hold it equal to zeroing those rows of the projection's weight by hand.

What is measured depends on what the checkpoint holds:
- a causal LM (GPT-2; its LM head is the token embedding, tied): the next-token distribution at
  every position, as the mean KL divergence from the full model's, and the change in the
  log-probability of the tokens that actually come next;
- a BERT with its masked-LM head in the checkpoint (`cls.predictions.*`): the same on its token
  predictions at every position (of the tokens that are there, nothing masked);
- a model with no head (a bare BertModel such as MiniLM): the norm of the change of the last
  hidden state, and its share of that state's norm.

All heads of one layer are switched off in one batched forward pass (one batch row per head),
so a GPT-2 small costs 12 passes, not 144.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from attn_explorer.lens.capture import token_ids
from attn_explorer.lens.errors import LensError
from attn_explorer.lens.loading import LoadedModel, is_folder_name
from attn_explorer.text.i18n import N_, _

NEXT, MASKED, HIDDEN = "next-token", "masked-token", "hidden"

# What a measure's two numbers are called, in the window, the CSV's header and the JSON.
COLUMNS = {
    NEXT: (N_("mean KL divergence (nats)"), N_("change in log-probability of the next tokens")),
    MASKED: (N_("mean KL divergence (nats)"), N_("change in log-probability of the tokens")),
    HIDDEN: (N_("norm of the change"), N_("share of the norm")),
}
KEYS = {NEXT: ("kl", "delta_logprob"), MASKED: ("kl", "delta_logprob"), HIDDEN: ("norm", "share")}

# Bytes of attention weights one batched pass may hold (heads × n × n per batch row).
BATCH_BYTES = 1 << 26


@dataclass(frozen=True, eq=False)
class Importance:
    """Every head's importance for one text: (layers, heads) arrays, heads counted from 0."""

    model: str
    text: str
    tokens: tuple[str, ...]
    measure: str  # NEXT, MASKED or HIDDEN
    primary: np.ndarray  # KL divergence (nats), or the norm of the change
    secondary: np.ndarray  # change in log-probability, or the share of the norm

    @property
    def layers(self) -> int:
        return self.primary.shape[0]

    @property
    def heads(self) -> int:
        return self.primary.shape[1]

    def ranking(self) -> list[tuple[int, int, float, float]]:
        """(layer, head, primary, secondary), the most important head first."""
        rows = [
            (layer, head, float(self.primary[layer, head]), float(self.secondary[layer, head]))
            for layer in range(self.layers)
            for head in range(self.heads)
        ]
        return sorted(rows, key=lambda row: -row[2])


class Prediction:
    """What the model's last hidden states predict: logits over the vocabulary, or nothing."""

    def __init__(self, measure: str, logits: Callable[[torch.Tensor], torch.Tensor] | None):
        self.measure = measure
        self.logits = logits


def prediction(loaded: LoadedModel) -> Prediction:
    """The head the model's checkpoint has: GPT-2's tied LM head, BERT's masked-LM head read from
    the checkpoint's `cls.predictions.*`, or none."""
    model = loaded.model
    config = model.config
    if loaded.family == "gpt2":
        tied = getattr(config, "tie_word_embeddings", True)
        weight = model.wte.weight if tied else _tensors(loaded.source, "lm_head.").get("weight")
        if weight is not None:
            weight = weight.detach().float().to(loaded.device)
            return Prediction(NEXT, lambda hidden: hidden @ weight.T)
        return Prediction(HIDDEN, None)
    found = _tensors(loaded.source, "cls.predictions.")
    if "transform.dense.weight" not in found:
        return Prediction(HIDDEN, None)
    return Prediction(MASKED, _bert_head(loaded, found))


def _bert_head(loaded: LoadedModel, found: dict[str, torch.Tensor]) -> Callable:
    """BERT's masked-LM head (transformers' BertLMPredictionHead): dense, activation, layer
    norm, then the tied word embeddings plus a bias of its own."""
    from transformers.activations import ACT2FN

    config = loaded.model.config
    device = loaded.device
    dense_w, dense_b = (
        found[f"transform.dense.{k}"].float().to(device) for k in ("weight", "bias")
    )
    norm_w, norm_b = (
        found[f"transform.LayerNorm.{k}"].float().to(device) for k in ("weight", "bias")
    )
    embedding = found.get("decoder.weight")
    if embedding is None or getattr(config, "tie_word_embeddings", True):
        embedding = loaded.model.embeddings.word_embeddings.weight.detach()
    embedding = embedding.float().to(device)
    bias = found.get("bias", found.get("decoder.bias"))
    bias = (torch.zeros(embedding.shape[0]) if bias is None else bias).float().to(device)
    act = ACT2FN[config.hidden_act] if isinstance(config.hidden_act, str) else config.hidden_act
    eps = float(config.layer_norm_eps)

    def logits(hidden: torch.Tensor) -> torch.Tensor:
        h = act(hidden @ dense_w.T + dense_b)
        h = torch.nn.functional.layer_norm(h, (h.shape[-1],), norm_w, norm_b, eps)
        return h @ embedding.T + bias

    return logits


def _checkpoint_folder(source: str) -> Path | None:
    if is_folder_name(source):
        return Path(source).expanduser()
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    found = try_to_load_from_cache(source, "config.json")
    return Path(found).parent if isinstance(found, str) else None


def _tensors(source: str, prefix: str) -> dict[str, torch.Tensor]:
    """The checkpoint's tensors whose names start with `prefix` (the prefix removed), read
    without loading the rest: the lens opened the body alone (`AutoModel`)."""
    folder = _checkpoint_folder(source)
    if folder is None:
        return {}
    found: dict[str, torch.Tensor] = {}
    safetensors = sorted(folder.glob("*.safetensors"))
    if safetensors:
        from safetensors import safe_open

        for file in safetensors:
            with safe_open(str(file), "pt") as f:
                for key in f.keys():  # noqa: SIM118 (safe_open is not iterable)
                    if key.startswith(prefix):
                        found[key[len(prefix) :]] = f.get_tensor(key)
    else:
        for file in sorted(folder.glob("pytorch_model*.bin")):
            state = torch.load(file, map_location="cpu", weights_only=True, mmap=True)
            found.update({k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)})
    # Old BERT checkpoints name a layer norm's parameters gamma and beta.
    return {
        key.replace("LayerNorm.gamma", "LayerNorm.weight").replace(
            "LayerNorm.beta", "LayerNorm.bias"
        ): t
        for key, t in found.items()
    }


def output_projections(loaded: LoadedModel) -> list[torch.nn.Module]:
    """Each layer's output projection, whose input is the concatenation of its heads' outputs."""
    if loaded.family == "gpt2":
        return [block.attn.c_proj for block in loaded.model.h]
    return [layer.attention.output.dense for layer in loaded.model.encoder.layer]


def switch_off(loaded: LoadedModel, layer: int, keep: torch.Tensor) -> Any:
    """Hook layer `layer`'s output projection so batch row b keeps only the heads where
    `keep[b]` is 1 (a (batch, heads) tensor): the others' slices become zeros, in the passes
    of this thread only. Returns the handle to remove."""
    d_head = loaded.d_head
    columns = keep.to(loaded.device).float().repeat_interleave(d_head, dim=1)[:, None, :]
    # The model view may run the same model in its own thread meanwhile: its passes keep
    # every head.
    owner = threading.get_ident()

    def hook(_module, args):
        if threading.get_ident() != owner:
            return None
        return (args[0] * columns, *args[1:])

    return output_projections(loaded)[layer].register_forward_pre_hook(hook)


def _last_hidden(loaded: LoadedModel, ids: list[int], rows: int) -> torch.Tensor:
    batch = torch.tensor([ids] * rows, device=loaded.device)
    out = loaded.model(input_ids=batch, attention_mask=torch.ones_like(batch))
    return out.last_hidden_state.float()


@torch.inference_mode()
def importance(
    loaded: LoadedModel,
    text: str,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Importance:
    """Every head switched off alone, and how much the model's prediction of `text` changes.
    `progress(done, total)` after each pass; `cancelled()` is asked before each."""
    ids, tokens = token_ids(loaded, text)
    n, heads = len(ids), loaded.heads
    head = prediction(loaded)
    full = _last_hidden(loaded, ids, 1)[0]
    if head.logits is not None:
        full_logp = torch.log_softmax(head.logits(full), dim=-1)
        targets = torch.tensor(ids[1:] if head.measure == NEXT else ids, device=loaded.device)
        places = torch.arange(len(targets), device=loaded.device)
        full_target = full_logp[places, targets]
    primary = np.zeros((loaded.layers, heads))
    secondary = np.zeros((loaded.layers, heads))
    rows = max(1, min(heads, BATCH_BYTES // (4 * heads * n * n)))
    total, done = loaded.layers * heads, 0
    for layer in range(loaded.layers):
        for start in range(0, heads, rows):
            if cancelled is not None and cancelled():
                raise LensError(_("Measuring the heads was cancelled."))
            chosen = list(range(start, min(heads, start + rows)))
            keep = torch.ones(len(chosen), heads)
            keep[range(len(chosen)), chosen] = 0
            handle = switch_off(loaded, layer, keep)
            try:
                hidden = _last_hidden(loaded, ids, len(chosen))
            finally:
                handle.remove()
            for row, h in enumerate(chosen):
                if head.logits is None:
                    change = torch.linalg.norm(hidden[row] - full).item()
                    primary[layer, h] = change
                    secondary[layer, h] = change / max(torch.linalg.norm(full).item(), 1e-30)
                    continue
                logp = torch.log_softmax(head.logits(hidden[row]), dim=-1)
                kl = (full_logp.exp() * (full_logp - logp)).sum(-1).clamp_min(0)
                primary[layer, h] = kl.mean().item()
                secondary[layer, h] = (
                    (logp[places, targets] - full_target).mean().item() if len(targets) else np.nan
                )
            done += len(chosen)
            if progress is not None:
                progress(done, total)
    return Importance(loaded.name, text, tokens, head.measure, primary, secondary)


def column_names(measure: str) -> tuple[str, str]:
    """The two numbers' names, in the learner's language."""
    first, second = COLUMNS[measure]
    return _(first), _(second)


def describe(result: Importance) -> str:
    """What was measured, in a sentence a learner reads beside the chart."""
    if result.measure == NEXT:
        return _(
            "Each head switched off alone (its output replaced by zeros): how far {model}'s "
            "next-token distribution moves, as the mean KL divergence over the {count} "
            "positions, and how the log-probability of the tokens that actually come next "
            "changes."
        ).format(model=result.model, count=len(result.tokens))
    if result.measure == MASKED:
        return _(
            "Each head switched off alone (its output replaced by zeros): how far {model}'s "
            "masked-LM predictions move, as the mean KL divergence over the {count} "
            "positions, and how the log-probability of the tokens that are there changes."
        ).format(model=result.model, count=len(result.tokens))
    return _(
        "{model} has no prediction head, so the measure is its last hidden state: each head "
        "switched off alone (its output replaced by zeros), the norm of the change of that "
        "state over the {count} tokens, and the change's share of the state's norm."
    ).format(model=result.model, count=len(result.tokens))


def headline(result: Importance) -> str:
    """The most important head, with its two numbers."""
    layer, head, first, second = result.ranking()[0]
    names = column_names(result.measure)
    return _(
        "Most important: layer {layer}, head {head} ({name}: {value:.4f}; {other}: {second:.4f})."
    ).format(
        layer=layer + 1, head=head + 1, name=names[0], value=first, other=names[1], second=second
    )


def to_csv(result: Importance) -> str:
    """One row per head, counted from 1, most important first. The header is the JSON's keys
    in every language (as the lab's own importance CSV: head,norm,share), so a script reads
    any learner's file; the words are in the JSON's description and on the figure."""
    first, second = KEYS[result.measure]
    lines = [f"layer,head,{first},{second}"]
    for layer, head, a, b in result.ranking():
        lines.append(f"{layer + 1},{head + 1},{a:.6g},{b:.6g}")
    return "\n".join(lines) + "\n"


def to_json(result: Importance) -> str:
    """The whole measurement: which measure, its words, and every head's two numbers."""
    first, second = KEYS[result.measure]
    names = column_names(result.measure)

    def number(value: float) -> float | None:
        return None if np.isnan(value) else round(float(value), 8)

    data = {
        "model": result.model,
        "text": result.text,
        "tokens": list(result.tokens),
        "measure": result.measure,
        "description": describe(result),
        "columns": {first: names[0], second: names[1]},
        "layers": result.layers,
        "heads": result.heads,
        first: [[number(v) for v in row] for row in result.primary],
        second: [[number(v) for v in row] for row in result.secondary],
        "ranking": [
            {"layer": layer + 1, "head": head + 1, first: number(a), second: number(b)}
            for layer, head, a, b in result.ranking()
        ],
    }
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"
