"""`python main.py --screenshot OUT.png`: the window saves itself once drawn and exits 0.

One test runs main.py as a process, as a user does, and sees how that process ends; the
others run the same command in this process (`run_main`), which imports nothing again."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QTimer
from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def english_afterwards():
    """The command speaks the language it chose (--lang, the saved one or the system's) from
    then on, as its process does; the next test starts in English again."""
    yield
    from attn_explorer.ui.i18n import use_language

    use_language("en")  # Qt's own words too: the command installed their translator


def run_process(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        cwd=ROOT,
    )


def run_main(capsys, *args: str, within: float = 60) -> subprocess.CompletedProcess:
    """`python main.py ARGS` in this process, on pytest-qt's application: its status (the
    code of a SystemExit, as the process would end with it), stdout and stderr.

    A window that never saves and closes itself would run the event loop for ever, as the
    process would until its timeout: after `within` seconds every event loop is ended and the
    status is None. A message box fails the test (tests/ui/conftest.py)."""
    from attn_explorer.cli.window import main

    # The command would make the application, too late for the watchdog's timer to start.
    assert QCoreApplication.instance() is not None, "the test needs the qapp fixture"
    late = []
    watchdog = QTimer()
    watchdog.setSingleShot(True)
    watchdog.timeout.connect(lambda: (late.append(True), QCoreApplication.exit(124)))
    watchdog.start(int(within * 1000))
    try:
        status = main(list(args))
    except SystemExit as stop:
        status = stop.code
    finally:
        watchdog.stop()
        # The window closed as the last one while the loop ran, which posts the application
        # a Quit that the command's own exit overtook: left queued, it would end the next
        # event loop at once (a later test's wait for a signal). A process ends instead.
        QCoreApplication.removePostedEvents(QCoreApplication.instance(), QEvent.Type.Quit)
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, None if late else status, out, err)


def test_a_screenshot_of_a_preset_has_its_size_and_prints_no_offscreen_notices(
    tmp_path, capsys, qapp
):
    """Qt's offscreen platform says it cannot raise a window or pass size hints on; a
    `--screenshot` on a machine with no display printed that as if something had failed.
    Other messages are still printed."""
    from PySide6.QtCore import qFormatLogMessage, qInstallMessageHandler, qWarning

    from attn_explorer.ui.app import quiet_offscreen_notices

    def as_qt_prints(mode, context, message):  # Qt's own handler, where pytest-qt has none
        print(qFormatLogMessage(mode, context, message), file=sys.stderr)

    out = tmp_path / "mha.png"
    previous = qInstallMessageHandler(as_qt_prints)
    try:
        done = run_main(capsys, "--screenshot", str(out), "--preset", "mha", "--size", "1280x800")
        assert done.returncode == 0, done.stderr
        assert "does not support" not in done.stderr
        quiet_offscreen_notices(QCoreApplication.instance())
        qWarning("This plugin does not support raise()")
        qWarning("a real warning")
    finally:
        qInstallMessageHandler(previous)
    assert capsys.readouterr().err.splitlines() == ["a real warning"]
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1280, 800)


@pytest.mark.parametrize("stage", ["softmax", "mask", "concat"])
def test_a_step_through_screenshot_exits_cleanly(tmp_path, stage):
    """The step-through's widgets once crashed the process as Python shut down (exit 139):
    only a process of its own shows how it ends. One process per test, so the three run on
    the test workers side by side."""
    out = tmp_path / f"{stage}.png"
    done = run_process("--screenshot", str(out), "--preset", "mha", "--stage", stage)
    assert done.returncode == 0, (stage, done.returncode, done.stderr[-500:])
    assert out.exists()


def test_screenshot_with_many_tokens_and_heads(tmp_path, capsys, qapp):
    out = tmp_path / "big.png"
    done = run_main(
        capsys,
        "--screenshot",
        str(out),
        "--tokens",
        "64",
        "--d-in",
        "16",
        "--set",
        "num_heads=4",
        "--set",
        "d_out=8",
        "--all-heads",
    )
    assert done.returncode == 0, done.stderr
    assert QImage(str(out)).width() == 1500


def test_bad_arguments_fail_in_one_line(tmp_path, capsys, qapp):
    done = run_main(capsys, "--screenshot", str(tmp_path / "x.png"), "--preset", "nope")
    assert done.returncode == 2
    assert "no preset 'nope'" in done.stderr
    assert "Traceback" not in done.stderr
    done = run_main(capsys, "--set", "heads=4")
    assert done.returncode == 2 and "unknown field 'heads'" in done.stderr


def test_impossible_config_gives_no_screenshot_and_says_why(tmp_path, capsys, qapp):
    """Values each in range but impossible together are the arguments' fault: status 2
    before the window opens (it was 1, the status of an unreadable session)."""
    out = tmp_path / "x.png"
    done = run_main(
        capsys,
        "--screenshot",
        str(out),
        "--set",
        "head_layout=split",
        "--set",
        "d_out=5",
        "--set",
        "num_heads=2",
    )
    assert done.returncode == 2
    assert done.stderr == (
        "attn-explorer: --set num_heads: '2' does not fit the other settings: d_out 5 cannot "
        "be split into 2 heads: with the split layout d_out must be a multiple of the number of "
        "heads; allowed here: 1 or 5 (the split layout needs d_out 5 divisible by them)\n"
    )
    assert not out.exists()
    done = run_main(capsys, "--screenshot", str(out), "--preset", "padding", "--tokens", "3")
    assert (done.returncode, done.stderr.split(";")[0]) == (
        2,
        "attn-explorer: --tokens 3: the session masks the keys after the valid length 4, "
        "more than 3 tokens",
    )
    assert not out.exists()


def test_a_config_the_engine_refuses_ends_at_once_with_its_reason(tmp_path, capsys, qapp):
    """It used to wait the whole two-minute timeout and say only 'no picture was computed'."""
    from dataclasses import replace

    from attn_explorer.io.session import save_session
    from attn_explorer.model.state import default_state

    state = default_state()
    rows = state.queries.embeddings
    huge = replace(state.queries, embeddings=tuple((3e38,) * len(r) for r in rows))
    session = tmp_path / "huge.json"
    save_session(session, replace(state, queries=huge))
    out = tmp_path / "x.png"
    done = run_main(capsys, str(session), "--screenshot", str(out))
    assert done.returncode == 1
    assert "overflowed float32" in done.stderr and "no picture was computed" not in done.stderr
    assert not out.exists()


def test_out_of_range_arguments_are_refused_not_clamped_by_the_controls(tmp_path, capsys, qapp):
    for args, words in [
        (
            ["--set", "temperature=nan"],
            "--set temperature: 'nan' is not a number; allowed: a number from 0.01 to 100, "
            "with at most 2 decimals",
        ),
        (["--set", "dropout=0.123"], "--set dropout: '0.123' has more than 2 decimals"),
        (["--set", "d_out=1000"], "--set d_out: '1000' is above 64"),
        (["--set", "projection=banana"], "'banana' is not among the choices; allowed: none,"),
        (["--tokens", "5", "--d-in", "0"], "--d-in must be between 1 and 1024"),
        (["--d-in", "5"], "--d-in goes with --tokens N"),
        (["--size", "100000x100000"], "--size must be between 200x200 and 8000x8000"),
    ]:
        done = run_main(capsys, "--screenshot", str(tmp_path / "x.png"), *args)
        assert done.returncode == 2, (args, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr


def test_a_screenshot_of_a_session_changed_by_set_exits_without_asking(tmp_path, capsys, qapp):
    """--set on a session counts as unsaved, and closing the screenshot window asked about it
    in a message box nobody could answer: the run never ended. (A message box fails this
    test, tests/ui/conftest.py; the watchdog of `run_main` ends any other wait.)"""
    from attn_explorer.io.session import save_session
    from attn_explorer.model.state import default_state

    session = tmp_path / "s.json"
    save_session(session, default_state())
    out = tmp_path / "s.png"
    done = run_main(capsys, str(session), "--set=seed=5", f"--screenshot={out}")
    assert done.returncode == 0, done.stderr
    assert out.exists()


def test_a_screenshot_that_cannot_be_saved_is_refused_before_the_window_opens(
    tmp_path, capsys, qapp
):
    """Qt's writer gave no reason: both ran the whole window, then said "could not write"."""
    done = run_main(capsys, "--screenshot", str(tmp_path / "gone" / "x.png"))
    assert done.returncode == 1
    assert done.stderr == (
        f"attn-explorer: Cannot write {tmp_path / 'gone' / 'x.png'}: "
        f"the folder {tmp_path / 'gone'} does not exist.\n"
    )
    done = run_main(capsys, "--screenshot", str(tmp_path / "notes.txt"))
    assert done.returncode == 2
    assert done.stderr.startswith(
        "attn-explorer: --screenshot: cannot tell the image type from 'notes.txt': "
        "name a .png file (or "
    )
    assert ".jpg" in done.stderr
    assert not list(tmp_path.iterdir())


