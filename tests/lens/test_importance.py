"""A real model's heads switched off one at a time: the hook equals zeroing the head's slice of
the output projection's input by hand, and each measure equals its direct computation."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch

from attn_explorer.lens import importance as imp
from attn_explorer.lens.capture import run, token_ids
from attn_explorer.lens.errors import LensError
from attn_explorer.lens.heads import head_arrays
from tests.lens.conftest import TEXT

SHORT = "the cat sat on the mat"


@pytest.fixture(scope="module")
def bert_mlm(tmp_path_factory):
    """A tiny BERT saved with its masked-LM head, as bert-base-uncased is."""
    from transformers import BertConfig, BertForMaskedLM

    from attn_explorer.lens.loading import load
    from tests.lens.tiny import bert_folder

    folder = bert_folder(tmp_path_factory.mktemp("bert-mlm"))
    config = BertConfig.from_pretrained(folder)
    torch.manual_seed(2)
    BertForMaskedLM(config).eval().save_pretrained(folder)
    return load(str(folder), "cpu")


def _edited(loaded, layer, head):
    """A copy of the model whose output projection of `layer` ignores `head`: the rows (GPT-2's
    Conv1D, `x @ W`) or columns (BERT's Linear, `x @ Wᵀ`) that read its slice set to zero."""
    model = copy.deepcopy(loaded.model)
    cols = slice(head * loaded.d_head, (head + 1) * loaded.d_head)
    with torch.no_grad():
        if loaded.family == "gpt2":
            model.h[layer].attn.c_proj.weight[cols, :] = 0
        else:
            model.encoder.layer[layer].attention.output.dense.weight[:, cols] = 0
    return model


def _hidden(model, ids):
    batch = torch.tensor([ids])
    with torch.inference_mode():
        return model(input_ids=batch, attention_mask=torch.ones_like(batch)).last_hidden_state[0]


@pytest.mark.parametrize("name", ["gpt2", "bert"])
def test_the_hook_equals_zeroing_the_heads_weights_by_hand(name, request):
    loaded = request.getfixturevalue(name)
    ids, _ = token_ids(loaded, TEXT)
    for layer in range(loaded.layers):
        keep = torch.ones(loaded.heads, loaded.heads) - torch.eye(loaded.heads)
        handle = imp.switch_off(loaded, layer, keep)
        try:
            with torch.inference_mode():
                batch = torch.tensor([ids] * loaded.heads)
                hooked = loaded.model(input_ids=batch, attention_mask=torch.ones_like(batch))
        finally:
            handle.remove()
        for head in range(loaded.heads):
            by_hand = _hidden(_edited(loaded, layer, head), ids)
            np.testing.assert_allclose(
                hooked.last_hidden_state[head].numpy(), by_hand.numpy(), atol=2e-5
            )
    # the hooks are gone: the model is whole again
    assert not any(m._forward_pre_hooks for m in imp.output_projections(loaded))


def test_the_layer_output_is_the_other_heads_concatenated_through_w_o(gpt2):
    """One layer by hand from the lens's own per-head outputs: concat with head 2 zeroed, @ W_o."""
    model_run = run(gpt2, TEXT)
    layer, head = 1, 2
    outputs = [head_arrays(model_run, layer, h).output for h in range(gpt2.heads)]
    outputs[head] = np.zeros_like(outputs[head])
    c_proj = gpt2.model.h[layer].attn.c_proj
    by_hand = np.concatenate(outputs, axis=1) @ c_proj.weight.detach().numpy()
    by_hand += c_proj.bias.detach().numpy()
    seen = {}
    keep = torch.ones(1, gpt2.heads)
    keep[0, head] = 0
    handle = imp.switch_off(gpt2, layer, keep)
    out_handle = c_proj.register_forward_hook(lambda _m, _a, out: seen.setdefault("out", out))
    try:
        _hidden(gpt2.model, list(token_ids(gpt2, TEXT)[0]))
    finally:
        handle.remove()
        out_handle.remove()
    np.testing.assert_allclose(seen["out"][0].numpy(), by_hand, atol=2e-5)


def test_gpt2s_next_token_importance_equals_the_direct_computation(gpt2):
    from transformers import AutoModelForCausalLM

    result = imp.importance(gpt2, SHORT)
    assert result.measure == imp.NEXT and result.primary.shape == (3, 4)
    ids, _ = token_ids(gpt2, SHORT)
    lm = AutoModelForCausalLM.from_pretrained(gpt2.source, attn_implementation="eager").eval()
    batch = torch.tensor([ids])
    with torch.inference_mode():
        full = torch.log_softmax(lm(input_ids=batch).logits[0], -1)
        # the lens's tied head gives the LM head's own logits
        np.testing.assert_allclose(
            torch.log_softmax(imp.prediction(gpt2).logits(_hidden(gpt2.model, ids)), -1).numpy(),
            full.numpy(),
            atol=2e-5,
        )
        for layer, head in [(0, 3), (2, 1)]:
            lm.transformer = _edited(gpt2, layer, head)
            cut = torch.log_softmax(lm(input_ids=batch).logits[0], -1)
            kl = (full.exp() * (full - cut)).sum(-1).mean().item()
            picked = np.arange(len(ids) - 1), ids[1:]
            delta = (cut[picked] - full[picked]).mean().item()
            assert result.primary[layer, head] == pytest.approx(kl, rel=1e-4, abs=1e-6)
            assert result.secondary[layer, head] == pytest.approx(delta, rel=1e-4, abs=1e-6)


def test_a_bert_with_its_mlm_head_measures_its_token_predictions(bert_mlm):
    from transformers import BertForMaskedLM

    result = imp.importance(bert_mlm, SHORT)
    assert result.measure == imp.MASKED
    ids, _ = token_ids(bert_mlm, SHORT)
    mlm = BertForMaskedLM.from_pretrained(bert_mlm.source, attn_implementation="eager").eval()
    batch = torch.tensor([ids])
    with torch.inference_mode():
        full = torch.log_softmax(mlm(input_ids=batch).logits[0], -1)
        mine = imp.prediction(bert_mlm).logits(_hidden(bert_mlm.model, ids))
        np.testing.assert_allclose(torch.log_softmax(mine, -1).numpy(), full.numpy(), atol=2e-5)
        mlm.bert = _edited(bert_mlm, 1, 0)
        cut = torch.log_softmax(mlm(input_ids=batch).logits[0], -1)
    kl = (full.exp() * (full - cut)).sum(-1).mean().item()
    delta = (cut[np.arange(len(ids)), ids] - full[np.arange(len(ids)), ids]).mean().item()
    assert result.primary[1, 0] == pytest.approx(kl, rel=1e-4)
    assert result.secondary[1, 0] == pytest.approx(delta, rel=1e-4, abs=1e-6)


def test_a_bare_bert_measures_the_change_of_its_last_hidden_state(bert):
    result = imp.importance(bert, SHORT)
    assert result.measure == imp.HIDDEN
    ids, _ = token_ids(bert, SHORT)
    full = _hidden(bert.model, ids)
    change = _hidden(_edited(bert, 0, 2), ids) - full
    norm = torch.linalg.norm(change).item()
    assert result.primary[0, 2] == pytest.approx(norm, rel=1e-5)
    assert result.secondary[0, 2] == pytest.approx(norm / torch.linalg.norm(full).item(), rel=1e-5)
    assert "has no prediction head" in imp.describe(result)
    assert imp.to_csv(result).splitlines()[0] == "layer,head,norm,share"
    assert json.loads(imp.to_json(result))["columns"]["norm"] == "norm of the change"


def test_batching_does_not_change_the_numbers(gpt2, monkeypatch):
    whole = imp.importance(gpt2, SHORT)
    monkeypatch.setattr(imp, "BATCH_BYTES", 1)  # one head per pass
    calls = []
    one_by_one = imp.importance(gpt2, SHORT, progress=lambda done, total: calls.append(done))
    assert calls == list(range(1, 13))
    np.testing.assert_allclose(one_by_one.primary, whole.primary, rtol=1e-5, atol=1e-7)


def test_cancel_stops_before_the_next_pass(gpt2):
    asked = []

    def cancelled():
        asked.append(1)
        return len(asked) > 1

    with pytest.raises(LensError, match="cancelled"):
        imp.importance(gpt2, SHORT, cancelled=cancelled)
    assert len(asked) == 2


def test_exports_rank_the_heads_from_one(gpt2):
    result = imp.importance(gpt2, SHORT)
    layer, head = np.unravel_index(np.argmax(result.primary), result.primary.shape)
    rows = imp.to_csv(result).splitlines()
    assert rows[0] == "layer,head,kl,delta_logprob"
    assert rows[1].startswith(f"{layer + 1},{head + 1},")
    data = json.loads(imp.to_json(result))
    assert data["measure"] == "next-token" and data["ranking"][0]["layer"] == layer + 1
    assert data["kl"][layer][head] == pytest.approx(result.primary[layer, head])
    assert len(data["ranking"]) == 12


def test_a_vietnamese_learner_reads_the_measure_with_a_decimal_point(gpt2, vietnamese):
    result = imp.importance(gpt2, SHORT)
    text = imp.headline(result)
    layer, head, value, _ = result.ranking()[0]
    assert text.startswith(f"Quan trọng nhất: tầng {layer + 1}, đầu {head + 1}")
    assert f"{value:.4f}" in text
    assert "KL" in imp.describe(result) and "phân phối" in imp.describe(result)
