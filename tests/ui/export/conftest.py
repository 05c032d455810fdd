"""The File menu's recorded message boxes, shared by its session and export tests."""

import pytest
from PySide6.QtWidgets import QMessageBox

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
