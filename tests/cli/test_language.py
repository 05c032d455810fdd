"""The command lines speak the language of `--lang` (else the window's choice, or the system's):
the help, argparse's own words, every refusal. Run in this process: `--help` and a refusal end
in SystemExit or a status before any window opens."""

import argparse
import ast
import gettext
import inspect
import json
import re

import pytest

from attn_explorer.cli import export, window
from attn_explorer.cli.arguments import UsageError
from attn_explorer.cli.parser import ARGPARSE_WORDS
from attn_explorer.engine import PRESETS, STEP_KEYS
from attn_explorer.model.state import Controls
from attn_explorer.text import i18n
from tests.cli.conftest import export_here


def window_says(capsys, *args: str) -> tuple[int, str, str]:
    """`attn-explorer ARGS` in this process, ended before a window opens: status, out, err."""
    with pytest.raises(SystemExit) as stop:
        window.main(list(args))
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def export_says(capsys, *args) -> tuple[int, str, str]:
    """`attn-explorer export ARGS` in this process, argparse's refusals too: status, out, err."""
    try:
        return export_here(capsys, *args)
    except SystemExit as stop:
        out, err = capsys.readouterr()
        return stop.code, out, err


def export_help(capsys, *args: str) -> str:
    with pytest.raises(SystemExit) as stop:
        export.main([*args, "--help"])
    assert stop.value.code == 0
    return capsys.readouterr().out


def test_the_window_help_is_vietnamese_with_lang_vi(capsys):
    status, out, _err = window_says(capsys, "--lang", "vi", "--help")
    assert status == 0
    assert out.startswith("Cách dùng: attn-explorer [-h] [--preset TÊN]")
    assert "\ntham số vị trí:\n  phiên " in out
    assert "\ntùy chọn:\n  -h, --help            hiện trợ giúp này rồi thoát\n" in out
    assert "một phiên làm việc đã lưu (.json) để mở" in out
    assert "--set TRƯỜNG=GIÁ_TRỊ  đặt giá trị một điều khiển, ví dụ --set num_heads=4" in out
    for english in ("usage:", "options:", "positional arguments", "show this help", "window"):
        assert english not in out


def test_the_export_help_is_vietnamese_with_lang_vi_and_english_without(capsys):
    out = export_help(capsys, "--lang", "vi")
    assert out.startswith("Cách dùng: attn-explorer export [-h]")
    assert "Xuất hình, dữ liệu hoặc một script PyTorch mà không mở cửa sổ." in out
    assert "-o ĐẦU_RA, --output ĐẦU_RA" in out
    assert "usage:" not in out and "options:" not in out
    out = export_help(capsys)
    assert out.startswith("usage: attn-explorer export [-h]")
    assert "\noptions:\n  -h, --help            show this help message and exit\n" in out
    assert "--lang {en,vi}" in out


def test_lang_is_read_before_help_wherever_it_is_and_abbreviated_as_argparse_takes_it(capsys):
    """`--help` is acted on as argparse meets it: --lang after it, or "--la vi", must still
    have chosen the language by then."""
    assert export_help(capsys, "--la", "vi").startswith("Cách dùng:")
    status, out, _err = window_says(capsys, "--help", "--lang=vi")
    assert status == 0 and out.startswith("Cách dùng:")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["--stage", "nope"],
            "attn-explorer: tham số --stage: lựa chọn không hợp lệ: 'nope' (chọn một trong "
            "'embeddings', ",
        ),
        (["--bogus"], "attn-explorer: không nhận ra các tham số: --bogus\n"),
        (
            ["--set", "temperature=1,5"],
            "attn-explorer: --set temperature: '1,5' không phải là một số (số thập phân dùng "
            "dấu chấm: 1.5); được phép: một số từ 0.01 đến 100, với tối đa 2 chữ số thập phân\n",
        ),
        (
            ["--tokens", "3", "--d-in", "0"],
            "attn-explorer: --d-in phải nằm trong khoảng từ 1 đến 1024, không phải 0\n",
        ),
        (
            ["--size", "100x100"],
            "attn-explorer: --size phải nằm trong khoảng từ 200x200 đến 8000x8000, không phải "
            "100x100\n",
        ),
    ],
)
def test_the_window_refuses_in_vietnamese_with_lang_vi(capsys, args, said):
    status, _out, err = window_says(capsys, "--lang", "vi", *args)
    assert status == 2
    assert err.startswith(said) and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--preset", "v1"], "thiếu các tham số bắt buộc: -o/--output"),
        (
            ["--preset", "v1", "--view", "weights", "--all-steps", "-o", "x.png"],
            "tham số --all-steps: không được dùng cùng tham số --view",
        ),
        (["-o", "x.png"], "hãy chỉ định một tệp phiên làm việc, --preset TÊN hoặc --tokens N"),
        (
            ["--preset", "mha", "--head", "3", "--view", "weights", "-o", "x.png"],
            "--head phải là số thứ tự của một đầu, từ 1 đến 2, hoặc 'all', không phải 3",
        ),
        (
            ["--preset", "v1", "--view", "weights", "-o", "w.csv"],
            "--view chỉ áp dụng cho hình (png, svg, pdf); csv chứa mọi mảng",
        ),
        (
            ["--preset", "v1", "-o", "missing/x.json"],
            "Không thể ghi missing/x.json: thư mục missing không tồn tại.",
        ),
    ],
)
def test_the_export_refuses_in_vietnamese_with_lang_vi(tmp_path, monkeypatch, capsys, args, said):
    monkeypatch.chdir(tmp_path)
    status, out, err = export_says(capsys, "--lang", "vi", *args)
    assert status in (1, 2) and out == ""
    assert err == f"attn-explorer export: {said}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["window", "export"])
