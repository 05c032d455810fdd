"""A restless user: bursts of changes and long random sessions end right and lose nothing.

The timed versions (1,000 changes in a second, 10,000 edits with memory measured) are in
`python -m benchmarks.bench --burst --soak 10000`; these check the outcomes.
"""

import random

import numpy as np
import pytest

from attn_explorer.engine import compute
from benchmarks.soak import soak_actions
from tests.ui.conftest import assert_shows, settled

pytestmark = [
    pytest.mark.qt_log_level_fail("WARNING"),
    pytest.mark.qt_log_ignore(r"This plugin does not support (raise|propagateSizeHints)"),
]


def test_a_burst_of_a_thousand_changes_ends_on_the_last_config(window, wait_settled, qtbot):
    c = window.controls
    before = window.bridge.computations
    rng = random.Random(1)
    for i in range(1000):
        match i % 4:
            case 0:
                c.seed.slider.setValue(rng.randrange(10_000))
            case 1:
                c.temperature.spin.setValue(rng.choice([0.5, 1.0, 2.0]))
            case 2:
                c.heads.spin.setValue(rng.randrange(1, 5))
            case 3:
                c.d_out.spin.setValue(rng.randrange(1, 9))
        if i % 50 == 0:
            qtbot.wait(1)
    wait_settled(window)
    assert window.bridge.computations - before < 200  # coalesced, not one per change
    assert window.trace.config == window.doc.config()
    assert_shows(window)


def wait_shown_or_explained(window, qtbot) -> None:
    qtbot.waitUntil(
        lambda: (
            settled(window)
            or bool(window.problems and not window.bridge.busy and window.status_text.text())
        )
    )


def edits(window) -> tuple:
    """What the user entered (where they look, the view, is not an edit)."""
    state = window.doc.state()
    return state.queries, state.kv, state.controls


@pytest.mark.parametrize("seed", [0, 1])
def test_a_long_random_session_loses_nothing(window, qtbot, seed):
    """400 random edits of every kind; then every step undoes back to the start and redoes."""
    start = edits(window)
    rng = random.Random(seed)
    actions = soak_actions(window, rng)
    for _ in range(400):
        rng.choice(actions)()
        qtbot.wait(0)
    wait_shown_or_explained(window, qtbot)
    end = edits(window)
    if window.problems:
        assert window.problems[0].message == window.status_text.text()
        assert window.trace.config.problems() == []  # the last good picture
    else:
        assert_shows(window)
    stack = window.doc.undo_stack
    assert stack.count() < stack.undoLimit()
    stack.setIndex(0)
    assert edits(window) == start
    stack.setIndex(stack.count())
    assert edits(window) == end
    wait_shown_or_explained(window, qtbot)
    if not window.problems:
        np.testing.assert_array_equal(window.trace.context, compute(window.doc.config()).context)
