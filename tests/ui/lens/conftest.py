"""The tiny models of tests/lens, for the window's tests."""

import importlib.util

import pytest

if importlib.util.find_spec("transformers") is None:  # imported by the tests that use it
    pytest.skip("transformers is not installed", allow_module_level=True)

from tests.lens.conftest import TEXT, bert_folder, gpt2_folder  # noqa: F401


@pytest.fixture
def model_view(window, gpt2_folder):  # noqa: F811 (the fixture imported above)
    """The model view of the tiny GPT-2 on TEXT, closed after the test."""
    from attn_explorer.ui.lens.open_model import open_model

    view = open_model(window, str(gpt2_folder), TEXT, "cpu", wait=True)
    yield view
    view.close()
    view.deleteLater()
    del window.model_view