def test_a_language_we_have_no_words_for_is_refused_naming_the_choices(
    tmp_path, monkeypatch, capsys, command
):
    monkeypatch.chdir(tmp_path)
    prog = "attn-explorer" if command == "window" else "attn-explorer export"
    if command == "window":
        status, out, err = window_says(capsys, "--lang", "xx", "--preset", "v1")
    else:
        status, out, err = export_here(capsys, "--lang", "xx", "--preset", "v1", "-o", "v1.py")
    assert status == 2 and out == ""
    assert err == f"{prog}: --lang must be one of en (English), vi (Tiếng Việt), not 'xx'\n"
    assert list(tmp_path.iterdir()) == []


def test_without_lang_the_export_speaks_the_systems_language(monkeypatch, capsys):
    monkeypatch.setenv("LANG", "vi_VN.UTF-8")
    status, _out, err = export_here(capsys, "--preset", "v1", "--scale", "3", "-o", "x.png")
    assert (status, err) == (2, "attn-explorer export: --scale phải là 1, 2 hoặc 4, không phải 3\n")
    status, _out, err = export_here(capsys, "--lang", "en", "--preset", "v1", "-o", "x.gif")
    assert status == 2 and "cannot tell the format from 'x.gif'" in err
    monkeypatch.setenv("LANG", "C.UTF-8")
    assert export_help(capsys).startswith("usage:")


def test_an_exported_script_and_data_speak_the_language_of_lang(tmp_path, capsys):
    args = ["--lang", "vi", "--preset", "v1", "--format", "py", "-o", tmp_path / "v1"]
    status, out, err = export_here(capsys, *args)
    assert status == 0, err
    assert out == f"{tmp_path / 'v1.py'}\n"
    script = (tmp_path / "v1.py").read_text(encoding="utf-8")
    assert "Tái hiện:\n  - 6 token query, d_in 3\n" in script
    assert 'show(f"trọng số attention, đầu {h + 1}", weights[h], rows)' in script
    status, out, err = export_here(capsys, "--preset", "v1", "-o", tmp_path / "v1.json")
    assert status == 0, err
    assert json.loads((tmp_path / "v1.json").read_text(encoding="utf-8"))["config"]["seed"] == 123


def test_lang_before_the_export_command_is_the_exports(tmp_path, capsys):
    """`attn-explorer --lang vi export ...` reads as `attn-explorer export --lang vi ...`."""
    status = window.main(["--lang", "vi", "export", "--preset", "v1", "-o", str(tmp_path / "a.py")])
    assert status == 0
    assert "Tái hiện:" in (tmp_path / "a.py").read_text(encoding="utf-8")
    capsys.readouterr()


def test_the_window_opens_in_the_language_of_lang(monkeypatch, capsys):
    """--lang reaches create_app; without it, create_app is left to the saved choice."""
    import attn_explorer.ui.app

    asked = []

    class StopError(Exception):
        pass

    def create_app(argv=None, language=None, plots=True):
        asked.append(language)
        raise StopError

    monkeypatch.setattr(attn_explorer.ui.app, "create_app", create_app)
    for args in (["--lang", "vi"], []):
        with pytest.raises(StopError):
            window.main([*args, "--preset", "v1"])
    assert asked == ["vi", None]


