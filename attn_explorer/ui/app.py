"""The QApplication and process-wide settings shared by the window and headless export."""

from __future__ import annotations

import sys

from PySide6.QtCore import QMessageLogContext, QtMsgType, qFormatLogMessage, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from attn_explorer import __version__
from attn_explorer.ui.i18n import chosen_language, use_language


def configure_pyqtgraph() -> None:
    """Matrices as matrices (row-major, row 0 on top) on a white, print-friendly background.
    Imports pyqtgraph (`pyqtgraph_import`) if it is not imported yet."""
    from attn_explorer.ui import pyqtgraph_import

    pg = pyqtgraph_import.load()
    pg.setConfigOptions(
        imageAxisOrder="row-major", background="w", foreground="#222222", antialias=True
    )


def create_app(
    argv: list[str] | None = None, language: str | None = None, plots: bool = True
) -> QApplication:
    """The application, speaking `language` ("en", "vi"), or the one chosen in an earlier run
    (View → Language), or the system's. `plots`: import and configure pyqtgraph now; a window
    shown before its views (`MainWindow(views_later=True)`) does it when it builds them."""
    app = QApplication.instance()
    if app is None:
        app = QApplication(argv if argv is not None else sys.argv[:1])
    app.setApplicationName("attn_explorer")
    app.setOrganizationName("attn_explorer")
    use_language(language or chosen_language())
    app.setApplicationVersion(__version__)
    if plots:
        configure_pyqtgraph()
    return app


# What Qt's offscreen platform says of every window it shows: it cannot pass size hints on or
# raise a window, which it has no screen to do for. `--screenshot` on a machine with no
# display (a CI job making the README's figures) would print these as if something failed.
OFFSCREEN_NOTICES = (
    "This plugin does not support propagateSizeHints()",
    "This plugin does not support raise()",
)


def quiet_offscreen_notices(app: QApplication) -> None:
    """Drop the offscreen platform's notices of what it cannot do; print every other message
    as Qt would. Elsewhere nothing changes."""
    if app.platformName() != "offscreen":
        return

    def handler(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if message not in OFFSCREEN_NOTICES:
            print(qFormatLogMessage(mode, context, message), file=sys.stderr, flush=True)

    qInstallMessageHandler(handler)
