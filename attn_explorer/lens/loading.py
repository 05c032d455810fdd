"""Open a model and its tokenizer, from a folder (the `save_pretrained` layout) or a hub name.

A folder is read as it is, with no network. A hub name is the one case that may download
(into Hugging Face's usual cache), because the user named it; with no network, the message says
so. The family is checked from the configuration before any weight is read, so a model the
lens cannot take apart is refused in a moment, with the reason.

The lens takes apart the GPT-2 and BERT families: their attention is exactly the tutorials'
scaled dot-product attention on the layer-normed hidden states, one W_q, W_k, W_v per layer
split into heads. Llama-style models rotate the queries and keys by their positions (rotary
embeddings) and share key/value heads between query heads; a head's numbers are then not the
lab's computation, so they are refused rather than shown wrong.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from attn_explorer.lens.download import Transfer, cached, download
from attn_explorer.lens.errors import LensError, needs_transformers
from attn_explorer.text.i18n import _

# model_type → family. distilgpt2 and the GPT-2 sizes are "gpt2"; sentence-transformers'
# MiniLM models are "bert".
FAMILIES = {"gpt2": "gpt2", "bert": "bert"}
LLAMA_STYLE = frozenset(
    {"llama", "mistral", "mixtral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3", "phi3"}
)
DEVICES = ("cpu", "cuda", "mps")


def transformers_module() -> Any:
    """`transformers`, imported now (it takes seconds), or the error saying how to install it."""
    try:
        import transformers
    except ImportError as error:
        raise needs_transformers() from error
    return transformers


def pick_device(requested: str | None = None) -> str:
    """The device the model runs on: the one asked for, else a GPU torch sees, else the CPU."""
    if requested is None:
        if torch.cuda.is_available():
            return "cuda"
        mps = getattr(torch.backends, "mps", None)
        return "mps" if mps is not None and mps.is_available() else "cpu"
    if requested not in DEVICES:
        raise LensError(
            _("Unknown device {device}: choose cpu, cuda or mps.").format(device=requested), 2
        )
    if requested == "cuda" and not torch.cuda.is_available():
        raise LensError(_("torch sees no CUDA device here: use --device cpu."), 2)
    if requested == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise LensError(_("torch sees no Apple MPS device here: use --device cpu."), 2)
    return requested


def is_folder_name(source: str) -> bool:
    """Whether `source` names a folder rather than a hub model ("gpt2", "org/name")."""
    return (
        os.path.isdir(source)
        or source.startswith((".", "~", os.sep))
        or (os.altsep is not None and os.altsep in source)
        or source.count("/") > 1
    )


@dataclass(eq=False)
class LoadedModel:
    """A model ready to run: its family, sizes, tokenizer and (per layer) attention weights."""

    source: str
    family: str
    model: Any
    tokenizer: Any
    device: str
    layers: int
    heads: int
    d_model: int
    max_tokens: int
    causal: bool
    _weights: dict[int, tuple[np.ndarray, ...]] = field(default_factory=dict, repr=False)
    # (layer, head) → the head's GivenWeights, the last few opened (`lens.lab.head_given`)
    given_cache: OrderedDict = field(default_factory=OrderedDict, repr=False)

    @property
    def d_head(self) -> int:
        return self.d_model // self.heads

    @property
    def name(self) -> str:
        """The name shown in titles: a folder's last part, or the hub name."""
        path = Path(self.source)
        return path.name if is_folder_name(self.source) else self.source

    def attention_modules(self) -> list[torch.nn.Module]:
        """Each layer's self-attention module, whose input is the layer-normed hidden states."""
        if self.family == "gpt2":
            return [block.attn for block in self.model.h]
        return [layer.attention.self for layer in self.model.encoder.layer]

    def layer_weights(self, layer: int) -> tuple[np.ndarray, ...]:
        """W_q, W_k, W_v as (heads, d_model, d_head) in `x @ W` orientation, and their biases
        (heads, d_head): the layer's own parameters, split into heads as its forward does."""
        if layer not in self._weights:
            self._weights[layer] = _split_heads(self, self.attention_modules()[layer])
        return self._weights[layer]

    def head_weights(self, layer: int, head: int) -> tuple[np.ndarray, ...]:
        """One head's W_q, W_k, W_v (d_model, d_head) and biases (d_head,), float32: a layer
        split already gives its head; otherwise only this head's columns are read from the
        parameters (as arrays that may view them: copy before changing one). Splitting all
        12 heads of a GPT-2 small layer to open one took 5-7 ms of the window's thread."""
        if layer in self._weights:
            return tuple(a[head] for a in self._weights[layer])
        ws, bs = _head_views(self, self.attention_modules()[layer])
        with torch.no_grad():
            return tuple(part[..., head, :].detach().float().cpu().numpy() for part in (*ws, *bs))

    def scale_temperature(self, layer: int) -> tuple[bool, float]:
        """How the layer divides its scores: by √d_head (or not), times a temperature (GPT-2's
        `scale_attn_by_inverse_layer_idx` divides layer l's by l + 1 too)."""
        config = self.model.config
        if self.family == "gpt2":
            by_layer = float(layer + 1) if config.scale_attn_by_inverse_layer_idx else 1.0
            return bool(config.scale_attn_weights), by_layer
        return True, 1.0


