"""The settings' declaration drives every place a setting is checked or shown: the `Controls`
defaults, the session loader, `--set` and the control panel read it, and nothing else."""

import pytest

from attn_explorer.cli.arguments import SWITCHED_BY, UsageError, parse_value
from attn_explorer.engine.config import ABLATE_MODES, HEAD_LAYOUTS, MASK_METHODS, PROJECTIONS
from attn_explorer.io.session import SessionError, document_to_state, state_to_document
from attn_explorer.model.settings import MAX_HEAD, SETTINGS, Setting
from attn_explorer.model.state import Controls, default_state

NUMBERS = [s for s in SETTINGS.values() if s.kind in (int, float)]
CHOICES = [s for s in SETTINGS.values() if s.choices]
SWITCHES = [s for s in SETTINGS.values() if s.kind is bool]


def _step(setting: Setting) -> float:
    """The smallest step the setting's control takes: 1, or one unit of its last decimal."""
    return 1 if setting.kind is int else 10.0**-setting.decimals


def _load_with(name: str, value: object):
    doc = state_to_document(default_state())
    doc["controls"][name] = value
    return document_to_state(doc, name="s.json")


# ---------------------------------------------------------------------------- the declaration


def test_the_declaration_is_whole():
    """Every number has a range (ints for a whole number, decimals for a decimal one), every
    text setting its choices, every default is allowed, and every switch and dependency
    names a setting."""
    for s in SETTINGS.values():
        assert s.kind in (bool, int, float, str, tuple), s.name
        if s.kind is tuple:  # a set of whole numbers, each in the range
            assert type(s.low) is int and type(s.high) is int and s.decimals is None, s.name
            assert all(s.low <= item <= s.high for item in s.default), s.name
        elif s.kind in (int, float):
            low, high = s.range
            assert low <= s.default <= high, s.name
            assert (s.decimals is not None) == (s.kind is float), s.name
            if s.kind is int:
                assert type(low) is int and type(high) is int, s.name
        else:
            assert s.low is None and s.high is None and s.decimals is None, s.name
        assert bool(s.choices) == (s.kind is str), s.name
        if s.choices:
            assert s.default in s.choices, s.name
        if s.switch is not None:
            assert SETTINGS[s.switch].kind is bool, s.name
        assert all(other in SETTINGS or other == "tokens" for other in s.agrees_with), s.name


def test_the_engine_choices_are_the_settings_choices():
    assert SETTINGS["projection"].choices == PROJECTIONS
    assert SETTINGS["head_layout"].choices == HEAD_LAYOUTS
    assert SETTINGS["mask_method"].choices == MASK_METHODS
    assert SETTINGS["ablate_mode"].choices == ABLATE_MODES
    assert SETTINGS["ablate"].range == (1, SETTINGS["num_heads"].range[1])


def test_controls_are_the_declared_settings_with_their_defaults():
    assert Controls.names() == tuple(SETTINGS)
    defaults = Controls()
    for name, setting in SETTINGS.items():
        value = getattr(defaults, name)
        assert value == setting.default and type(value) is setting.kind, name


def test_a_number_setting_has_a_range_and_a_switch_setting_none():
    with pytest.raises(TypeError, match="projection is not a number setting"):
        SETTINGS["projection"].range


# ---------------------------------------------------------------------------- the session loader


@pytest.mark.parametrize("setting", NUMBERS, ids=lambda s: s.name)
def test_the_loader_takes_exactly_the_declared_range(setting):
    low, high = setting.range
    assert getattr(_load_with(setting.name, low).controls, setting.name) == low
    assert getattr(_load_with(setting.name, high).controls, setting.name) == high
    step = _step(setting)
    for beyond in (low - step, high + step):
        beyond = round(beyond, setting.decimals) if setting.decimals else beyond
        message = (
            f"s.json is not a valid session: controls.{setting.name} is {beyond!r}, "
            f"outside {low:g} to {high:g}."
        )
        with pytest.raises(SessionError) as refused:
            _load_with(setting.name, beyond)
        assert str(refused.value) == message


@pytest.mark.parametrize("setting", [s for s in NUMBERS if s.kind is float], ids=lambda s: s.name)
def test_the_loader_reads_a_decimal_at_its_declared_decimals(setting):
    low, _ = setting.range
    more = low + 10.0 ** -(setting.decimals + 1)  # a digit the control cannot show
    assert getattr(_load_with(setting.name, more).controls, setting.name) == low


@pytest.mark.parametrize("setting", CHOICES, ids=lambda s: s.name)
def test_the_loader_takes_exactly_the_declared_choices(setting):
    for choice in setting.choices:
        assert getattr(_load_with(setting.name, choice).controls, setting.name) == choice
    listed = ", ".join(f'"{c}"' for c in setting.choices[:-1]) + f' or "{setting.choices[-1]}"'
    with pytest.raises(SessionError) as refused:
        _load_with(setting.name, "other")
    assert str(refused.value) == (
        f's.json is not a valid session: controls.{setting.name} is the text "other"; '
        f"choose {listed}."
    )