def test_an_unreadable_session_exits_1_as_export_does(tmp_path, capsys, qapp):
    session = tmp_path / "cut.json"
    session.write_text("{", encoding="utf-8")
    done = run_main(capsys, str(session), "--screenshot", str(tmp_path / "x.png"))
    assert done.returncode == 1
    assert done.stderr.startswith("attn-explorer: cut.json is not valid JSON")


def test_a_screenshot_the_disk_cannot_hold_says_why_and_keeps_the_earlier_one(
    tmp_path, capsys, qapp, disk_full_after
):
    """Over a full disk the screenshot said only "could not write", and left half a picture
    where the earlier one had been."""
    out = tmp_path / "window.png"
    out.write_bytes(b"the earlier screenshot")
    with disk_full_after(4096):
        done = run_main(capsys, "--screenshot", str(out), "--preset", "mha")
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == f"attn-explorer: Cannot write {out}: file too large."
    assert out.read_bytes() == b"the earlier screenshot"
    assert [p.name for p in tmp_path.iterdir()] == ["window.png"]


def refused(capsys, *args: str) -> tuple[int, str]:
    """`attn-explorer ARGS` in this process, refused before a window opens: status, stderr."""

    from attn_explorer.cli.window import main

    with pytest.raises(SystemExit) as stop:
        main(list(args))
    return stop.value.code, capsys.readouterr().err


