"""Every example the engine defines has its words, and only those examples have words."""

from attn_explorer.engine import PRESETS
from attn_explorer.text.examples import EXAMPLES, example_text


def test_every_example_has_a_title_and_a_lesson_and_no_other_has():
    assert list(EXAMPLES) == list(PRESETS)  # the menu lists them in the engine's order
    for name in PRESETS:
        words = example_text(name)
        assert words.title.strip() and words.source.strip()


def test_the_dropout_lesson_names_the_tutorials_kept_weights():
    assert example_text("dropout").title == "Dropout 0.5 on the causal weights (reseed 123)"
    assert "0.7599, 0.6194, 0.6206" in example_text("dropout").source
