"""A fake Hugging Face hub, so that the download's progress and cancel are tested with no
network: `model_info` lists a tiny model's files with their sizes, and `hf_hub_download` feeds
the caller's tqdm class chunk by chunk, as huggingface_hub's own transfer does, then copies the
file from a local folder into a fake snapshot."""

from __future__ import annotations

import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

CHUNK = 1_000_000


@dataclass
class FakeHub:
    source: Path  # a saved tiny model whose files the fake serves
    snapshot: Path
    sizes: dict[str, int] = field(default_factory=dict)  # announced sizes (default: real)
    pause: float = 0.0  # seconds between chunks
    chunks: int = 0  # chunks sent so far
    stopped_by: list[BaseException] = field(default_factory=list)
    sending: threading.Event = field(default_factory=threading.Event)

    def size(self, name: str) -> int:
        return self.sizes.get(name, (self.source / name).stat().st_size)

    def model_info(self, name, files_metadata=False):
        files = [p.name for p in self.source.iterdir()]
        siblings = [SimpleNamespace(rfilename=f, size=self.size(f)) for f in sorted(files)]
        siblings += [SimpleNamespace(rfilename=f, size=1) for f in ("onnx/model.onnx", "README.md")]
        return SimpleNamespace(siblings=siblings, sha="0" * 40)

    def hf_hub_download(self, repo_id, filename, *, revision=None, tqdm_class=None):
        total = self.size(filename)
        bar = tqdm_class(total=total, initial=0, desc=filename, name="huggingface_hub.x")
        sent = 0
        try:
            with bar:
                while sent < total:
                    step = min(CHUNK, total - sent)
                    self.sending.set()
                    bar.update(step)
                    sent += step
                    self.chunks += 1
                    time.sleep(self.pause)
        except BaseException as error:
            self.stopped_by.append(error)
            raise
        self.snapshot.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.source / filename, self.snapshot / filename)
        return str(self.snapshot / filename)

    def install(self, monkeypatch) -> FakeHub:
        import huggingface_hub

        from attn_explorer.lens import loading

        monkeypatch.setattr(huggingface_hub, "model_info", self.model_info)
        monkeypatch.setattr(huggingface_hub, "hf_hub_download", self.hf_hub_download)
        monkeypatch.setattr(loading, "cached", lambda name: None)
        return self
