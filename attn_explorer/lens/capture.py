"""One forward pass of a model on a text, with every layer's attention captured.

How: a forward pre-hook on each layer's self-attention module (GPT-2's `attn`, BERT's
`attention.self`) keeps the rows that module reads, the hidden states after the layer norm
(GPT-2 normalises before attention, `ln_1`; BERT after the previous layer, so its attention reads
the previous layer's normalised output), and a forward hook keeps the weights that module's eager
attention returns, which are what `output_attentions` collects (the tests hold every layer and
head equal to it). A head's Q, K, V, scores, mask, weights and output are recomputed from those
rows and the layer's own W_q, W_k, W_v (`attn_explorer.lens.heads`).

What makes it fast enough to follow typing (a GPT-2 small at 512 tokens, issue 27's 2 s):
- each layer's weights are reduced as they come (stored as float16, per-row summaries, the
  mean over heads), so no layer's float32 weights outlive its hook;
- the pass stops after the last attention module: the last MLP and final norm feed nothing
  the lens shows;
- a pass whose text is already stale (a newer one waits, `stale()`) stops at the next layer;
- a causal model (GPT-2) keeps its keys and values (`Past`). Its prefix's rows do not depend
  on what follows, so when the new text's tokens begin with the previous text's, only the new
  tokens run, against the kept keys and values, and the prefix's rows are copied (a test holds
  the result equal to a full pass); a text cut at the end runs nothing at all;
- the kernel threads are the cores free now (`engine.threads`): two OpenMP threads on a
  machine with one core taken spin at every barrier, 9 s against 2.5 s on one thread.

The weights of every layer and head are kept as float16, half the memory of float32 (a GPT-2
small at 1,024 tokens: 302 MB instead of 604), as only the model view draws them; the summaries
are computed from the float32 weights before that, and a head's own numbers are recomputed in
float32.
"""

from __future__ import annotations

import inspect
import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from attn_explorer.lens.errors import LensError
from attn_explorer.lens.loading import LoadedModel
from attn_explorer.lens.summaries import HeadSummaries, row_stats
from attn_explorer.lens.tokens import readable
from attn_explorer.text.i18n import _

# New tokens × all tokens under which a pass stays on one kernel thread (a few typed tokens
# against a kept prefix: waking a second thread costs more than it saves).
PARALLEL_FROM_CELLS = 64 * 64


class SupersededError(LensError):
    """A newer text arrived while this one ran: its pass stopped between two layers."""


class _LastLayerDoneError(Exception):
    """The last attention module has run: nothing after it is shown."""


@dataclass(eq=False)
class Past:
    """A causal model's kept keys and values (its transformers cache) and the ids they are
    of; `ids` is empty while a pass changes the cache, so a stopped pass leaves none to reuse."""

    cache: Any = None
    ids: tuple[int, ...] = ()


@dataclass(frozen=True, eq=False)
class ModelRun:
    """What one text did in a model: its tokens, each layer's input rows and weights."""

    loaded: LoadedModel
    text: str
    tokens: tuple[str, ...]
    inputs: np.ndarray  # (layers, n, d_model) float32: what each attention module read
    weights: np.ndarray  # (layers, heads, n, n) float16: the model's own attention weights
    summaries: HeadSummaries
    rows_cache: OrderedDict = field(default_factory=OrderedDict, repr=False)  # lens.lab
    ids: tuple[int, ...] = ()
    rows: np.ndarray | None = field(default=None, repr=False)  # (4, layers, heads, n) per query
    past: Past | None = field(default=None, repr=False)
    reused: int = 0  # leading tokens whose rows came from the previous run unchanged

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


def run(
    loaded: LoadedModel,
    text: str,
    previous: ModelRun | None = None,
    stale: Callable[[], bool] | None = None,
) -> ModelRun:
    """The model's attention on `text`, every layer and head. `previous`: the last run of the
    same model, whose unchanged prefix a causal model reuses; `stale()`: true once a newer text
    waits, which stops this pass (`SupersededError`)."""
    ids, tokens = token_ids(loaded, text)
    n, layers, heads = len(ids), loaded.layers, loaded.heads
    past = previous.past if previous is not None and previous.loaded is loaded else None
    keep = 0
    if past is not None and previous is not None and previous.rows is not None:
        keep = min(_common(past.ids, ids), _common(previous.ids, ids))
        if keep < n and (keep == 0 or not _crop(past.cache, keep)):
            keep = 0
    inputs = np.empty((layers, n, loaded.d_model), dtype=np.float32)
    weights = np.zeros((layers, heads, n, n), dtype=np.float16)  # zeros: a causal map's corner
    rows = np.empty((4, layers, heads, n), dtype=np.float32)
    layer_mean = np.zeros((layers, n, n), dtype=np.float32)
    if keep:
        assert previous is not None and previous.rows is not None
        inputs[:, :keep] = previous.inputs[:, :keep]
        weights[..., :keep, :keep] = previous.weights[..., :keep, :keep]
        rows[..., :keep] = previous.rows[..., :keep]
        layer_mean[:, :keep, :keep] = previous.summaries.layer_mean[:, :keep, :keep]
    if keep < n:
        past = _pass(loaded, ids, keep, past, stale, (inputs, weights, rows, layer_mean))
    return ModelRun(
        loaded=loaded,
        text=text,
        tokens=tokens,
        inputs=inputs,
        weights=weights,
        summaries=HeadSummaries.of(rows, layer_mean),
        ids=tuple(ids),
        rows=rows,
        past=past,
        reused=keep,
    )


