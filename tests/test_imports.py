"""What a fresh Python imports: the engine computes without the words about it, and every module
of the package imports before a QApplication exists, as main.py and the headless export import
them. A QKeySequence of a standard key built at import time needs the application's platform:
it crashed every launch (segfault) before the window could open.

One process answers both (each start imports torch): `fresh_python` runs it once, and the tests
run on one worker (`xdist_group`) so that it is not started once on each."""

import json
import pkgutil
import subprocess
import sys

import pytest

import attn_explorer

pytestmark = pytest.mark.xdist_group("fresh_python")


@pytest.fixture(scope="module")
def fresh_python() -> dict:
    """A new Python that computes the mha example's trace, then imports every module: which
    modules of `attn_explorer.text` the trace needed, and whether a QApplication existed after
    all the imports."""
    modules = pkgutil.walk_packages(attn_explorer.__path__, "attn_explorer.")
    names = [m.name for m in modules if not m.name.endswith("__main__")]  # that one runs the app
    assert "attn_explorer.ui.editing.embedding_editor" in names
    code = (
        "import importlib, json, sys\n"
        "from attn_explorer.engine import compute, preset\n"
        "trace = compute(preset('mha').config)\n"
        "text = sorted(m for m in sys.modules if m.startswith('attn_explorer.text'))\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "from PySide6.QtWidgets import QApplication\n"
        "print(json.dumps({'text': text, 'app': QApplication.instance() is not None}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_engine_computes_without_the_text_layer(fresh_python):
    """The engine computes numbers only: a trace and its steps need no module of
    `attn_explorer.text`, which writes the words about them."""
    assert fresh_python["text"] == []


def test_every_module_imports_without_an_application(fresh_python):
    assert fresh_python["app"] is False
