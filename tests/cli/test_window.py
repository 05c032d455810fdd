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
