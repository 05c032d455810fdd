"""The model view from the keyboard: a frame moved over the layer × head maps by the keys of a
table, its head summed up in the status line (in English and Vietnamese) and made ready as a
pointed head is, and Enter or Space opening it in the lab with the model's own numbers."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QApplication

from attn_explorer.ui.lens.grid_keys import moved
from tests.lens.conftest import TEXT

K = Qt.Key


def test_the_keys_move_the_frame_as_in_a_table_and_stop_at_its_edges():
    # 3 layers × 4 heads, from layer 2, head 3 (both from 0: (1, 2))
    at = (1, 2)
    assert moved(at, K.Key_Left, False, 3, 4) == (1, 1)
    assert moved(at, K.Key_Right, False, 3, 4) == (1, 3)
    assert moved(at, K.Key_Up, False, 3, 4) == (0, 2)
    assert moved(at, K.Key_Down, False, 3, 4) == (2, 2)
    assert moved(at, K.Key_Home, False, 3, 4) == (1, 0)
    assert moved(at, K.Key_End, False, 3, 4) == (1, 3)
    assert moved(at, K.Key_Home, True, 3, 4) == (0, 0)
    assert moved(at, K.Key_End, True, 3, 4) == (2, 3)
    assert moved(at, K.Key_PageUp, False, 3, 4) == (0, 2)
    assert moved(at, K.Key_PageDown, False, 3, 4) == (2, 2)
    assert moved((0, 0), K.Key_Left, False, 3, 4) == (0, 0)
    assert moved((0, 0), K.Key_Up, False, 3, 4) == (0, 0)
    assert moved((2, 3), K.Key_Right, False, 3, 4) == (2, 3)
    assert moved((2, 3), K.Key_Down, False, 3, 4) == (2, 3)
    assert moved(at, K.Key_Tab, False, 3, 4) is None
    assert moved(at, K.Key_A, False, 3, 4) is None


def _press(view, key, modifiers=Qt.KeyboardModifier.NoModifier):
    from PySide6.QtTest import QTest

    QTest.keyClick(view.plot, key, modifiers)


def _tab_into(view):
    """The grid takes the keyboard focus by Tab (offscreen, the window is not active: the
    event the widget would receive is sent to it)."""
    QApplication.sendEvent(
        view.plot, QFocusEvent(QEvent.Type.FocusIn, Qt.FocusReason.TabFocusReason)
    )


def _frame_on(view, layer, head):
    x, y = view.model_grid.origin(layer, head)
    rect = view.keys.frame.rect()
    return view.keys.frame.isVisible() and (rect.center().x(), rect.center().y()) == (
        x + view.model_grid.tile / 2,
        y + view.model_grid.tile / 2,
    )


def test_tab_shows_the_frame_and_the_keys_walk_it_over_the_heads(model_view):
    assert not model_view.keys.frame.isVisible()
    _tab_into(model_view)
    assert _frame_on(model_view, 0, 0)
    _press(model_view, K.Key_Down)
    _press(model_view, K.Key_Right)
    _press(model_view, K.Key_Right)
    assert model_view.keys.focus == (1, 2) and _frame_on(model_view, 1, 2)
    _press(model_view, K.Key_End)
    assert model_view.keys.focus == (1, 3)
    _press(model_view, K.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert model_view.keys.focus == (0, 0)
    _press(model_view, K.Key_End, Qt.KeyboardModifier.ControlModifier)
    assert model_view.keys.focus == (2, 3) and _frame_on(model_view, 2, 3)
    _press(model_view, K.Key_PageUp)
    assert model_view.keys.focus == (0, 3)
    QApplication.sendEvent(
        model_view.plot, QFocusEvent(QEvent.Type.FocusOut, Qt.FocusReason.TabFocusReason)
    )
    assert not model_view.keys.frame.isVisible()


def test_the_status_line_sums_up_the_framed_head_and_says_to_press_enter(model_view):
    s = model_view.model_run.summaries
    _tab_into(model_view)
    _press(model_view, K.Key_Down)
    _press(model_view, K.Key_Right)
    first, second = model_view.summary.text().split("\n")
    assert first == (
        f"Layer 2, head 2: entropy {s.entropy[1, 1]:.2f} bits, looks back "
        f"{s.look_back[1, 1]:.2f} tokens on average, weight on the previous token "
        f"{s.previous[1, 1]:.2f}, on the first {s.first[1, 1]:.2f}. "
        "Press Enter to open it in the lab."
    )
    assert second.startswith(f"Layer 2, mean over its heads: entropy {s.entropy[1].mean():.2f}")
    assert "arrow" in model_view.plot.toolTip() and "Ctrl+End" in model_view.plot.toolTip()


def test_the_framed_head_reads_in_vietnamese(model_view, vietnamese):
    s = model_view.model_run.summaries
    model_view.retranslate("vi")
    _tab_into(model_view)
    _press(model_view, K.Key_Right)
    _press(model_view, K.Key_Right)
    first = model_view.summary.text().split("\n")[0]
    assert first == (
        f"Tầng 1, đầu 3: entropy {s.entropy[0, 2]:.2f} bit, trung bình nhìn lùi "
        f"{s.look_back[0, 2]:.2f} token, trọng số attention trên token liền trước "
        f"{s.previous[0, 2]:.2f}, trên token đầu tiên {s.first[0, 2]:.2f}. "
        "Nhấn Enter để mở đầu này trong phòng thí nghiệm."
    )
    assert "," not in f"{s.entropy[0, 2]:.2f}"  # a decimal point, as in English
    tip = model_view.plot.toolTip()
    assert tip.startswith("Nhấp vào một đầu") and "phím mũi tên" in tip
    model_view.show_run((model_view.model_run, model_view.model_grid))
    assert "phím mũi tên" in model_view.summary.text()


def test_the_window_follows_the_language_chosen_in_the_lab(model_view, window):
    from attn_explorer.text import i18n

    try:
        i18n.set_language("vi")
        window.languageChanged.emit("vi")
        assert model_view.plot.toolTip().startswith("Nhấp vào một đầu")
        assert model_view.summary.text().startswith("Trỏ vào một đầu")
    finally:
        i18n.set_language("en")
        window.languageChanged.emit("en")
    assert model_view.plot.toolTip().startswith("Click a head")


def test_pseudo_translated_keyboard_words_are_all_marked(model_view, pseudo):
    model_view.retranslate("pseudo")
    _tab_into(model_view)
    _press(model_view, K.Key_Down)
    for text in (model_view.plot.toolTip(), *model_view.summary.text().split("\n")):
        assert text.startswith("⟪") and text.endswith("⟫"), text


@pytest.mark.parametrize("key", [K.Key_Return, K.Key_Space])
def test_a_head_reached_by_keys_is_made_ready_and_enter_opens_it_with_the_models_numbers(
    model_view, window, wait_settled, qtbot, key
):
    """The framed head, resting, is prepared as a pointed head is: its layer's rows and its
    trace computed ahead, equal to the model's own attention; Enter (or Space) then draws
    that very trace in the lab without computing it again."""
    from attn_explorer.engine import ready as computed
    from attn_explorer.lens.capture import forward

    computed.clear()
    model_view.head_prepared = None
    _tab_into(model_view)
    for press in (K.Key_Down, K.Key_Down, K.Key_Right):
        _press(model_view, press)
    assert model_view.keys.focus == (2, 1)
    cache = model_view.model_run.rows_cache
    qtbot.waitUntil(lambda: 2 in cache, timeout=2000)
    rows = cache[2].result(timeout=30)
    qtbot.waitUntil(lambda: bool(computed._ready), timeout=5000)
    (trace, compared, _seconds), *_ = computed._ready
    assert compared
    _, _, attentions = forward(model_view.loaded, TEXT)
    np.testing.assert_allclose(trace.weights[0], attentions[2][0, 1].numpy(), atol=1e-5)
    _press(model_view, key)
    wait_settled(window)
    assert model_view.opened == (2, 1)
    assert window.doc.config().embeddings is rows
    assert window.trace is trace and not computed._ready  # drawn without computing it again
    assert window.tabs.currentIndex() == 0
    np.testing.assert_allclose(window.trace.weights[0], attentions[2][0, 1].numpy(), atol=1e-5)


def test_a_held_arrow_prepares_only_the_head_it_stops_on(model_view, monkeypatch, qtbot):
    computed = []
    monkeypatch.setattr(
        "attn_explorer.ui.lens.model_window.prepare_head",
        lambda _run, layer, head: computed.append((layer, head)),
    )
    model_view.head_prepared = None
    _tab_into(model_view)
    for _ in range(3):
        _press(model_view, K.Key_Right)  # faster than the pointer's rest, as a held key
    qtbot.waitUntil(lambda: bool(computed), timeout=2000)
    qtbot.wait(150)
    assert computed == [(0, 3)]


def test_after_a_click_the_keys_go_on_from_the_head_opened(model_view, window, wait_settled):
    model_view.open_in_lab(1, 1)
    wait_settled(window)
    _press(model_view, K.Key_Right)
    assert model_view.keys.focus == (1, 2) and _frame_on(model_view, 1, 2)
