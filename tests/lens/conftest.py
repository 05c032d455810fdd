"""Tiny models built once per test session, saved to a temporary folder and opened through the
same code path a user's folder takes. No test reaches the network."""

from __future__ import annotations

import importlib.util
import os

import pytest

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

if importlib.util.find_spec("transformers") is None:  # imported by the tests that use it
    pytest.skip("transformers is not installed", allow_module_level=True)

from tests.lens import tiny

TEXT = "the cat sat on the mat, the dog ran after the cat"


@pytest.fixture(scope="session")
def gpt2_folder(tmp_path_factory):
    return tiny.gpt2_folder(tmp_path_factory.mktemp("gpt2"))


@pytest.fixture(scope="session")
def bert_folder(tmp_path_factory):
    return tiny.bert_folder(tmp_path_factory.mktemp("bert"))


@pytest.fixture(scope="session")
def gpt2(gpt2_folder):
    from attn_explorer.lens.loading import load

    return load(str(gpt2_folder), "cpu")


@pytest.fixture(scope="session")
def bert(bert_folder):
    from attn_explorer.lens.loading import load

    return load(str(bert_folder), "cpu")


@pytest.fixture(scope="session", params=["gpt2", "bert"])
def loaded(request):
    return request.getfixturevalue(request.param)