def _common(a: tuple[int, ...], b: list[int]) -> int:
    """How many leading ids `a` and `b` share."""
    count = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        count += 1
    return count


def _crop(cache: Any, keep: int) -> bool:
    """Cut every layer of a transformers cache to its first `keep` positions; False where the
    cache is not the kind whose layers hold plain `keys` and `values` (then no reuse)."""
    cache_layers = getattr(cache, "layers", None)
    if not cache_layers or not all(
        hasattr(c, "keys") and hasattr(c, "values") for c in cache_layers
    ):
        return False
    for layer in cache_layers:
        if layer.keys is None or layer.keys.shape[-2] < keep:
            return False
        layer.keys = layer.keys[..., :keep, :]
        layer.values = layer.values[..., :keep, :]
    return True


_chooser: Any = None


def _threads(cells: int) -> int:
    """Kernel threads for a pass of `cells` new × all tokens: one for a few typed tokens, else
    the cores the machine's other programs leave free now (the engine's own rule)."""
    global _chooser
    from attn_explorer.engine.threads import ThreadChooser, choose_threads

    if cells < PARALLEL_FROM_CELLS:
        return 1
    if _chooser is None:
        _chooser = ThreadChooser()
    return choose_threads(math.inf, _chooser.meter.look(), _chooser.most)


@torch.inference_mode()
def _pass(
    loaded: LoadedModel,
    ids: list[int],
    keep: int,
    past: Past | None,
    stale: Callable[[], bool] | None,
    out: tuple[np.ndarray, ...],
) -> Past | None:
    """Run tokens `keep` … n − 1 (the first `keep` come from `past`), writing their rows into
    `out` = (inputs, weights, rows, layer_mean). Returns the keys and values to keep."""
    from attn_explorer.engine.threads import kernel_threads

    inputs, weights, rows, layer_mean = (torch.from_numpy(a) for a in out)
    n, last = len(ids), loaded.layers - 1
    reusable = loaded.family == "gpt2"
    found: dict[str, Any] = {}

    def before(layer: int):
        def hook(_module, args, kwargs):
            if stale is not None and stale():
                raise SupersededError(_("A newer text replaced this one."))
            hidden = args[0] if args else kwargs["hidden_states"]
            inputs[layer, keep:] = hidden[0].float()
            if layer == 0:
                for name in ("cache", "past_key_values", "past_key_value"):
                    if kwargs.get(name) is not None:
                        found["cache"] = kwargs[name]

        return hook

    def after(layer: int):
        def hook(_module, _args, output):
            w = (
                next(
                    o
                    for o in reversed(output)
                    if isinstance(o, torch.Tensor) and o.dim() == 4 and o.shape[-1] == n
                )[0]
                .float()
                .cpu()
            )
            weights[layer, :, keep:] = w
            rows[:, layer, :, keep:] = row_stats(w, keep)
            layer_mean[layer, keep:] = w.mean(0)
            if layer == last:
                raise _LastLayerDoneError

        return hook

    modules = loaded.attention_modules()
    handles = [
        m.register_forward_pre_hook(before(i), with_kwargs=True) for i, m in enumerate(modules)
    ]
    handles += [m.register_forward_hook(after(i)) for i, m in enumerate(modules)]
    kwargs: dict[str, Any] = {"use_cache": reusable}
    if _older_transformers():
        kwargs["output_attentions"] = True  # before 5, the modules return weights only then
    if keep:
        assert past is not None
        kwargs[_cache_argument(loaded.model)] = past.cache
    if past is not None:
        past.ids = ()  # the cache changes below; a stopped pass must not leave it to reuse
    batch = torch.tensor([ids[keep:]], device=loaded.device)
    try:
        with kernel_threads(_threads((n - keep) * n)):
            loaded.model(
                input_ids=batch,
                attention_mask=torch.ones(1, n, dtype=torch.long, device=loaded.device),
                **kwargs,
            )
    except _LastLayerDoneError:
        pass
    except SupersededError:
        # Layers before the stop hold the stopped text's new keys: cut back to the prefix
        # still shared with the previous text, which stays reusable.
        if keep and past is not None and _crop(past.cache, keep):
            past.ids = tuple(ids[:keep])
        raise
    finally:
        for handle in handles:
            handle.remove()
    if not reusable or "cache" not in found:
        return None
    return Past(found["cache"], tuple(ids))


def _cache_argument(model: Any) -> str:
    """The model's name for the cache it continues from: `cache` since transformers 5,
    `past_key_values` before."""
    parameters = inspect.signature(model.forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def _older_transformers() -> bool:
    import transformers

    return int(transformers.__version__.split(".")[0]) < 5
