"""Shared by the session tests: the documents and states they break or round-trip, and the
helpers that save, load and compare them."""

import numpy as np
import pytest

from attn_explorer.engine import PRESETS, ConfigError, compute
from attn_explorer.io.session import (
    SessionError,
    load_session,
    save_session,
    state_to_document,
)
from attn_explorer.model.state import (
    Controls,
    ExplorerState,
    TokenSequence,
)

ODD_TOKENS = ("😀 emoji", "مرحبا", "line\nbreak", 'quote " and \\ back', "", "tab\there")


def preset_state(name: str) -> ExplorerState:
    return ExplorerState.from_config(PRESETS[name].config)


@pytest.fixture
def cross_doc() -> dict:
    """A valid document with kv present: the base every rejection case breaks one way."""
    return state_to_document(preset_state("cross"))


@pytest.fixture
def odd_state() -> ExplorerState:
    """Tokens a file format can trip on: emoji, right-to-left, newline, quotes, empty."""
    rows = tuple((0.1 * i, -0.2 * i, 3.5) for i in range(len(ODD_TOKENS)))
    queries = TokenSequence(ODD_TOKENS, rows)
    kv = TokenSequence(("κλειδί", "🔑"), ((1.0, 2.0, 3.0), (-1e-7, 0.0, 3.4e38)))
    return ExplorerState(queries=queries, kv=kv, controls=Controls(cross=True))


def save_and_load(state: ExplorerState, path) -> ExplorerState:
    save_session(path, state)
    return load_session(path)


def assert_same_trace(a: ExplorerState, b: ExplorerState) -> None:
    """The engine sees no difference: same arrays bit for bit (or the same refusal)."""
    try:
        first = compute(a.config())
    except ConfigError as error:
        with pytest.raises(ConfigError, match=str(error)[:30]):
            compute(b.config())
        return
    second = compute(b.config())
    assert first.names == second.names
    for name in first.names:
        np.testing.assert_array_equal(first[name], second[name], err_msg=name)


def refused(path) -> str:
    """The message of the SessionError loading `path` raises; it must be one line."""
    with pytest.raises(SessionError) as caught:
        load_session(path)
    message = str(caught.value)
    assert len(message.splitlines()) == 1, message
    return message


@pytest.fixture
def existing(tmp_path):
    """A session file already on disk, and its exact bytes."""
    path = tmp_path / "session.json"
    save_session(path, preset_state("v1"))
    return path, path.read_bytes()


def assert_untouched(existing) -> None:
    path, before = existing
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == ["session.json"], "a temp file remained"


def set_in(path: str, value):
    """A mutation: set doc[a][b]... (dots; integers index lists) to `value`."""

    def mutate(doc):
        *parents, last = path.split(".")
        target = doc
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        target[int(last) if isinstance(target, list) else last] = value

    return mutate


def delete(path: str):
    def mutate(doc):
        *parents, last = path.split(".")
        target = doc
        for key in parents:
            target = target[key]
        del target[last]

    return mutate


def text_replace(old: str, new: str):
    """A mutation of the saved text, for what json.dumps would never write."""
    return ("text", old, new)
