"""The QApplication and process-wide settings shared by the window and headless export."""

from __future__ import annotations

import sys

import pyqtgraph as pg
from PySide6.QtWidgets import QApplication

from .. import __version__
from .i18n import install_translator


def configure_pyqtgraph() -> None:
    """Matrices as matrices (row-major, row 0 on top) on a white, print-friendly background."""
    pg.setConfigOptions(
        imageAxisOrder="row-major", background="w", foreground="#222222", antialias=True
    )


def create_app(argv: list[str] | None = None) -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
        install_translator(app)  # the system language's, if attn_explorer has one
    app.setApplicationName("attn_explorer")
    app.setOrganizationName("attn_explorer")
    app.setApplicationVersion(__version__)
    configure_pyqtgraph()
    return app
