"""A session saved with A pinned opens within a small screen: the controls' column is fitted to
the tabs' least width with the comparison's column beside the matrices, not before it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from attn_explorer.engine import preset
from attn_explorer.model.state import ExplorerState
from attn_explorer.ui.main_window import MainWindow
from attn_explorer.ui.text_size import text_size


@pytest.fixture
def pinned_cross():
    """Cross-attention with 4 heads, A pinned: as saved in the session that opened 1048 px
    wide on a 1024 × 768 screen at a 200 % text size."""
    b = ExplorerState.from_config(preset("cross").config)
    a = ExplorerState.from_config(replace(preset("cross").config, num_heads=2))
    return replace(b, pinned=a)


def test_a_pinned_session_opens_no_wider_than_the_screen(qtbot, normal_size, pinned_cross):
    text_size.set_factor(2.0)
    window = MainWindow(pinned_cross)
    qtbot.addWidget(window, before_close_func=lambda w: w.doc.undo_stack.setClean())
    layout = window.window_layout
    assert window.compare.column.isVisibleTo(window.board)
    fitted = layout._controls_scroll.minimumWidth()
    layout.fit_controls()  # what the column beside the matrices leaves to the controls
    assert layout._controls_scroll.minimumWidth() == fitted
    screen = window.screen().availableGeometry().width()
    assert window.minimumSizeHint().width() <= screen
    window.show()
    qtbot.waitExposed(window)
    assert window.width() <= screen


def test_pinning_refits_the_controls_to_the_narrower_room(window, qtbot, wait_settled):
    window.load_preset("cross")
    wait_settled(window)
    layout = window.window_layout
    before = layout._controls_scroll.minimumWidth()
    window.compare.pin()
    wait_settled(window)
    fitted = layout._controls_scroll.minimumWidth()
    layout.fit_controls()
    assert layout._controls_scroll.minimumWidth() == fitted <= before
    window.compare.unpin()
    wait_settled(window)
