import pytest

from attn_explorer.engine import AttentionConfig
from attn_explorer.engine.presets import JOURNEY, JOURNEY_TOKENS


@pytest.fixture
def journey():
    """A factory for configs over tutorial 000's six tokens: journey(seed=123, causal=True)."""

    def make(**fields) -> AttentionConfig:
        return AttentionConfig(tokens=JOURNEY_TOKENS, embeddings=JOURNEY, **fields)

    return make