def test_without_lang_the_window_speaks_the_language_chosen_in_it_last_time(capsys):
    from PySide6.QtCore import QSettings

    from attn_explorer.ui.i18n import SETTING

    window.window_language()  # names the settings, as create_app does
    QSettings().setValue(SETTING, "vi")
    try:
        status, out, _err = window_says(capsys, "--help")
        assert status == 0 and out.startswith("Cách dùng: attn-explorer")
        status, out, _err = window_says(capsys, "--lang", "en", "--help")
        assert status == 0 and out.startswith("usage: attn-explorer")
    finally:
        QSettings().remove(SETTING)


def test_argparse_is_itself_again_once_our_parser_is_done(capsys):
    """Our words are argparse's only while our parser runs: another parser in the process
    (pytest's own) still looks its words up through gettext."""
    export_help(capsys, "--lang", "vi")
    assert argparse._ is gettext.gettext and argparse.ngettext is gettext.ngettext
    assert argparse.ArgumentParser(prog="p").format_usage() == "usage: p [-h]\n"


def test_argparse_says_every_word_we_translate():
    """The words are argparse's msgids on this Python: one it renamed would go untranslated."""
    said = {
        node.args[0].value
        for node in ast.walk(ast.parse(inspect.getsource(argparse)))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "_"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }
    assert set(ARGPARSE_WORDS) <= said, set(ARGPARSE_WORDS) - said
    for words in ARGPARSE_WORDS:
        i18n.set_language("vi")
        assert i18n._(words) != words


# ---------------------------------------------------------------------------- pseudo-translation

# What may stay English in the help and the messages: the program, its options' values that are
# code (presets, stages, fields, formats, languages), and symbols.
CODE = {
    "attn",
    "explorer",
    "export",
    "WxH",
    "en",
    "vi",
    *PRESETS,
    *STEP_KEYS,
    *Controls.names(),
    *export.FORMATS,
    "cpu",  # the devices a model runs on (--device), as torch names them
    "cuda",
    "mps",
}


def english_left(text: str) -> list[str]:
    """The words of `text` outside ⟪…⟫ that are neither an option nor code."""
    while True:
        shorter = re.sub(r"⟪[^⟪⟫]*⟫", " ", text, flags=re.S)
        if shorter == text:
            break
        text = shorter
    text = re.sub(r"(?<![\w-])--?[a-z][\w-]*", " ", text)  # option names
    words = re.findall(r"[A-Za-z][A-Za-z_]+", text)
    return [word for word in words if word not in CODE]


def test_a_pseudo_translated_help_has_no_english_outside_the_marks(pseudo):
    for parser in (window.parser(), export._parser()):
        text = parser.format_help()
        assert "⟪usage: ⟫" in text and "⟪options⟫:" in text
        assert english_left(text) == [], text


@pytest.mark.parametrize(
    "args",
    [
        ["-o", "x.png"],
        ["--preset", "v1", "--set", "temperature=1,5", "-o", "x.png"],
        ["--preset", "v1", "--set", "seed=" + "9" * 50, "-o", "x.png"],
        ["--preset", "v1", "--set", "nope=1", "-o", "x.png"],
        ["--preset", "v1", "--set", "causal", "-o", "x.png"],
        ["--preset", "v1", "--size", "big", "-o", "x.png"],
        ["--preset", "v1", "--scale", "3", "-o", "x.png"],
        ["--preset", "v1", "--head", "two", "-o", "x.png"],
        ["--preset", "v1", "--query", "9", "-o", "x.png"],
        ["--preset", "v1", "--view", "weights", "--query", "1", "-o", "x.json"],
        ["--preset", "v1", "--format", "svg", "-o", "x.png"],
        ["--preset", "v1", "-o", "x.gif"],
        ["--preset", "v1", "--d-in", "2", "-o", "x.png"],
        ["--preset", "padding", "--tokens", "2", "-o", "x.png"],
        ["--preset", "v1", "--stage", "nope", "-o", "x.png"],
        ["--preset", "v1", "--all-steps", "--view", "weights", "-o", "x.png"],
        ["--preset", "v1", "--bogus", "-o", "x.png"],
        ["--preset", "v1"],
    ],
)
def test_a_pseudo_translated_refusal_has_no_english_outside_the_marks(pseudo, capsys, args):
    try:
        export.run(args)
    except UsageError as error:
        said = str(error)
    except SystemExit:
        said = capsys.readouterr().err.removeprefix("attn-explorer export: ")
    else:
        pytest.fail("not refused")
    assert said.startswith("⟪") or said.startswith("--"), said
    assert english_left(said) == [], said
