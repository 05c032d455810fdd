"""A hub model downloaded into Hugging Face's usual cache, with its bytes counted and a cancel
that stops the transfer.

Only a hub name the user typed is downloaded. The files a model needs (its configuration, its
tokenizer's files and its weights, at the repository's top level) are listed first
(`model_info`, with their sizes, so the total is known before the first byte), then fetched one
by one with `hf_hub_download`, whose `tqdm_class` receives every chunk: `Transfer` counts the
bytes for the window's progress dialog and, once cancelled, raises from the next chunk in the
downloading thread. That exception unwinds `hf_hub_download`, which deletes its partial
`.incomplete` file (huggingface_hub 2.4, installed here: the partial file has a name of its own
per download and a `finally` removes it on any failure; older versions leave
`<etag>.incomplete` in the cache's blobs, which the next download of that file resumes). A file
is linked into the cache's snapshot only once complete, so a cancelled download leaves at most
some complete small files and no weights: `cached()` does not take that as a model, and the
next open downloads what is missing.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from attn_explorer.lens.errors import LensError
from attn_explorer.text.i18n import _

CONFIG = "config.json"
TOKENIZER = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "added_tokens.json",
    "vocab.json",
    "merges.txt",
    "vocab.txt",
)
# The weights in the order transformers prefers them: one file, else the index of shards.
WEIGHTS = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)


class CancelledError(LensError):
    """The user cancelled the download: raised from the transfer's own thread."""


class Transfer:
    """The bytes of one model's download so far, and its cancel switch.

    `progress(done, total)` is called from the downloading thread after every chunk (total None
    until known); `cancel()` may be called from any thread.
    """

    def __init__(self, progress: Callable[[int, int | None], None] | None = None) -> None:
        self.progress = progress
        self.done = 0
        self.total: int | None = None
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def check(self) -> None:
        if self.cancelled:
            raise CancelledError(_("Opening the model was cancelled."))

    def add(self, count: float) -> None:
        """`count` more bytes (negative when a resumed file rewinds); raises once cancelled."""
        self.check()
        self.done += int(count)
        if self.progress is not None:
            self.progress(self.done, self.total)

    def bar_class(self) -> type:
        """A tqdm class whose bars print nothing and count into this transfer."""
        from tqdm.auto import tqdm

        transfer = self

        class Bar(tqdm):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                kwargs.pop("name", None)
                kwargs["disable"] = True
                super().__init__(*args, **kwargs)
                if kwargs.get("initial"):
                    transfer.add(kwargs["initial"])

            def update(self, n: float | None = 1) -> bool | None:
                transfer.add(n or 0)
                return None

        return Bar


def needed_files(names: list[str]) -> list[str]:
    """Of a repository's files, those the lens reads: configuration, tokenizer, weights."""
    top = [name for name in names if "/" not in name]
    wanted = [name for name in top if name == CONFIG or name in TOKENIZER]
    for weights in WEIGHTS:
        if weights in top:
            wanted.append(weights)
            if weights.endswith(".index.json"):
                stem = weights.removesuffix(".index.json").rsplit(".", 1)
                wanted += sorted(
                    n for n in top if n.startswith(stem[0] + "-") and n.endswith("." + stem[1])
                )
            break
    return wanted


def cached(name: str) -> Path | None:
    """The cache's folder of hub model `name` if it holds a configuration and weights (read with
    no network), else None."""
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    config = try_to_load_from_cache(name, CONFIG)
    if not isinstance(config, str):
        return None
    folder = Path(config).parent
    if any((folder / weights).is_file() for weights in WEIGHTS):
        return folder
    return None


def download(name: str, transfer: Transfer) -> Path:
    """Download hub model `name` into the cache (files already there are not fetched again) and
    return its folder. LensError with a sentence for no network, no such model, or a cancel."""
    import huggingface_hub

    try:
        info = huggingface_hub.model_info(name, files_metadata=True)
    except Exception as error:  # the hub raises many kinds; each means the same to a learner
        raise unreachable(name, error) from error
    siblings = {s.rfilename: s.size for s in info.siblings or []}
    files = needed_files(list(siblings))
    if CONFIG not in files or not any(f in WEIGHTS for f in files):
        raise LensError(
            _("{name} on the hub has no configuration or weights that transformers reads.").format(
                name=name
            )
        )
    sizes = [siblings[f] for f in files]
    transfer.total = sum(sizes) if all(s is not None for s in sizes) else None
    # huggingface_hub before 0.25 takes no tqdm_class: then only a cancel between files.
    counted = "tqdm_class" in inspect.signature(huggingface_hub.hf_hub_download).parameters
    options = {"tqdm_class": transfer.bar_class()} if counted else {}
    path = ""
    for filename in files:
        transfer.check()
        try:
            path = huggingface_hub.hf_hub_download(name, filename, revision=info.sha, **options)
        except LensError:
            raise
        except Exception as error:
            raise unreachable(name, error) from error
    return Path(path).parent


def unreachable(name: str, error: Exception) -> LensError:
    """The one-line message for a hub name that cannot be fetched."""
    kind = type(error).__name__
    if kind in ("RepositoryNotFoundError", "GatedRepoError", "RevisionNotFoundError"):
        return LensError(
            _("There is no model {name} on the hub that can be opened; check the name.").format(
                name=name
            )
        )
    return LensError(
        _(
            "{name} is not a model in the local cache and cannot be downloaded: check the name "
            "and the network connection."
        ).format(name=name)
    )
