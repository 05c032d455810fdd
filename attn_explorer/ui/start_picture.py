"""The matrices' area as a picture, on screen before pyqtgraph is imported.

The window's views need pyqtgraph, whose import takes 0.3-0.5 s on two cores, and building
them 0.3 s more: the window used to reach the screen after 1.3 s. A window started with
`views_later` shows its menus, controls, tabs and status bar first, plain Qt, and builds the
views in the event loop's next turn (`MainWindow.build_views`). Until they are drawn, the
tabs' page holds the picture this module saved when the window last drew these settings: the
same pixels, so nothing moves when the views take its place.

A picture is used only under its exact key: everything that changes its pixels (the
configuration and the engine's version, through the kept trace's key; what is looked at; the
page's size and the screen's scale; the language; the text size; the style and the font; the
package's version). Where none matches, the page waits for the views, as it did. A picture is
of the matrices' tab with the settings the window started with, saved once the engine has
computed them (never a restored picture's), and only while nothing has changed since the
start: no edit, no hover.

Like the kept traces (`io/trace_cache.py`), pictures go to the user's cache folder, written
atomically, the oldest removed beyond `KEEP`; one that cannot be written is not kept, and
nothing else happens. A picture is kept as its pixels, uncompressed, behind a line naming
its key, size and pixel format: read while the learner waits for the window, a PNG's
decoding cost 80 M instructions (5 % of the start to the first paint) where copying the
pixels costs 1 M; it takes 3.9 MB on disk at the default size instead of 0.15 MB.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QEvent,
    QObject,
    QPoint,
    QRect,
    QSize,
    QTimer,
    Signal,
)
from PySide6.QtGui import QImage, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QWidget

from attn_explorer import __version__
from attn_explorer.io import trace_cache
from attn_explorer.text import i18n
from attn_explorer.ui import restore, start_frame
from attn_explorer.ui.text_size import text_size

KEEP = 8  # pictures kept; the oldest go
SETTLE_TURNS = 20  # turns of the event loop the board is given to settle, at the most
SUFFIX = start_frame.PAGE_SUFFIX
# A kept picture's first line; the second is its header (JSON: the key, so that a renamed file
# is not trusted, and the pixels' layout), the rest its pixels.
_MAGIC = b"attn_explorer picture 1\n"

# Input that reaches a window shown before its views: the views are built first, so that no
# action finds them missing.
_INPUT = {
    QEvent.Type.MouseButtonPress,
    QEvent.Type.MouseButtonDblClick,
    QEvent.Type.KeyPress,
    QEvent.Type.ShortcutOverride,
    QEvent.Type.Wheel,
    QEvent.Type.ContextMenu,
}


def picture_folder() -> Path:
    """Beside the kept traces in the user's cache folder: `pictures/`."""
    return restore.cache_folder().parent / "pictures"


def settings_key(window: Any) -> str:
    """Everything of the window's settings that changes the page's pixels, but its size."""
    config = window.doc.config()
    if config.problems():
        return ""
    app = QApplication.instance()
    fields = [
        __version__,
        trace_cache.key(config),
        json.dumps(dataclasses.asdict(window.doc.view), sort_keys=True, default=str),
        i18n.language(),
        repr(text_size.factor),
        app.style().name() if app is not None else "",
        app.font().toString() if app is not None else "",
    ]
    return hashlib.sha256(json.dumps(fields).encode()).hexdigest()


def picture_key(settings: str, size: QSize, scale: float) -> str:
    """The key of the page's picture: the settings' key, the page's size and its scale."""
    text = json.dumps([settings, size.width(), size.height(), repr(float(scale))])
    return hashlib.sha256(text.encode()).hexdigest()


def path_for(key: str) -> Path:
    return picture_folder() / (key[:32] + SUFFIX)