PRESET_NAMES = "simple, v1, v2, causal, dropout, causal-class, wrapper, mha, happy, cross, padding"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "-5x-5"], "--size must be between 200x200 and 8000x8000, not -5x-5"),
        (["--preset", ""], f"--preset: no value given; known presets: {PRESET_NAMES}"),
        (["  "], "session: no value given; name a saved session file (.json)"),
        (["--size", "0x0"], "--size must be between 200x200 and 8000x8000, not 0x0"),
    ],
)
def test_empty_values_and_negative_sizes_are_refused_saying_what_is_allowed(
    tmp_path, capsys, args, message
):
    """`--preset ''` opened the default example, and `--size -5x-5` said only "expected one
    argument"."""
    png = str(tmp_path / "x.png")
    assert refused(capsys, *args, "--screenshot", png) == (2, f"attn-explorer: {message}\n")
    assert list(tmp_path.iterdir()) == []


def test_an_empty_screenshot_name_is_refused(tmp_path, capsys, qapp):
    """`--screenshot ''` opened the window and never saved or closed it: the watchdog of
    `run_main` ends such a run, which then fails rather than hanging the tests."""
    done = run_main(capsys, "--screenshot", "")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "attn-explorer: --screenshot: no value given; name a .png file\n"


def test_random_tokens_on_a_cross_session_say_that_cross_attention_goes_off(tmp_path, capsys, qapp):
    """The window opened on self-attention under the cross example without a word."""
    out = tmp_path / "x.png"
    done = run_main(capsys, "--screenshot", str(out), "--preset", "cross", "--tokens", "3")
    assert done.returncode == 0, done.stderr
    assert done.stderr == (
        "attn-explorer: --tokens 3 replaces the key/value sequence too: cross-attention is off "
        "(--set cross=true keeps it on, keys and values the same random tokens)\n"
    )