def test_the_loader_takes_the_heads_the_heads_setting_allows():
    doc = state_to_document(default_state())
    doc["view"]["head"] = MAX_HEAD
    assert document_to_state(doc).view.head == SETTINGS["num_heads"].range[1] - 1
    doc["view"]["head"] = MAX_HEAD + 1
    with pytest.raises(SessionError, match=f"view.head is {MAX_HEAD + 1}, outside 0 to"):
        document_to_state(doc)


# ---------------------------------------------------------------------------- --set


@pytest.mark.parametrize("setting", NUMBERS, ids=lambda s: s.name)
def test_set_takes_exactly_the_declared_range(setting):
    low, high = setting.range
    assert parse_value(setting.name, f"{low:g}") == low
    assert parse_value(setting.name, f"{high:g}") == high
    step = _step(setting)
    for beyond, side, edge in ((low - step, "below", low), (high + step, "above", high)):
        text = f"{beyond:.{setting.decimals or 0}f}"
        with pytest.raises(UsageError, match=f"is {side} {edge:g}; allowed: "):
            parse_value(setting.name, text)
    if setting.kind is float:
        more = f"{low:.{setting.decimals + 1}f}"[:-1] + "1"
        with pytest.raises(UsageError, match=f"has more than {setting.decimals} decimals"):
            parse_value(setting.name, more)


@pytest.mark.parametrize("setting", CHOICES, ids=lambda s: s.name)
def test_set_takes_exactly_the_declared_choices(setting):
    for choice in setting.choices:
        assert parse_value(setting.name, choice) == choice
    listed = ", ".join(setting.choices[:-1]) + f" or {setting.choices[-1]}"
    with pytest.raises(UsageError) as refused:
        parse_value(setting.name, "other")
    assert str(refused.value) == (
        f"--set {setting.name}: 'other' is not among the choices; allowed: {listed}"
    )


@pytest.mark.parametrize("setting", SWITCHES, ids=lambda s: s.name)
def test_set_takes_a_switch_as_true_or_false(setting):
    assert parse_value(setting.name, "yes") is True
    assert parse_value(setting.name, "off") is False


def test_set_turns_on_the_declared_switches():
    assert SWITCHED_BY == {"valid_len": "padding", "dropout_seed": "reseed_dropout"}
    assert {s.name: s.switch for s in SETTINGS.values() if s.switch} == SWITCHED_BY


def test_set_refuses_a_field_the_declaration_lacks():
    with pytest.raises(UsageError, match="unknown field 'heads'; known: projection, d_out"):
        parse_value("heads", "2")


# ---------------------------------------------------------------------------- the controls


def test_the_controls_hold_the_declared_ranges_decimals_and_choices(qtbot, new_document):
    from attn_explorer.ui.editing.controls import ControlsPanel

    panel = ControlsPanel(new_document())
    qtbot.addWidget(panel)
    spins = {
        "seed": panel.seed.spin,
        "d_out": panel.d_out.spin,
        "num_heads": panel.heads.spin,
        "temperature": panel.temperature.spin,
        "dropout": panel.dropout.spin,
        "valid_len": panel.valid_len,
        "dropout_seed": panel.dropout_seed,
    }
    assert set(spins) == {s.name for s in NUMBERS}
    for name, spin in spins.items():
        setting = SETTINGS[name]
        assert (spin.minimum(), spin.maximum()) == setting.range, name
        assert (spin.decimals() if setting.kind is float else None) == setting.decimals, name
    boxes = {
        "projection": panel.projection,
        "head_layout": panel.layout_box,
        "mask_method": panel.mask_method,
    }
    from attn_explorer.ui.compare.heads_panel import HeadsPanel

    heads = HeadsPanel(panel.doc)  # how a head is switched off is chosen beside the heads
    qtbot.addWidget(heads)
    boxes["ablate_mode"] = heads.mode
    assert set(boxes) == {s.name for s in CHOICES}
    for name, box in boxes.items():
        shown = tuple(box.itemData(i) for i in range(box.count()))
        assert shown == SETTINGS[name].choices, name


def test_set_blames_a_setting_and_what_the_declaration_says_it_agrees_with():
    """An engine problem with a setting is blamed on the --set that could cause it: the
    setting, its switch, and what it must agree with (the number of tokens is --tokens)."""
    from attn_explorer.cli.arguments import _CAUSES

    assert _CAUSES["valid_len"] == ("valid_len", "padding", "cross", "--tokens")
    assert _CAUSES["num_heads"] == ("num_heads", "d_out", "head_layout", "projection", "--tokens")
    assert _CAUSES["causal"] == ("causal", "cross")


def test_the_set_help_names_the_declared_switches():
    import argparse

    from attn_explorer.cli.arguments import add_state_arguments

    parser = argparse.ArgumentParser()
    add_state_arguments(parser)
    (action,) = [a for a in parser._actions if a.dest == "set"]
    assert action.help.endswith(
        "; valid_len turns padding on and dropout_seed turns reseed_dropout on, unless also set"
    )
