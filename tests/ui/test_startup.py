"""The window reaches the screen before torch is imported: torch takes 1.5–2.3 s to import
here, and the engine thread imports it while the window is already shown."""

import os
import subprocess
import sys

BUILD_THE_WINDOW = """
import os, sys
from attn_explorer.ui.app import create_app
from attn_explorer.ui.main_window import MainWindow
app = create_app()
window = MainWindow()
window.show()
print(sorted(m for m in sys.modules if m == "torch" or m.startswith("torch.")))
sys.stdout.flush()
os._exit(0)  # no teardown: only the imports are the point
"""


def test_building_and_showing_the_window_does_not_import_torch():
    """Importing `compute` at the top of the export code brought torch onto the window's
    path: the window appeared after 2.3 s instead of 1.0 s."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", BUILD_THE_WINDOW],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
