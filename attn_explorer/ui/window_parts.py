# ruff: noqa: F401  (each import is handed on through `locals()`)
"""The main window's pieces, imported when the first window is built, not with its module.

A plain start puts the window on screen with the picture of its last start before numpy, the
engine, the widgets' modules and Qt's namespace of 94 enums are imported (ui/start_frame.py):
they are most of the instructions to a window's first paint, and the picture has to be shown
by the window object itself. So `ui/main_window.py` imports only Qt's window classes, names
these under `TYPE_CHECKING` for the checkers, and has `load` put them in its namespace at the
start of `MainWindow.__init__`. A name added there and not here fails at the first window
(tests/ui/test_start_frame.py compares the two lists).
"""

from __future__ import annotations

from typing import Any


def load(namespace: dict[str, Any]) -> None:
    """Import the pieces into `namespace` (the main window module's), once."""
    if "WindowLayout" in namespace:
        return
    namespace.update(_pieces())


def _pieces() -> dict[str, Any]:
    from attn_explorer.engine import PRESETS, AttentionConfig, Preset, Problem, Trace
    from attn_explorer.engine.presets import matching_preset
    from attn_explorer.model.state import ExplorerState, ViewState, default_state, scaling_demo
    from attn_explorer.model.views import TABS
    from attn_explorer.text import i18n
    from attn_explorer.text.examples import example_text
    from attn_explorer.text.problems import problem_text
    from attn_explorer.text.summaries import config_summary, shapes_summary
    from attn_explorer.ui import view_state, window_views
    from attn_explorer.ui.editing.controls import ControlsPanel
    from attn_explorer.ui.editing.document import Document
    from attn_explorer.ui.editing.embedding_editor import EmbeddingEditor
    from attn_explorer.ui.engine_thread import EngineBridge, Failure, Result, thaw_startup_objects
    from attn_explorer.ui.i18n import remember_language, use_language
    from attn_explorer.ui.i18n import tr as _tr
    from attn_explorer.ui.keys import commit_typed_edits, send_undo_to_document
    from attn_explorer.ui.menus import build_menus
    from attn_explorer.ui.restore import RestoredPicture
    from attn_explorer.ui.stale_banner import StaleBanner
    from attn_explorer.ui.start_picture import StartPicture
    from attn_explorer.ui.status_bar import StatusLine
    from attn_explorer.ui.text_size import text_size
    from attn_explorer.ui.window_layout import WindowLayout

    return dict(locals())
