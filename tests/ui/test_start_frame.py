"""A plain start shows the main window with the picture of the whole window saved at an earlier
start before numpy, the engine and the window's pieces are imported, and the window, once
built, paints the same pixels in its place."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attn_explorer.ui import start_frame, window_parts

# Runs `attn-explorer --report-startup` with the report replaced: phase "page" keeps a picture
# of the matrices' page under its key (as a start does once the engine has computed it);
# phase "window" waits for the whole window's picture that start keeps; phase "frame" says
# what was imported when the picture of the whole window was painted, and compares it with
# the window's own first paint. The command line is the second argument (JSON); without
# --report-startup the report is called in the turn after the window is shown.
START = """
import json, os, sys
from PySide6.QtCore import QEvent, QObject, QSettings, QTimer
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication
from attn_explorer.ui import start_frame, startup_report

phase = sys.argv[1]
argv = json.loads(sys.argv[2])
seen = {}
_show = start_frame.show

def show(window, frame):
    _show(window, frame)
    seen["numpy"] = "numpy" in sys.modules
    seen["engine"] = "attn_explorer.engine" in sys.modules
    seen["built"] = hasattr(window, "doc")
    seen["frame"] = frame.image.convertToFormat(QImage.Format.Format_RGB32)
    seen["painted"] = Painted(window)
    seen["frame_geometry"] = frame.geometry

start_frame.show = show

def wait(app, until):
    while not until():
        app.processEvents()

class Painted(QObject):
    # The window's own first paint, and its pixels once that paint's pass is over.

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.done = False
        window.installEventFilter(self)

    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint and "views_at_paint" not in seen:
            seen["views_at_paint"] = watched.views_built
            seen["picture_at_paint"] = watched.start_picture.showing
            QTimer.singleShot(0, self.grab)
        return False

    def grab(self):
        seen["views_after_paint"] = self.window.views_built
        seen["window"] = self.window.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
        self.done = True

def report(app, window):
    from attn_explorer.ui import start_picture
    out = {}
    if phase == "page":
        wait(app, lambda: window.isVisible())
        page = window.tabs.currentWidget()
        key = start_picture.picture_key(
            start_picture.settings_key(window), page.size(), page.devicePixelRatioF())
        image = QImage(page.size() * page.devicePixelRatioF(), QImage.Format.Format_RGB32)
        image.fill(QColor("#3366aa"))
        out["saved"] = start_picture.save(key, image) is not None
        if os.environ.get("FRAME_REMEMBER"):  # as a window closed by the user keeps its place
            window.window_layout.remember_place()
            QSettings().sync()
    elif phase == "window":
        wait(app, lambda: any(start_frame.folder().glob("*" + start_frame.SUFFIX)))
        out["kept"] = True
        out["focus"] = type(QApplication.focusWidget()).__name__
    else:
        wait(app, lambda: seen["painted"].done)
        out["numpy"], out["engine"], out["built"] = seen["numpy"], seen["engine"], seen["built"]
        out["views_at_paint"] = seen["views_at_paint"]
        out["picture_at_paint"] = seen["picture_at_paint"]
        out["views_after_paint"] = seen["views_after_paint"]
        out["same"] = seen["window"] == seen["frame"]
        out["focus"] = type(QApplication.focusWidget()).__name__
        out["maximized"] = window.isMaximized()
        out["where"] = window.geometry().getRect() == seen["frame_geometry"]
        if os.environ.get("FRAME_DEBUG"):
            seen["frame"].save(os.environ["FRAME_DEBUG"] + "/frame.png")
            seen["window"].save(os.environ["FRAME_DEBUG"] + "/window.png")
    print(json.dumps(out))
    sys.stdout.flush()
    os._exit(0)

startup_report.report_startup = report
if "--report-startup" not in argv:
    class Later(QObject):
        # The report in the turn after the window's first paint (its place and size final).
        def eventFilter(self, watched, event):
            if event.type() == QEvent.Type.Paint:
                watched.removeEventFilter(self)
                QTimer.singleShot(0, lambda: report(QApplication.instance(), watched))
            return False

    def later(name):
        step = getattr(start_frame, name)
        def call(window, *more):
            step(window, *more)
            window.installEventFilter(Later(window))
        setattr(start_frame, name, call)
    later("uncover")
    later("keep_when_painted")
