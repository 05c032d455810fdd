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
