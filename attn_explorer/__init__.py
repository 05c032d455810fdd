"""attn_explorer: a desktop lab for the attention mechanism of transformers."""

__version__ = "0.1.0"
