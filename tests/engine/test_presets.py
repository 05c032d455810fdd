"""The examples: each is found again by its settings, which is how the window names it."""

from dataclasses import replace

import pytest

from attn_explorer.engine import PRESETS, matching_preset
from attn_explorer.state import ExplorerState


@pytest.mark.parametrize("name", list(PRESETS))
def test_an_example_is_found_by_its_settings_alone(name):
    """What the window names as loaded: the one example computed so (an edit leaves it)."""
    example = PRESETS[name]
    assert matching_preset(example.config) is example
    # As the window's document holds it: switched-off controls kept, the view its own.
    assert matching_preset(ExplorerState.from_preset(example).config()) is example
    assert matching_preset(replace(example.config, temperature=0.5)) is None
    assert (
        matching_preset(replace(example.config, tokens=("edited", *example.config.tokens[1:])))
        is None
    )