def _head_views(loaded: LoadedModel, module: torch.nn.Module) -> tuple[list, list]:
    """The layer's W_q, W_k, W_v as (d_model, heads, d_head) and biases as (heads, d_head),
    views of its parameters (nothing copied), in `x @ W` orientation."""
    heads, d, d_head = loaded.heads, loaded.d_model, loaded.d_head
    if loaded.family == "gpt2":
        # Conv1D keeps its weight as (d_in, 3 d_model), already `x @ W`; columns: q | k | v.
        ws = module.c_attn.weight.split(d, dim=1)
        bs = module.c_attn.bias.split(d)
    else:
        parts = (module.query, module.key, module.value)
        ws = [p.weight.T for p in parts]  # nn.Linear: (out, in)
        bs = [p.bias for p in parts]
    return [w.reshape(d, heads, d_head) for w in ws], [b.reshape(heads, d_head) for b in bs]


def _split_heads(loaded: LoadedModel, module: torch.nn.Module) -> tuple[np.ndarray, ...]:
    ws, bs = _head_views(loaded, module)
    with torch.no_grad():
        out = [w.detach().float().cpu().permute(1, 0, 2).contiguous().numpy() for w in ws]
        out += [b.detach().float().cpu().contiguous().numpy() for b in bs]
    return tuple(out)


def _family(source: str, config: Any) -> str:
    kind = getattr(config, "model_type", "") or ""
    if kind in FAMILIES:
        family = FAMILIES[kind]
        if family == "bert" and getattr(config, "position_embedding_type", "absolute") not in (
            "absolute",
            None,
        ):
            raise LensError(
                _(
                    "{name} uses relative position scores inside its attention, which the lab "
                    "does not compute: the lens opens BERT models with absolute positions."
                ).format(name=source),
                2,
            )
        return family
    if kind in LLAMA_STYLE:
        raise LensError(
            _(
                "{name} is a Llama-style model ({kind}): it rotates queries and keys by their "
                "positions and shares key/value heads between query heads, which the lab does "
                "not compute. The lens opens GPT-2 and BERT family models."
            ).format(name=source, kind=kind),
            2,
        )
    raise LensError(
        _("{name} is a {kind} model; the lens opens GPT-2 and BERT family models only.").format(
            name=source, kind=kind or "?"
        ),
        2,
    )


