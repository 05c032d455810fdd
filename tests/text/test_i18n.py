"""The Qt-free translation layer: a language is chosen, words follow it, and the catalogues
are complete, consistent and compiled."""

import pytest

from attn_explorer.text import catalogues, i18n


def test_english_is_the_source_and_needs_no_catalogue():
    assert i18n.language() == "en"
    assert i18n._("Step through") == "Step through"


def test_vietnamese_words_come_from_the_compiled_catalogue(vietnamese):
    assert i18n.language() == "vi"
    assert i18n._("Matrices") == "Ma trận"


def test_a_language_without_a_catalogue_is_refused_and_nothing_changes():
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        i18n.set_language("fr")
    assert i18n.language() == "en"


def test_listeners_hear_every_change(vietnamese):
    heard = []
    i18n.on_language_changed(heard.append)
    try:
        i18n.set_language("en")
        i18n.set_language("vi")
    finally:
        i18n._listeners.remove(heard.append)
    assert heard == ["en", "vi"]


@pytest.mark.parametrize(
    ("environ", "code"),
    [
        ({"LANG": "vi_VN.UTF-8"}, "vi"),
        ({"LANGUAGE": "fr:vi", "LANG": "fr_FR.UTF-8"}, "vi"),
        ({"LC_ALL": "de_DE.UTF-8", "LANG": "vi_VN.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_systems_language_as_gettext_reads_it(environ, code):
    assert i18n.system_language(environ) == code


def test_the_catalogues_are_complete_consistent_and_compiled():
    pytest.importorskip("babel")
    assert list(catalogues.problems()) == []


def test_placeholders_are_compared_by_name():
    assert catalogues.fields("{0} of {name:.4f}") == {"0", "name"}
