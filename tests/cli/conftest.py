"""Shared by the command-line tests: running `attn-explorer export` in a process of its own or
in this one, a saved session to export, the texts of an SVG; English again after every test."""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from attn_explorer.engine import preset
from attn_explorer.io.session import save_session
from attn_explorer.model.state import ExplorerState


def run(*args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY")}
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, "-m", "attn_explorer", "export", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
    )


@pytest.fixture
def session(tmp_path):
    path = tmp_path / "mha.json"
    save_session(path, ExplorerState.from_config(preset("mha").config))
    return path


def svg_texts(path) -> str:
    root = ET.parse(path).getroot()
    texts = " ".join("".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text"))
    return " ".join(texts.split())


def export_here(capsys, *args):
    """The export command in this process (no display needed for data): status, out, err."""
    from attn_explorer.cli.export import main

    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture(autouse=True)
def english_afterwards():
    """A command speaks the language of --lang (or the system's) from then on, as a process
    does; the next test starts in English again."""
    yield
    from attn_explorer.ui.i18n import use_language

    use_language("en")  # Qt's own words too: the command installed their translator
