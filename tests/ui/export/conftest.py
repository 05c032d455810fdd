"""Fixtures shared by the export tests: a trace to draw figures of, and the File menu's
recorded message boxes."""

import pytest
from PySide6.QtWidgets import QMessageBox

from attn_explorer.engine import compute, preset
from attn_explorer.ui.app import configure_pyqtgraph
from attn_explorer.ui.export import file_actions


@pytest.fixture
def dialogs(monkeypatch):
    """Records message boxes instead of showing them; `answer` is what question() returns."""
    calls = {"critical": [], "question": [], "answer": QMessageBox.StandardButton.Discard}

    def critical(parent, title, text, *args):
        calls["critical"].append((title, text))

    def question(parent, title, text, *args):
        calls["question"].append((title, text))
        return calls["answer"]

    monkeypatch.setattr(file_actions.QMessageBox, "critical", critical)
    monkeypatch.setattr(file_actions.QMessageBox, "question", question)
    return calls


@pytest.fixture
def trace(qapp):
    """The wrapper example's computation, with pyqtgraph set up as the app sets it."""
    configure_pyqtgraph()
    return compute(preset("wrapper").config)
