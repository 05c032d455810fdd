"""The window's command line (`attn-explorer [SESSION] ...`): arguments refused before a
window opens, each in one line, as `export` refuses them."""

import pytest


def refused(capsys, *args: str) -> tuple[int, str]:
    """`attn-explorer ARGS` in this process, refused before a window opens: status, stderr."""
    from attn_explorer.cli.window import main

    with pytest.raises(SystemExit) as stop:
        main(list(args))
    return stop.value.code, capsys.readouterr().err


@pytest.mark.parametrize(
    "args",
    [["--tokens", "abc"], ["--stage", "nope"], ["--bogus"], ["--preset"], ["a.json", "b.json"]],
)
def test_an_argument_argparse_refuses_is_one_line_without_the_usage_block(capsys, args):
    """`attn-explorer --tokens abc` printed argparse's four-line usage block before the
    error; `attn-explorer export` says the same error in one line."""
    status, err = refused(capsys, *args)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("attn-explorer: "), err
    assert "usage:" not in err


HUGE = "9" * 5000  # int() refuses a number of more than 4,300 digits


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--set", f"seed={HUGE}"], "--set seed: '99999"),
        (["--set", f"seed={HUGE}", "--screenshot", "x.png"], "is above 9999; allowed: a whole"),
        (["--set", f"dropout_seed=-{HUGE}"], "is below 0; allowed: a whole number from 0 to"),
        (["--set", f"valid_len={HUGE}"], "is above 4096; allowed: a whole number from 1 to 4096"),
        (["--set", f"num_heads={HUGE}"], "allowed: a whole number from 1 to 16"),
        (["--set", f"d_out=0{HUGE}"], "allowed: a whole number from 1 to 64"),
        (["--set", f"temperature={HUGE}"], "allowed: a number from 0.01 to 100"),
        (["--tokens", HUGE], "--tokens must be between 1 and 4096, not 99999"),
        (["--tokens", "3", "--d-in", f"-{HUGE}"], "--d-in must be between 1 and 1024, not -9"),
        (["--size", f"{HUGE}x500"], "--size must be between 200x200 and 8000x8000, not 9"),
        (["--size", f"500x{HUGE}"], "--size must be between 200x200 and 8000x8000, not 5"),
    ],
)
def test_a_number_of_thousands_of_digits_is_refused_naming_the_field_and_its_range(
    tmp_path, monkeypatch, capsys, args, words
):
    """`--set seed=999…9` (5,000 digits) ended in "internal error: ValueError: Exceeds the
    limit (4300 digits)"; with --screenshot it said "--size must look like 1500x940, not
    None". The value is shown shortened: the line stays one a terminal can show."""
    monkeypatch.chdir(tmp_path)
    status, err = refused(capsys, *args)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("attn-explorer: "), err[:300]
    assert words in err and len(err) < 250, err[:300]
    assert " characters)" in err  # how long the value was
    assert list(tmp_path.iterdir()) == []


def test_the_garbage_collector_held_through_the_start_is_on_again_after_the_first_paint(
    qtbot, capsys
):
    """`main` holds Python's collector off while the window starts; the window's first
    paint gives it back, and so does a refused start."""
    import gc

    from PySide6.QtWidgets import QWidget

    from attn_explorer.cli.window import _collect_after_first_paint

    widget = QWidget()
    qtbot.addWidget(widget)
    gc.disable()
    try:
        _collect_after_first_paint(widget)
        assert not gc.isenabled()
        widget.show()
        qtbot.waitUntil(gc.isenabled, timeout=900)  # before the fallback's second
    finally:
        gc.enable()
    gc.disable()
    try:
        refused(capsys, "--bogus")
        assert gc.isenabled()
    finally:
        gc.enable()
