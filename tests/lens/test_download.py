"""A hub name is downloaded with its bytes counted and a cancel that stops the transfer; no
network: the hub is faked (tests/lens/fake_hub.py)."""

from __future__ import annotations

import threading

import pytest

from attn_explorer.lens.download import CancelledError, Transfer, needed_files
from attn_explorer.lens.errors import LensError
from attn_explorer.lens.loading import load
from tests.lens.fake_hub import FakeHub


def test_only_the_configuration_tokenizer_and_weights_are_fetched():
    names = [
        "config.json",
        "README.md",
        "onnx/model.onnx",
        "tokenizer.json",
        "vocab.txt",
        "model.safetensors",
        "pytorch_model.bin",
        "tf_model.h5",
    ]
    assert needed_files(names) == [
        "config.json",
        "tokenizer.json",
        "vocab.txt",
        "model.safetensors",
    ]
    shards = ["config.json", "model.safetensors.index.json"] + [
        f"model-0000{i}-of-00002.safetensors" for i in (2, 1)
    ]
    assert needed_files(shards)[1:] == [
        "model.safetensors.index.json",
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
    ]


def test_a_hub_name_downloads_counting_its_bytes_and_opens(gpt2_folder, tmp_path, monkeypatch):
    hub = FakeHub(gpt2_folder, tmp_path / "snapshot").install(monkeypatch)
    seen = []
    loaded = load("someone/tiny-gpt2", "cpu", transfer=Transfer(lambda d, t: seen.append((d, t))))
    total = sum(hub.size(f) for f in needed_files([p.name for p in gpt2_folder.iterdir()]))
    assert seen[-1] == (total, total) and len(seen) == hub.chunks
    assert loaded.name == "someone/tiny-gpt2" and loaded.family == "gpt2"
    assert not (tmp_path / "snapshot" / "README.md").exists()


def test_cancel_stops_the_transfer_midway(gpt2_folder, tmp_path, monkeypatch):
    hub = FakeHub(gpt2_folder, tmp_path / "snapshot", {"model.safetensors": 50_000_000}, 0.01)
    hub.install(monkeypatch)
    transfer = Transfer()
    failure = []

    def work():
        try:
            load("someone/tiny-gpt2", "cpu", transfer=transfer)
        except LensError as error:
            failure.append(error)

    thread = threading.Thread(target=work)
    thread.start()
    assert hub.sending.wait(30)
    while transfer.done < 5_000_000:
        thread.join(0.01)
    transfer.cancel()
    thread.join(30)
    assert not thread.is_alive()
    assert isinstance(failure[0], CancelledError)
    assert str(failure[0]) == "Opening the model was cancelled."
    assert isinstance(hub.stopped_by[0], CancelledError)  # raised inside the transfer
    assert transfer.done < 50_000_000 and not (tmp_path / "snapshot" / "model.safetensors").exists()


@pytest.mark.parametrize(
    ("kind", "words"),
    [
        ("ConnectError", "cannot be downloaded: check the name and the network connection."),
        ("RepositoryNotFoundError", "There is no model someone/nothing on the hub"),
    ],
)
def test_without_network_or_model_one_line_says_so(monkeypatch, kind, words):
    import huggingface_hub

    from attn_explorer.lens import loading

    def refuse(name, files_metadata=False):
        raise type(kind, (Exception,), {})("many lines\nof the hub's own words")

    monkeypatch.setattr(huggingface_hub, "model_info", refuse)
    monkeypatch.setattr(loading, "cached", lambda name: None)
    with pytest.raises(LensError) as caught:
        load("someone/nothing", "cpu")
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_the_no_network_line_reads_in_vietnamese(monkeypatch, vietnamese):
    import huggingface_hub

    from attn_explorer.lens import loading

    def refuse(name, files_metadata=False):
        raise OSError("offline")

    monkeypatch.setattr(huggingface_hub, "model_info", refuse)
    monkeypatch.setattr(loading, "cached", lambda name: None)
    with pytest.raises(LensError) as caught:
        load("gpt2", "cpu")
    assert str(caught.value) == (
        "gpt2 không có trong bộ nhớ đệm trên máy và không tải xuống được: hãy kiểm tra tên mô "
        "hình và kết nối mạng."
    )
