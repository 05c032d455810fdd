"""The tiny models of tests/lens, for the window's tests."""

import pytest

pytest.importorskip("transformers")

from tests.lens.conftest import TEXT, bert_folder, gpt2_folder  # noqa: F401
