"""What a translated text may still hold in Latin letters, for the tests that read the text
package's words in Vietnamese and in the pseudo-translation.

A word outside these lists is English a translation left behind: symbols, code names and
setting values are written alike in every language (docs/glossary.md), and the Vietnamese
keeps the English terms the tutorials keep.
"""

import re


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Symbols and code names, in every language: formulas' letters and words, PyTorch's names, the
# names of a data file's arrays.
CODE = _words(
    """
    exp softmax Bernoulli keep out out_proj weight torch manual_seed rand nn Linear bias False
    sqrt inf NaN null masked_scores scaled_scores weights_renormalize valid_lens masked True
    SelfAttention_v1 SelfAttention_v2 CausalAttention MultiHeadAttentionWrapper
    MultiHeadAttention v1 v2
    """
)
# The settings' names and values as the controls and `--set` write them, which the Vietnamese
# keeps ("linear: nn.Linear (v2)").
SETTINGS = _words("projection linear rand none split stacked dropout")
# Token names of the examples (quoted in the lessons), in every language.
TOKENS = _words("I am happy starts journey")
# English terms the Vietnamese keeps (docs/glossary.md), the tutorials' titles, which are the
# books' own English titles, and the settings.
KEPT_IN_VIETNAMESE = (
    _words(
        """
    attention score scores token embedding context vector query key value causal padding
    seed cross self Self Attention Cross decoder encoder notebook blog
    Build Large Language Model From Scratch Dive into Deep Learning Scaled Dot Product
    scaled dot product Embedding Masked Context Bias Notebook Dropout Query Key Value
    """
    )
    | SETTINGS
)

# Vietnamese words written without diacritics, which the English check cannot tell apart.
VIETNAMESE_PLAIN = _words("cho Chia chia trong theo sau Ma ma ra che sinh lai khi hai tay")

_WORD = re.compile(r"[^\W\d_][\w]*")
# A symbol with a subscript: X_kv, W_q, Z_cat, d_in, Z_4.
_SYMBOL = re.compile(r"[^\W\d_]_\w{1,4}")
_INNERMOST = re.compile(r"⟪[^⟪⟫]*⟫")


def readable(text: str) -> str:
    """`text` as a reader sees it: HTML tags gone, a subscript written as _ (d<sub>in</sub>
    is d_in), a no-break space a space."""
    text = text.replace("<sub>", "_").replace("&nbsp;", " ")
    return re.sub(r"<[^>]*>", " ", text)


def latin_words(text: str, allowed: frozenset[str]) -> list[str]:
    """The words of `text` (read as `readable`) in plain Latin letters (a word with a
    diacritic is Vietnamese), of two letters or more, that are no symbol and that `allowed`
    lacks."""
    return [
        w
        for w in _WORD.findall(readable(text))
        if len(w) > 1 and w.isascii() and not _SYMBOL.fullmatch(w) and w not in allowed
    ]


def outside_brackets(text: str) -> str:
    """`text` without its ⟪…⟫ spans (nested ones too: a translated sentence with a translated
    name in it), that is what no translation went through."""
    while True:
        stripped = _INNERMOST.sub(" ", text)
        if stripped == text:
            return text
        text = stripped
