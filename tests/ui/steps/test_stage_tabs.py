"""The stages' names: coloured and given their formulas as tooltips, from the settings."""

from dataclasses import replace

from attn_explorer.engine import compute, preset
from attn_explorer.text.steps import step_text
from attn_explorer.ui.steps import stage_tabs
from attn_explorer.ui.steps.stage_tabs import STAGE_LABELS, StageTabs


def test_a_new_seed_leaves_the_names_as_they_are_and_new_settings_write_them_again(
    qapp, monkeypatch
):
    """Written again on every new trace, the names cost twenty step_text calls a change,
    also with the step-through's tab hidden; a seed changes none of their words."""
    written = []
    monkeypatch.setattr(
        stage_tabs, "step_text", lambda step: written.append(step.key) or step_text(step)
    )
    tabs = StageTabs([str(label) for label in STAGE_LABELS])
    config = preset("v1").config
    tabs.label(compute(config), None)
    assert len(written) == 10
    tabs.label(compute(replace(config, seed=config.seed + 1)), None)
    assert len(written) == 10
    causal = compute(replace(config, causal=True))
    tabs.label(causal, None)
    assert len(written) == 20
    mask = [step.key for step in causal.steps].index("mask")
    assert tabs.tabToolTip(mask) == (
        f"{step_text(causal.steps[mask]).title}: {step_text(causal.steps[mask]).formula}"
    )
    tabs.label(causal, "mask")  # marked as the first stage that differs from A
    assert len(written) == 30 and tabs.tabTextColor(mask).name() == "#c0392b"


def _tab_texts(tabs: StageTabs) -> list[str]:
    return [tabs.tabText(i) for i in range(tabs.count())]


def test_names_of_another_order_given_while_hidden_are_fitted_to_the_bar_shown(
    window, steps, qtbot, wait_settled
):
    """The happy example orders the stages otherwise: its names, given while the Matrices tab
    was shown, were written whole, and the bar, shown again, kept the texts fitted to the
    width they first asked for ("7 Dropout" where fitted at the bar's width it is "7 Drop…");
    the same window at the same width then wrote them as it had not before."""
    window.resize(1024, 768)
    qtbot.waitUntil(lambda: window.width() == 1024)
    tabs = steps.stages
    default_names = _tab_texts(tabs)
    window.tabs.setCurrentWidget(window.board)
    window.load_preset("happy")
    wait_settled(window)
    window.tabs.setCurrentWidget(steps)
    qtbot.waitUntil(steps.isVisible)
    qtbot.wait(50)
    shown = _tab_texts(tabs)
    assert shown != default_names  # (another order)
    tabs.fit()  # at the width shown
    assert _tab_texts(tabs) == shown
    assert sum(tabs.tabRect(i).width() for i in range(tabs.count())) <= tabs.width()