def _dtype_argument(transformers: Any) -> dict[str, Any]:
    """float32 whatever the checkpoint holds, so the lab's float32 trace equals the model's:
    `dtype` since transformers 4.56, `torch_dtype` before."""
    major, minor = (int(p) for p in transformers.__version__.split(".")[:2])
    return {"dtype" if (major, minor) >= (4, 56) else "torch_dtype": torch.float32}


def load(
    source: str,
    device: str | None = None,
    *,
    transfer: Transfer | None = None,
) -> LoadedModel:
    """Open the model at `source` (a folder, or a hub name: downloaded once if needed, its bytes
    counted by `transfer`, whose cancel stops it; `lens.download`).

    Raises LensError with a sentence for the learner: a device asked for that torch does not
    see, no such folder, no model in it, a family the lens does not take apart, no network for
    a hub name, no transformers installed.
    """
    transformers = transformers_module()
    # First: a device asked for and missing is said before seconds of reading (or a download).
    chosen = pick_device(device)
    folder = is_folder_name(source)
    if folder:
        path = Path(source).expanduser()
        if not path.is_dir():
            raise LensError(_("There is no folder {folder}.").format(folder=source), 2)
        source = str(path)
    else:
        # A hub name: the cache's copy if complete, else downloaded now; read as a folder.
        transfer = transfer or Transfer()
        path = cached(source) or download(source, transfer)
        transfer.check()
    if not (path / "config.json").is_file():
        raise LensError(
            _(
                "{folder} holds no model: a model folder has a config.json (the layout "
                "save_pretrained writes)."
            ).format(folder=source),
            2,
        )
    # Reading a folder is quick and says nothing; transformers' own bars would only clutter
    # the command line's output (the window shows its own progress for a download).
    transformers.utils.logging.disable_progress_bar()
    try:
        config = transformers.AutoConfig.from_pretrained(str(path), local_files_only=True)
    except (OSError, ValueError) as error:
        raise _unreadable(source, error) from error
    family = _family(source, config)
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = transformers.AutoModel.from_pretrained(
            str(path),
            attn_implementation="eager",
            local_files_only=True,
            **_dtype_argument(transformers),
        )
    except (OSError, ValueError) as error:
        raise _unreadable(source, error) from error
    model.to(chosen).eval()
    _fused_activations(model)
    limit = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", 0)
    causal = family == "gpt2" or bool(getattr(config, "is_decoder", False))
    return LoadedModel(
        source=source,
        family=family,
        model=model,
        tokenizer=tokenizer,
        device=chosen,
        layers=int(config.num_hidden_layers),
        heads=int(config.num_attention_heads),
        d_model=int(config.hidden_size),
        max_tokens=int(limit),
        causal=causal,
    )


class _TanhGELU(torch.nn.Module):
    """GPT-2's activation (`gelu_new`, the tanh approximation of GELU) as torch's one fused
    kernel: transformers spells it out in five tensor operations, each a pass over the
    512 × 3,072 activations of a layer, 80-95 ms of a GPT-2 small layer at 512 tokens on one
    thread against 13 ms fused, a third of the model view's forward pass. The two differ by
    float32 rounding (at most 2.4e-7 on normal inputs; tests/lens/test_loading.py holds the
    attention of every layer and head within 1e-5, the lab's tolerance, of the model as
    transformers builds it: 1.4e-6 at most for the tests' tiny GPT-2 with its large weights)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x, approximate="tanh")


def _fused_activations(model: torch.nn.Module) -> None:
    """Replace every `NewGELUActivation` of `model` by `_TanhGELU` (see there)."""
    try:
        from transformers.activations import NewGELUActivation
    except ImportError:  # an older or newer transformers without it: nothing to replace
        return
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if type(child) is NewGELUActivation:
                setattr(parent, name, _TanhGELU())


def _unreadable(source: str, error: Exception) -> LensError:
    return LensError(
        _("The model in {folder} cannot be read: {reason}").format(
            folder=source, reason=str(error).splitlines()[0] if str(error) else type(error)
        )
    )
