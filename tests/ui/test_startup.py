"""The window reaches the screen before torch is imported: torch takes 1.5–2.3 s to import
here, and the engine thread imports it while the window is already shown."""

import os
import subprocess
import sys

# What the first picture does not need: each waits until its menu action is first used. (The
# compare tools are built with the window: their button and column are part of its layout.)
LATER = (
    "torch",
    "attn_explorer.engine.attention",
    "attn_explorer.engine.check",
    "attn_explorer.io.code_export",
    "attn_explorer.io.data_export",
    "attn_explorer.lens.loading",
    "attn_explorer.text.lessons",
    "attn_explorer.text.worksheet",
    "attn_explorer.ui.check",
    "attn_explorer.ui.export.dialogs",
    "attn_explorer.ui.export.figures",
    "attn_explorer.ui.export.render",
    "attn_explorer.ui.export.stages",
    "attn_explorer.ui.export.worksheet_dialog",
    "attn_explorer.ui.export.worksheet_files",
    "attn_explorer.ui.export.worksheet_pdf",
    "attn_explorer.ui.lens.model_window",
    "attn_explorer.ui.lessons_dialog",
    "attn_explorer.ui.shortcuts_dialog",
)

# The end of a start script: shows `window` and keeps in `seen[0]` what the script's own
# `at_first_paint()` reads when the window's first paint begins.
WATCH_FIRST_PAINT = """
seen = []

class FirstPaint(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not seen:
            seen.append(at_first_paint())
        return False

watcher = FirstPaint()
window.installEventFilter(watcher)
window.show()
while not seen:
    app.processEvents()
"""

FIRST_PAINT = (
    """
import os, sys
from PySide6.QtCore import QEvent, QObject
from attn_explorer.ui.app import create_app
from attn_explorer.ui.main_window import MainWindow
LATER = tuple(sys.argv[1:])
app = create_app(language="en")
window = MainWindow()

def at_first_paint():
    return sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in LATER))
"""
    + WATCH_FIRST_PAINT
    + """print(seen[0])
print(window.menuBar().actions()[-2].text())
sys.stdout.flush()
os._exit(0)
"""
)


def test_the_check_lens_export_and_lesson_pieces_wait_for_the_first_paint():
    """Imported and built before the first paint, they kept the window off the screen for
    0.3 s more (1.4 s of imports without cached bytecode, two cores). Torch among them:
    importing `compute` at the top of the export code brought it onto the window's path, and
    the window appeared after 2.3 s instead of 1.0 s. The compare tools' menu is there,
    before Help, at the first paint."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_PAINT, *LATER],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    before, compare_menu = done.stdout.strip().splitlines()
    assert before == "[]"
    assert compare_menu == "&Compare"


PLAIN_START = (
    """
import os, sys
from PySide6.QtCore import QEvent, QObject
from attn_explorer.ui.app import create_app
from attn_explorer.ui.main_window import MainWindow
app = create_app(language="en", plots=False)
window = MainWindow(views_later=True)

def at_first_paint():
    return ("pyqtgraph" in sys.modules, window.views_built)
"""
    + WATCH_FIRST_PAINT
    + """while not window.views_built:
    app.processEvents()
print(seen[0], "pyqtgraph" in sys.modules, type(window.board).__name__)
print([a.text() for a in window.menuBar().actions()])
sys.stdout.flush()
os._exit(0)
"""
)


def test_a_plain_start_shows_the_window_before_pyqtgraph_is_imported():
    """pyqtgraph's import (0.3-0.5 s) and the views (0.3 s) kept the window off the screen
    until 1.3 s: `attn-explorer` shows it first, and builds the views in the next turn. The
    menu bar is the same before and after (the Compare menu's place is held)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", PLAIN_START], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    painted, menus = done.stdout.strip().splitlines()
    assert painted == "(False, False) True MatrixBoard"
    assert menus == "['&File', '&Edit', '&View', 'E&xamples', '&Compare', '&Help']"
