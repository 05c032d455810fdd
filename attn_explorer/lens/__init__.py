"""The lens: a real GPT-2 or BERT family model's attention, layer by layer and head by head.

Qt-free, above the words (its refusals are sentences a learner reads) and below the learner's
state, so the window, the command line and the tests open a model through one code path.
`transformers` is imported only when a model is opened: the base install runs without it.

- `loading`: a model and its tokenizer from a folder or a hub name, the device, the families
  the lens can take apart and why it refuses the others;
- `download`: a hub name fetched into the cache, its bytes counted, a cancel that stops it;
- `capture`: one forward pass with eager attention, every layer's input rows and weights
  (a causal model's unchanged prefix reused);
- `heads`: one head's Q, K, V, scores, mask, weights and output, from the captured rows and
  the layer's own parameters;
- `summaries`: per-head entropy and look-back distance, per-layer means;
- `importance`: each head switched off alone, and how much the model's prediction changes;
- `lab`: a head as an ordinary `AttentionConfig`;
- `tokens`: the tokenizer's pieces made readable.
"""
