"""Every module of the package imports before a QApplication exists, as main.py and the
headless export import them. A QKeySequence of a standard key built at import time needs the
application's platform: it crashed every launch (segfault) before the window could open."""

import pkgutil
import subprocess
import sys

import attn_explorer


def test_every_module_imports_without_an_application():
    modules = pkgutil.walk_packages(attn_explorer.__path__, "attn_explorer.")
    names = [m.name for m in modules if not m.name.endswith("__main__")]  # that one runs the app
    assert "attn_explorer.ui.editing.embedding_editor" in names
    code = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "from PySide6.QtWidgets import QApplication\n"
        "assert QApplication.instance() is None\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
