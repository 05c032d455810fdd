"""Opening a model: the families the lens takes apart, and a sentence for everything else."""

from __future__ import annotations

import json
import sys

import pytest

from attn_explorer.lens.errors import LensError
from attn_explorer.lens.loading import is_folder_name, load, pick_device


def test_a_saved_gpt2_opens_with_its_sizes_on_the_cpu(gpt2):
    assert (gpt2.family, gpt2.layers, gpt2.heads, gpt2.d_model, gpt2.d_head) == (
        "gpt2",
        3,
        4,
        32,
        8,
    )
    assert gpt2.causal and gpt2.max_tokens == 64 and gpt2.device == "cpu"
    assert gpt2.model.config._attn_implementation == "eager"


def test_a_saved_bert_opens_without_a_causal_mask(bert):
    assert (bert.family, bert.layers, bert.heads, bert.d_model, bert.causal) == (
        "bert",
        2,
        3,
        24,
        False,
    )


def test_the_layer_weights_are_split_into_heads_in_x_at_w_orientation(gpt2, bert):
    for loaded in (gpt2, bert):
        w_q, *_, b_v = loaded.layer_weights(0)
        assert w_q.shape == (loaded.heads, loaded.d_model, loaded.d_head)
        assert b_v.shape == (loaded.heads, loaded.d_head)


def test_gpt2s_activation_is_the_fused_kernel_and_its_attention_stays_the_models(gpt2, gpt2_folder):
    """The lens runs GPT-2's gelu_new as torch's fused tanh GELU (a third of the forward
    pass at 512 tokens); every layer's and head's attention stays within 1e-5 of the model
    as transformers builds it, with its five-operation gelu_new."""
    import torch
    from transformers import AutoModel
    from transformers.activations import NewGELUActivation

    from attn_explorer.lens.loading import _TanhGELU

    assert all(type(block.mlp.act) is _TanhGELU for block in gpt2.model.h)
    original = AutoModel.from_pretrained(str(gpt2_folder), attn_implementation="eager").eval()
    assert type(original.h[0].mlp.act) is NewGELUActivation
    # Scores far from 0, as tiny.py's weights give: the activations meet both branches.
    ids = torch.tensor([list(range(5, 45))])
    with torch.inference_mode():
        ours = gpt2.model(input_ids=ids, output_attentions=True).attentions
        theirs = original(input_ids=ids, output_attentions=True).attentions
    assert len(ours) == gpt2.layers
    for mine, model_own in zip(ours, theirs, strict=True):
        torch.testing.assert_close(mine, model_own, atol=1e-5, rtol=0)


def test_a_missing_folder_is_refused_in_one_sentence(tmp_path):
    with pytest.raises(LensError) as caught:
        load(str(tmp_path / "nothing"))
    assert str(caught.value) == f"There is no folder {tmp_path / 'nothing'}."
    assert caught.value.status == 2


def test_a_folder_without_a_model_says_what_a_model_folder_holds(tmp_path):
    with pytest.raises(LensError, match=r"holds no model: a model folder has a config\.json"):
        load(str(tmp_path))


def _config_folder(tmp_path, **config):
    (tmp_path / "config.json").write_text(json.dumps(config))
    return str(tmp_path)


def test_a_llama_style_model_is_refused_with_the_reason(tmp_path):
    folder = _config_folder(tmp_path, model_type="llama")
    with pytest.raises(LensError) as caught:
        load(folder)
    message = str(caught.value)
    assert "rotates queries and keys by their positions" in message
    assert "shares key/value heads" in message and caught.value.status == 2


def test_another_family_is_refused_naming_it(tmp_path):
    folder = _config_folder(tmp_path, model_type="t5")
    with pytest.raises(LensError, match="is a t5 model; the lens opens GPT-2 and BERT"):
        load(folder)


def test_a_bert_with_relative_positions_is_refused(tmp_path):
    folder = _config_folder(tmp_path, model_type="bert", position_embedding_type="relative_key")
    with pytest.raises(LensError, match="relative position scores"):
        load(folder)


def test_the_refusal_reads_in_vietnamese(tmp_path, vietnamese):
    folder = _config_folder(tmp_path, model_type="t5")
    with pytest.raises(LensError) as caught:
        load(folder)
    assert "GPT-2" in str(caught.value) and "mô hình" in str(caught.value)


def test_without_transformers_the_message_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(LensError) as caught:
        load("gpt2")
    assert 'pip install -e ".[models]"' in str(caught.value)


def _sees(monkeypatch, cuda: bool, mps: bool) -> None:
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: mps)


@pytest.mark.parametrize(
    ("cuda", "mps", "chosen"),
    [(False, False, "cpu"), (True, False, "cuda"), (False, True, "mps"), (True, True, "cuda")],
)
def test_the_device_is_a_gpu_torch_sees_else_the_cpu(monkeypatch, cuda, mps, chosen):
    _sees(monkeypatch, cuda, mps)
    assert pick_device(None) == chosen
    assert pick_device("cpu") == "cpu"  # --device cpu overrides a GPU


def test_a_device_asked_for_is_taken_when_torch_sees_it(monkeypatch):
    _sees(monkeypatch, cuda=True, mps=True)
    assert pick_device("cuda") == "cuda" and pick_device("mps") == "mps"


def test_a_missing_device_is_refused_in_a_sentence(monkeypatch):
    _sees(monkeypatch, cuda=False, mps=False)
    with pytest.raises(LensError, match="torch sees no CUDA device here: use --device cpu"):
        pick_device("cuda")
    with pytest.raises(LensError, match="torch sees no Apple MPS device here: use --device cpu"):
        pick_device("mps")
    with pytest.raises(LensError, match="Unknown device tpu: choose cpu, cuda or mps"):
        pick_device("tpu")


def test_a_missing_device_is_refused_before_the_model_is_read(monkeypatch, tmp_path):
    """Before a folder is read or a hub model downloaded: the error costs no seconds."""
    _sees(monkeypatch, cuda=False, mps=False)
    with pytest.raises(LensError, match="no CUDA device") as caught:
        load(str(tmp_path / "nothing"), "cuda")
    assert caught.value.status == 2


def test_folder_and_hub_names_are_told_apart(tmp_path):
    assert is_folder_name(str(tmp_path)) and is_folder_name("./gpt2") and is_folder_name("~/m")
    assert not is_folder_name("gpt2") and not is_folder_name("openai-community/gpt2")


def test_a_pseudo_translated_refusal_has_no_english_outside_the_brackets(tmp_path, pseudo):
    with pytest.raises(LensError) as caught:
        load(str(tmp_path / "nothing"))
    message = str(caught.value)
    assert message.startswith("⟪") and message.endswith("⟫")