def load(key: str, size: QSize, scale: float) -> QPixmap | None:
    """The picture kept under `key`, if it is one of this size and scale, else None."""
    image = read(path_for(key), key)
    if image is None:
        return None
    if image.size() != QSize(round(size.width() * scale), round(size.height() * scale)):
        return None
    image.setDevicePixelRatio(scale)
    return QPixmap.fromImage(image)


def read(path: Path, key: str | None = None) -> QImage | None:
    """The picture kept at `path` (under `key`, if given); None where there is none, or it is
    another's, damaged or cut short."""
    found = start_frame.read_pixels(path, _MAGIC, key)
    return None if found is None else found[0]


def save(key: str, image: QImage) -> Path | None:
    """Keep `image` under `key`; None where it could not be written (nothing else happens)."""
    target = path_for(key)
    if not start_frame.write_pixels(target, _MAGIC, key, image):
        return None  # a read-only or full cache: the next start waits for the views
    start_frame.prune(target.parent, target, SUFFIX)
    return target


def _fresh_caches(window: Any) -> None:
    """Drop the matrices' cached titles and axes, drawn again where they are now: a cache
    drawn before the board chose its arrangement for the room is put where the item moved
    to, rounded, and a title can stand a pixel off where a fresh one is drawn (1024 × 768).
    The saved picture and the views that replace it are both drawn fresh."""
    for view in window.board.views.values():
        view.plot.set_caching(False)
        view.plot.set_caching(True)


def page_image(window: Any) -> QImage:
    """The tabs' page as it is on screen. (Not the page's own `grab()`: that fills what
    the page leaves unpainted with its palette's grey, where the screen shows the tabs'
    lighter pane through it.)"""
    page = window.tabs.currentWidget()
    return window.grab(QRect(page.mapTo(window, QPoint(0, 0)), page.size())).toImage()


