"""A change made of several parts (open a file, load an example, add a dimension) reaches the
engine only whole: every `changed` the document emits reads a config that can be computed."""

import numpy as np
import pytest

from attn_explorer.engine.presets import preset
from attn_explorer.model.state import ExplorerState, TokenSequence


def cross_state(d_in: int, n_q: int = 4, n_kv: int = 5) -> ExplorerState:
    """The cross example with embeddings `d_in` wide, so its queries differ from the example's."""
    state = ExplorerState.from_preset(preset("cross"))
    rng = np.random.default_rng(d_in)

    def table(prefix: str, n: int) -> TokenSequence:
        rows = rng.uniform(-1, 1, (n, d_in)).round(2)
        return TokenSequence(tuple(f"{prefix}{i}" for i in range(n)), tuple(map(tuple, rows)))

    return ExplorerState(table("q", n_q), table("k", n_kv), state.controls, state.view)


def plain_state(d_in: int, n: int = 6) -> ExplorerState:
    """A self-attention session whose embeddings are `d_in` wide."""
    state = ExplorerState.from_config(preset("simple").config)
    rows = np.random.default_rng(1).uniform(-1, 1, (n, d_in)).round(2)
    queries = TokenSequence(tuple(f"t{i}" for i in range(n)), tuple(map(tuple, rows)))
    return ExplorerState(queries, None, state.controls, state.view)


@pytest.fixture
def doc(new_document):
    return new_document(ExplorerState.from_preset(preset("cross")))


@pytest.fixture
def seen(doc):
    """The problems of the config read at each `changed`, as the window reads it."""
    problems: list[list[str]] = []
    doc.changed.connect(lambda: problems.append([p.message for p in doc.config().problems()]))
    return problems


def test_opening_a_session_of_another_width_is_seen_whole(doc, seen):
    doc.reset(plain_state(8))
    assert seen == [[]]
    doc.reset(ExplorerState.from_preset(preset("cross")))
    assert seen == [[], []]
    doc.reset(cross_state(8))
    assert seen == [[], [], []]


def test_loading_an_example_of_another_width_is_seen_whole(doc, seen):
    doc.reset(cross_state(8))
    doc.load_state(ExplorerState.from_preset(preset("cross")), "Load example")
    doc.undo_stack.undo()
    doc.undo_stack.redo()
    assert seen == [[]] * 4
    assert doc.queries.d_in == doc.kv.d_in == preset("cross").config.d_in


def test_adding_a_dimension_in_cross_mode_is_seen_whole(doc, seen):
    d_in = doc.queries.d_in
    assert doc.add_dimension(np.random.default_rng(0)) is None
    doc.undo_stack.undo()
    doc.undo_stack.redo()
    assert seen == [[]] * 3
    assert doc.queries.d_in == doc.kv.d_in == d_in + 1


def test_a_whole_change_is_one_recompute(doc, seen):
    """The parts of a compound change are not each a computation the engine would start."""
    doc.reset(cross_state(8))
    doc.load_state(cross_state(5, n_q=3, n_kv=7), "Open")
    assert len(seen) == 2


def test_the_window_sends_no_half_state_to_the_engine_or_the_banner(window, wait_settled, tmp_path):
    """File → Open, Examples, and Add dimension in cross mode, through the window: every
    config the engine is asked for can be computed, and no problem reaches the status bar."""
    from attn_explorer.io.session import save_session

    requested, banners = [], []
    request, status = window.bridge.request, window._status

    def spy_request(config, *args):
        requested.append(config.problems())
        return request(config, *args)

    def spy_status(text, error=False):
        if error:
            banners.append(text)
        return status(text, error)

    window.bridge.request, window._status = spy_request, spy_status
    window.load_preset("cross")
    wait_settled(window)
    session = tmp_path / "wide.json"
    save_session(session, plain_state(8))
    assert window.files.open_path(session)
    wait_settled(window)
    save_session(session, cross_state(8))
    assert window.files.open_path(session)
    window.load_preset("cross")
    wait_settled(window)
    assert window.doc.add_dimension(np.random.default_rng(0)) is None
    wait_settled(window)
    window.doc.undo_stack.undo()
    wait_settled(window)
    assert requested and all(problems == [] for problems in requested)
    assert banners == []
