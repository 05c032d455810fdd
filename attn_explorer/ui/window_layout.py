"""The window's two columns and its place on the screen.

The controls and the embeddings' table sit in a column beside the tabs. The column is as
wide as its widgets need at the current text size wherever the screen has that room, is
hidden (F9) to give a projector's width to the matrices, and the window goes full screen or
back to the state it had. A window placed by `place_on_screen` remembers its geometry.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QObject, QSettings, Qt, Signal
from PySide6.QtGui import QWindowStateChangeEvent
from PySide6.QtWidgets import QMainWindow, QScrollArea, QSplitter, QTabWidget, QWidget

GEOMETRY_SETTING = "window/geometry"


class WindowLayout(QObject):
    """Builds the window's central splitter: `side` (the controls over the table) and the
    tabs. `controlsShown` says whether the column can be seen (shown, or dragged open) and
    `fullScreenChanged` whether the window is full screen, however that came about."""

    controlsShown = Signal(bool)
    fullScreenChanged = Signal(bool)

    SIDE_LEAST = 160  # the controls' column, at the least, on the smallest screen

    def __init__(
        self, window: QMainWindow, controls: QWidget, editor: QWidget, tabs: QTabWidget
    ) -> None:
        super().__init__(window)
        self._window, self._controls, self._editor, self._tabs = window, controls, editor, tabs
        self._before_full_screen = Qt.WindowState.WindowNoState  # maximized, say
        self._side_width = 0  # the column's width when F9 hid it
        self._remember_geometry = False

        self.side = QSplitter(Qt.Orientation.Vertical)
        scroll = QScrollArea()
        scroll.setWidget(controls)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._controls_scroll = scroll
        self.side.addWidget(scroll)
        # The table in a scroll area that never scrolls while the column has its room: on a
        # 1024-pixel projector at 200 % the column may be narrower than the table's buttons
        # (see `fit_controls`), and then scrolls rather than push the matrices off screen.
        editor_scroll = QScrollArea()
        editor_scroll.setWidget(editor)
        editor_scroll.setWidgetResizable(True)
        editor_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self._editor_scroll = editor_scroll
        self.side.addWidget(editor_scroll)
        self.side.setStretchFactor(0, 3)
        self.side.setStretchFactor(1, 2)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.side)
        self.splitter.addWidget(tabs)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([380, 1200])
        self.splitter.splitterMoved.connect(self._splitter_moved)
        window.setCentralWidget(self.splitter)
        self.fit_controls()

    def fit_controls(self) -> None:
        """The controls' column as wide as its widgets need at the current text size, where
        the screen has that room beside the tabs' least width. At 200 % the controls and the
        table's buttons need about 530 px, more than a 1024-pixel projector leaves beside the
        tabs: there the column is narrower than its widgets and scrolls, and the weights and
        the context stay on the screen."""
        need = self._controls.minimumSizeHint().width() + 24
        editor_need = self._editor.minimumSizeHint().width()
        screen = self._window.screen().availableGeometry().width()
        beside = self._tabs.minimumSizeHint().width()
        room = max(screen - beside - 16, self.SIDE_LEAST)
        policy = Qt.ScrollBarPolicy
        self._controls_scroll.setMinimumWidth(min(need, room))
        self._controls_scroll.setHorizontalScrollBarPolicy(
            policy.ScrollBarAsNeeded if need > room else policy.ScrollBarAlwaysOff
        )
        self._editor_scroll.setMinimumWidth(min(editor_need, room))
        self._editor_scroll.setMinimumHeight(self._editor.minimumSizeHint().height())

    def adopt(self, old: WindowLayout) -> None:
        """Take over the columns' widths, the hidden column and the full-screen memory of the
        layout this one replaces (the window built again in another language)."""
        self._before_full_screen = old._before_full_screen
        self._side_width = old._side_width
        self._remember_geometry = old._remember_geometry
        self.side.setSizes(old.side.sizes())
        self.splitter.setSizes(old.splitter.sizes())
        self.side.setVisible(not old.side.isHidden())
        self.controlsShown.emit(not old.side.isHidden() and old.splitter.sizes()[0] > 0)

    def show_controls(self, on: bool) -> None:
        """Show or hide the controls and the embeddings' table. Shown again, the column has
        the width it had (one the user gave it), or its usual width if it was dragged shut."""
        if not on and self.side.isVisible():
            self._side_width = self.splitter.sizes()[0]  # 0 when dragged shut
        if on and (not self.side.isVisible() or self.splitter.sizes()[0] == 0):
            total = sum(self.splitter.sizes())
            width = self._side_width or self.side.sizeHint().width()
            self.splitter.setSizes([width, max(total - width, 1)])
        self.side.setVisible(on)
        self.controlsShown.emit(on)

    def _splitter_moved(self, _pos: int, _index: int) -> None:
        """The column dragged shut (or open again) counts as hidden (or shown)."""
        self.controlsShown.emit(self.side.isVisible() and self.splitter.sizes()[0] > 0)

    def set_full_screen(self, on: bool) -> None:
        """Full screen, or back to the state before it (maximized stays maximized)."""
        full = Qt.WindowState.WindowFullScreen
        window = self._window
        if on:
            window.setWindowState(window.windowState() | full)
        else:
            window.setWindowState(self._before_full_screen & ~full)

    def state_changed(self, event: QWindowStateChangeEvent) -> None:
        """The window's WindowStateChange. Full screen however it came (F11, the window
        manager, a window closed in full screen and restored so): remember the state before
        it, and say whether the window is full screen."""
        full_screen = Qt.WindowState.WindowFullScreen
        full = bool(self._window.windowState() & full_screen)
        if full and not event.oldState() & full_screen:
            self._before_full_screen = event.oldState()
        self.fullScreenChanged.emit(full)

    def place_on_screen(self, size: tuple[int, int]) -> None:
        """Where the user left the window last time; the first time, `size` where it fits the
        screen, else the whole screen (a 1024 × 768 projector).

        Only windows placed this way remember their place: a screenshot's or a test's size
        must not become the user's.
        """
        window = self._window
        self._remember_geometry = True
        saved = QSettings().value(GEOMETRY_SETTING)
        if isinstance(saved, QByteArray) and window.restoreGeometry(saved):
            return  # Qt moves a window saved on a screen now gone onto one that is there
        room = window.screen().availableGeometry()
        width, height = size
        # Room for the frame and title bar, which the window's own size leaves out.
        if width > room.width() - 16 or height > room.height() - 48:
            window.resize(room.size())
            window.setWindowState(Qt.WindowState.WindowMaximized)
            return
        window.resize(width, height)
        window.move(room.center() - window.rect().center())

    def remember_place_on_close(self) -> None:
        """Keep the window's place at close as `place_on_screen` does, for a window placed
        before it was shown (a start from the whole window's picture, ui/start_frame.py)."""
        self._remember_geometry = True

    def remember_place(self) -> None:
        """Keep the window's geometry for the next start, if it was placed for the user."""
        if self._remember_geometry:
            QSettings().setValue(GEOMETRY_SETTING, self._window.saveGeometry())