class _Cover(QWidget):
    """The picture over the tabs' page, in its place."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.pixmap: QPixmap | None = None
        self.hide()

    def paintEvent(self, event: object) -> None:
        if self.pixmap is not None:
            QPainter(self).drawPixmap(QPoint(0, 0), self.pixmap)


class StartPicture(QObject):
    """Shows the saved picture of the matrices' area until the views are drawn, and saves
    the picture of the settings the window started with once the engine has computed them."""

    considered = Signal()  # the first computed picture was saved for the next start, or not

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self.window = window
        self.enabled = trace_cache.enabled()  # off in the tests, with the kept traces
        self.settings = settings_key(window) if self.enabled else ""
        self.cover: _Cover | None = None
        self.shown_key: str | None = None  # the key of the picture on screen
        self._waiting = False  # shown before the views: their first picture replaces it
        self._hovered = False
        self._later = False  # a window shown before its views: it saves its first picture
        window.firstPicture.connect(lambda: self._when_settled(self.keep, 1))

    # ------------------------------------------------------------------ before the views
    def show_saved(self) -> None:
        """The window is shown before its views: hold the page with the saved picture of
        these settings, where there is one, until they are drawn; build them before any
        input reaches the window."""
        self._waiting = self._later = True
        # Until the window's first paint only the window itself is watched: a filter on the
        # application makes PySide6 wrap every object an event reaches, and to name their
        # classes it creates about a hundred Qt classes with their enums (QProcess's,
        # QFile's ...), 8 % of the instructions before the first paint. No input reaches a
        # window not yet exposed; from its first paint until the views are built (the turn
        # after it) the application's filter sees every press and key.
        self.window.installEventFilter(self)
        if not self.enabled or not self.settings:
            return
        self.cover = _Cover(self.window.tabs)
        self._page().installEventFilter(self)  # its size is known once it is laid out
        self.window.doc.changed.connect(self.drop)
        text_size.changed.connect(self.drop)

    def building(self) -> None:
        """The views are being built: input goes to the window as usual."""
        self.window.removeEventFilter(self)
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def _page(self) -> QWidget:
        return self.window.tabs.currentWidget()

    def _fit(self) -> None:
        """Show the picture of the page's size now, if one is kept, else none."""
        if self.cover is None or not self._waiting:
            return
        page = self._page()
        size, scale = page.size(), page.devicePixelRatioF()
        key = picture_key(self.settings, size, scale)
        if key != self.shown_key:
            pixmap = load(key, size, scale)
            self.cover.pixmap = pixmap
            self.shown_key = key if pixmap is not None else None
        if self.shown_key is None:
            self.cover.hide()
            return
        place = page.mapTo(self.window.tabs, QPoint(0, 0))
        self.cover.setGeometry(place.x(), place.y(), size.width(), size.height())
        self.cover.raise_()
        if self.cover.isHidden():
            self.cover.show()
            self.window.restored.show_mark()

    def drop(self) -> None:
        """The settings changed before the views came: the picture is not theirs any more."""
        self._waiting = False
        self.shown_key = None
        if self.cover is not None:
            self.cover.hide()
            self.cover.pixmap = None

    @property
    def showing(self) -> bool:
        """Whether the saved picture is on screen."""
        return self.cover is not None and self.shown_key is not None and self.cover.isVisible()

    # ------------------------------------------------------------------ once the views are built
    def views_built(self) -> None:
        """The views are built (and drawn, if a trace was kept): the picture goes once they
        have settled, or, with nothing kept to draw, once the engine's picture is drawn."""
        self.window.board.explained.connect(self._hover)
        if self.cover is None:
            self._waiting = False
            return
        page = self._page()
        page.installEventFilter(self)  # a page laid out at another size drops the picture
        if page.size() != self.cover.size():
            self.drop()
        if self.window.trace is not None:
            self._when_settled(self._views_drawn)

    def _when_settled(self, then: Any, turns: int = 2) -> None:
        """Call `then` once the board has settled: at the least after `turns` turns of the
        event loop, and once its arrangement for the room is chosen (a check that waits for
        the next turn after each drawing, and may change the arrangement)."""
        if turns <= 0 and (self.window.board.settled() or turns < -SETTLE_TURNS):
            then()
        else:
            QTimer.singleShot(0, self, lambda: self._when_settled(then, turns - 1))

    def _views_drawn(self) -> None:
        self._waiting = False
        if self.cover is None:
            return
        _fresh_caches(self.window)  # as the saved picture's were
        self.cover.hide()
        self.cover.deleteLater()
        self.cover = None
        self._page().removeEventFilter(self)
        self.window.doc.changed.disconnect(self.drop)
        text_size.changed.disconnect(self.drop)

    def _hover(self, _text: str) -> None:
        self._hovered = True

    # ------------------------------------------------------------------ saving
    def keep(self) -> None:
        """Save the page as the next start's picture, if the window still shows the settings
        it started with as a fresh start would show them; then `considered`."""
        self._keep()
        self.considered.emit()

    def _keep(self) -> None:
        window = self.window
        if self.cover is not None:
            self._views_drawn()  # the engine's picture is on screen: the views have it
        if not (self.enabled and self._later and self.settings) or self._hovered:
            return
        if not window.isVisible() or not window.board.settled():
            return
        if self._page() is not window.board:  # (`--stage`): only the matrices are kept
            return
        if window.trace is None or window.trace is window.restored.trace:
            return
        if not window.stale_banner.isHidden() or settings_key(window) != self.settings:
            return
        page = self._page()
        key = picture_key(self.settings, page.size(), page.devicePixelRatioF())
        if path_for(key).exists():
            return
        _fresh_caches(window)
        save(key, page_image(window))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in _INPUT and not self.window.views_built:
            self.window.build_views()
        elif kind == QEvent.Type.Paint and watched is self.window:
            self.window.removeEventFilter(self)
            app = QApplication.instance()
            if app is not None and not self.window.views_built:
                app.installEventFilter(self)
        elif kind in (QEvent.Type.Resize, QEvent.Type.Move) and watched is self._page():
            if not self.window.views_built:
                self._fit()
            elif self.cover is not None and self._page().size() != self.cover.size():
                self.drop()  # the views are laid out at another size than the picture's
        return False