from attn_explorer.cli.window import main
main(argv)
"""


def start(phase: str, home: Path, argv: tuple[str, ...] = ("--report-startup",)) -> dict:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "ATTN_EXPLORER_TRACE_CACHE": "on",
    }
    done = subprocess.run(
        [sys.executable, "-c", START, phase, json.dumps(argv)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def shown_from_its_picture(focus: str, maximized: bool) -> dict:
    """What the "frame" phase reports when the window was painted from its picture first:
    nothing of numpy, the engine or the window's pieces imported or built by then, and the
    window's own first paint the same pixels, focus and place."""
    return {
        "numpy": False,
        "engine": False,
        "built": False,
        "views_at_paint": False,
        "picture_at_paint": True,
        "views_after_paint": False,
        "same": True,
        "focus": focus,  # the keyboard where a start without the picture puts it
        "maximized": maximized,
        "where": True,  # where the window stood when its picture was kept
    }


def test_a_plain_start_shows_the_whole_window_first_and_then_the_same_pixels(tmp_path):
    """Up to the window's first paint a start spent 1,480 M instructions, 290 M of them
    numpy and the engine and 370 M the window's modules: with a picture of the whole window
    kept, the window is painted before any of them is imported, and its own first paint
    afterwards equals the picture, pixel for pixel (a learner sees nothing change)."""
    assert start("page", tmp_path) == {"saved": True}
    kept = start("window", tmp_path)
    assert kept["kept"]
    assert start("frame", tmp_path) == shown_from_its_picture(kept["focus"], maximized=False)


@pytest.mark.parametrize("remembered", [False, True], ids=["first-time", "remembered"])
def test_a_maximized_start_shows_the_whole_window_first_and_then_the_same_pixels(
    tmp_path, monkeypatch, remembered
):
    """On a screen too small for the default window (a 1024 x 768 projector; the offscreen
    screen is 800 x 800) a plain start maximizes the window, the first time or where a
    window closed maximized left its place: its picture is kept and shown maximized too,
    and the window's own first paint equals it, pixel for pixel."""
    plain = ("--lang", "en")
    if remembered:
        monkeypatch.setenv("FRAME_REMEMBER", "1")
    assert start("page", tmp_path, plain) == {"saved": True}
    monkeypatch.delenv("FRAME_REMEMBER", raising=False)
    kept = start("window", tmp_path, plain)
    assert kept["kept"]
    assert start("frame", tmp_path, plain) == shown_from_its_picture(kept["focus"], maximized=True)


def test_the_place_is_read_where_the_window_keeps_it():
    from attn_explorer.ui import window_layout

    assert start_frame.GEOMETRY_SETTING == window_layout.GEOMETRY_SETTING


def test_only_a_plain_command_line_is_shown_from_a_picture():
    assert start_frame.plain([])
    assert start_frame.plain(["--lang", "vi", "--report-startup"])
    assert start_frame.plain(["--lang=vi"])
    assert not start_frame.plain(["session.json"])
    assert not start_frame.plain(["--preset", "causal"])
    assert not start_frame.plain(["--screenshot", "out.png"])
    assert not start_frame.plain(["--lang"])  # (the parser says what is missing)
    assert start_frame.language(["--lang", "vi"]) == "vi"
    assert start_frame.language(["--lang", "xx"]) is None


def test_the_main_window_names_every_piece_it_is_given():
    """ui/main_window.py names its pieces for the checkers under TYPE_CHECKING and gets them
    from `window_parts.load`: the two lists are the same."""
    source = Path(sys.modules["attn_explorer.ui.main_window"].__file__).read_text()
    typed = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for item in node.body:
                if isinstance(item, ast.ImportFrom):
                    typed |= {alias.asname or alias.name for alias in item.names}
    pieces = set(window_parts._pieces())
    annotations_only = {
        "CompareTools",
        "FigureSpec",
        "FileActions",
        "MatrixBoard",
        "WindowMenus",
        "ShortcutsDialog",
        "StepThrough",
    }
    assert typed - annotations_only == pieces
