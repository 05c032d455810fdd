"""A PyTorch script that loads a real model from the same folder or hub name and prints the
opened head's numbers: its tokens, Q, K, V, scores, weights and output, and that its weights are
the model's own `output_attentions`.

The script does what the lens does, in plain transformers and torch: a forward pre-hook keeps
the rows the layer's attention module reads (after the layer norm), the head's W_q, W_k, W_v
are sliced from the layer's parameters, and the head is recomputed from them.
"""

from __future__ import annotations

from attn_explorer.io.code_modules import comment, docstring, python_string
from attn_explorer.text.i18n import _

# The family's attention modules and how a head's W_q, W_k, W_v and biases are sliced from
# them, as `x @ W` (GPT-2's Conv1D keeps them so; BERT's nn.Linear as the transpose).
_FAMILY = {
    "gpt2": """
ATTENTION = [block.attn for block in model.h]


def head_weights(module, head, d_head):
    d_model = module.c_attn.weight.shape[0]
    cols = slice(head * d_head, (head + 1) * d_head)
    w = module.c_attn.weight.split(d_model, dim=1)  # q | k | v, each (d_model, d_model)
    b = module.c_attn.bias.split(d_model)
    return [m[:, cols] for m in w], [v[cols] for v in b]
""",
    "bert": """
ATTENTION = [layer.attention.self for layer in model.encoder.layer]


def head_weights(module, head, d_head):
    cols = slice(head * d_head, (head + 1) * d_head)
    parts = (module.query, module.key, module.value)
    return [p.weight.T[:, cols] for p in parts], [p.bias[cols] for p in parts]
""",
}


def model_script(
    source: str, family: str, text: str, layer: int, head: int, causal: bool, divisor: float
) -> str:
    """The script for head `head` of layer `layer` (both from 1) of the model at `source`.
    `divisor` is what the layer divides its scores by (√d_head, times GPT-2's per-layer
    factor where the model has one)."""
    title = _(
        "Layer {layer}, head {head} of {model}, recomputed from the model's own weights and "
        "compared with its output_attentions. Needs transformers (pip install transformers)."
    ).format(layer=layer, head=head, model=source)
    keep = comment(_("the rows the attention module reads: the hidden states after the layer norm"))
    same = python_string(_("largest difference from output_attentions:"))
    divided = comment(_("the scores are divided by this: sqrt(d_head), as the model does"))
    return f"""#!/usr/bin/env python3
{docstring(title, "")}

import torch
from transformers import AutoModel, AutoTokenizer

MODEL = {python_string(source)}
TEXT = {python_string(text)}
LAYER = {layer}
HEAD = {head}
CAUSAL = {causal}
DIVISOR = {divisor!r}  {divided}

tokenizer = AutoTokenizer.from_pretrained(MODEL)
model = AutoModel.from_pretrained(MODEL, attn_implementation="eager")
model.eval()
{_FAMILY[family]}

def show(title, matrix, labels):
    print(f"{{title}} ({{matrix.shape[0]}} x {{matrix.shape[1]}}):")
    width = max(len(label) for label in labels)
    for label, row in zip(labels, matrix.tolist()):
        print(f"  {{label:<{{width}}}}" + "".join(f" {{v:11.6f}}" for v in row))
    print()


def main():
    batch = tokenizer(TEXT, return_tensors="pt")
    rows = {{}}
    module = ATTENTION[LAYER - 1]

    def keep(_module, args, kwargs):  {keep}
        rows["x"] = (args[0] if args else kwargs["hidden_states"])[0]

    handle = module.register_forward_pre_hook(keep, with_kwargs=True)
    with torch.no_grad():
        out = model(**batch, output_attentions=True)
        handle.remove()
        d_head = model.config.hidden_size // model.config.num_attention_heads
        (w_q, w_k, w_v), (b_q, b_k, b_v) = head_weights(module, HEAD - 1, d_head)
        x = rows["x"]
        q, k, v = x @ w_q + b_q, x @ w_k + b_k, x @ w_v + b_v
        scores = q @ k.T
        n = scores.shape[0]
        hidden = torch.ones(n, n, dtype=torch.bool).triu(1)
        if not CAUSAL:
            hidden[:] = False
        weights = torch.softmax((scores / DIVISOR).masked_fill(hidden, float("-inf")), dim=-1)
        output = weights @ v
    labels = [repr(t) for t in tokenizer.convert_ids_to_tokens(batch["input_ids"][0])]
    for name, matrix in (("Q", q), ("K", k), ("V", v)):
        show(name, matrix, labels)
    show("scores", scores, labels)
    show("weights", weights, labels)
    show("output", output, labels)
    own = out.attentions[LAYER - 1][0, HEAD - 1]
    print({same}, f"{{(weights - own).abs().max().item():.2e}}")
    return weights


if __name__ == "__main__":
    main()
"""
