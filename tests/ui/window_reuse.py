"""One main window handed from test to test, where, reset, it is as a new one would be.

Building a window and drawing its first picture takes about half a second, and some 600 tests
ask for one (the `window` fixture, tests/ui/conftest.py). After a test the window is brought
back to the default document and view (`reset`), and kept for the next test only if all that
`looks` reads of it is then exactly what it read when the window was new: every object the
window holds, with its Python attributes and how many slots its signals reach, and of every
widget its texts, values, chosen items and cells, size, place, font, focus and whether it is
shown or enabled, and the items drawn in its matrices. Anything a test changed that the reset
does not undo (a lazily built panel or grid, a stage drawn, a dialog kept, an attribute or a
method replaced, a lambda left connected, text at another size) shows up there, and the
window is then closed as before and a new one built for the next test.

A test's patches (monkeypatch) are undone before its window is reset, and what they left
there shows in the look. A window is built anew where the test before it failed, where it was
built while anything but Qt's dialogs was patched (a fixture's patch before the window), where
the language, the text size, the locale or the layout direction differ from when it was built,
and where the next test does not use it: no other test ever sees it.

A test that uses the step-through (the `steps` fixture) gets a window on which it was
shown, as the fixture shows it; such a window is kept only for another such test, and
checked against its look with the step-through shown (see `WindowPool`). What `looks`
reads is in tests/ui/window_look.py.
"""

from __future__ import annotations

import os

import pyqtgraph as pg
from PySide6.QtCore import (
    QCoreApplication,
    QEvent,
    QLocale,
    QSettings,
    Qt,
)
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QGraphicsView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QToolButton,
    QWidget,
)
from shiboken6 import isValid

from attn_explorer.model.state import default_state
from attn_explorer.text import i18n
from attn_explorer.ui import text_size as text_size_module
from attn_explorer.ui.heatmap import ColorBar
from tests.ui.window_look import (
    _sections,
    differences,
    identities,
    looks,
    parts,
    skeleton,
)

SIZE = (1500, 940)
QWIDGETSIZE_MAX = (1 << 24) - 1
# Qt's dialogs, which tests answer in place of a user (tests/ui/conftest.py's
# `no_modal_dialogs` refuses the message boxes for every test): a window is built without
# them, and what a dialog leaves in a window shows in its look.
DIALOGS = (QMessageBox, QFileDialog, QInputDialog)

# ---------------------------------------------------------------------------- the pool


def environment() -> tuple:
    """What a window takes from around it when it is built: a new one built under another
    language, text size, locale or direction would differ from the one kept."""
    app = QGuiApplication.instance()
    return (
        i18n.language(),
        text_size_module.text_size.factor,
        str(QSettings().value(text_size_module.SETTING, 1.0)),
        QLocale().name(),
        app.layoutDirection(),
        QGuiApplication.font().toString(),
        tuple(sorted((k, str(v)) for k, v in pg.CONFIG_OPTIONS.items())),
        os.environ.get("QT_SCALE_FACTOR"),
    )


def _a_dialog(target: object, name: str) -> bool:
    """A patch of Qt's dialogs (`DIALOGS`), or of a dialog's `exec` (a user's answer)."""
    if not isinstance(target, type):
        return False
    return issubclass(target, DIALOGS) or (issubclass(target, QDialog) and name == "exec")


def only_harmless_patches(monkeypatch: object) -> bool:
    """Nothing patched for the test but dialogs (see `DIALOGS`)."""
    return (
        all(_a_dialog(target, name) for target, name, _value in monkeypatch._setattr)
        and not monkeypatch._setitem
        and monkeypatch._cwd is None
        and monkeypatch._savesyspath is None
    )


def undo_patches(monkeypatch: object) -> None:
    """Undo a test's patches before its window is reset, as they would be after it; what
    they left in the window, the look finds. Qt's dialogs stay refused or answered (the
    `no_modal_dialogs` fixture's way) until the test's end."""
    dialogs = [
        (target, name, vars(target)[name] if name in vars(target) else getattr(target, name))
        for target, name, _value in monkeypatch._setattr
        if _a_dialog(target, name)
    ]
    # An object's method patched is put back as the method bound to it, in its own
    # attributes: gone, the class's method is found again, as in a new window.
    methods = [
        (target, name)
        for target, name, value in monkeypatch._setattr
        if not isinstance(target, type)
        and getattr(value, "__self__", None) is target
        and hasattr(type(target), name)
    ]
    monkeypatch.undo()
    for target, name in methods:
        vars(target).pop(name, None)
    for target, name, value in dialogs:
        monkeypatch.setattr(target, name, value)


def overflow_menu(win: QWidget) -> QMenu:
    """The menu of the menu bar's "»" button, which lists the menus a narrow bar leaves out.
    Qt fills it when the bar lays out with menus left out and leaves it so when they all fit
    again (QMenuBarPrivate::updateGeometries): a new window, narrow while it was built,
    holds View to Help there; a window that saw a larger text size holds every menu, and
    the menus' actions then reach its slots too. Hidden, it cannot be opened until the bar
    is narrow again, when Qt fills it afresh."""
    return win.menuBar().findChild(QToolButton, "qt_menubar_ext_button").menu()


def collect_deleted() -> None:
    """Delete now what was deleted later (a dialog a test closed): it is still the window's
    child until then."""
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def step_parts(win: QWidget) -> dict:
    """What the step-through has built that `unstep` takes away when built later."""
    stepper = win.stepper
    return {
        "_softmax_panel": stepper._softmax_panel,
        "_mask_panel": stepper._mask_panel,
        "pool": len(stepper.figure._pool),
    }


class NewWindow:
    """What a window was when new, for `reset` to bring back and `looks` to check: its look,
    and the few things Qt and pyqtgraph keep that a reset of the document does not restore
    (the focus, where each text box's cursor stood, the room kept for labels)."""

    def __init__(self, win: QWidget) -> None:
        self.look = looks(win)
        self.skeleton = skeleton(win)
        self.room = label_room(win)
        self.focus = QApplication.focusWidget()
        self.active = QApplication.activeWindow() is win
        self.cursors = {box: box.cursorPosition() for box in win.findChildren(QLineEdit)}
        self.sections = {
            table: _sections(table) for table in (win.editor.query_table, win.editor.kv_table)
        }
        layout = win.window_layout
        self.splitters = (layout.splitter.sizes(), layout.side.sizes(), layout._side_width)
        self.environment = environment()
        self.step_parts = step_parts(win)
        self.overflow = overflow_menu(win).actions()
        self.pending = {box: _pending(box) for box in _items(win, pg.ViewBox)}


def _named(found: list[str], objects: dict) -> str:
    """Of the objects named by address in `found`, their classes and names (for a message)."""
    named = {
        address: objects[address][:2]
        for address in objects
        if any(line.startswith(f"[objects][{address}]") for line in found)
    }
    return "".join(f"\n{address}: {kind}" for address, kind in named.items())


class WindowPool:
    """The window kept for the next test, and what it was when new. Counts what it does:
    read by a plugin or a debugger when a file reuses less than expected.

    A window on which a test's `steps` fixture showed the step-through has built what that
    shows (the stage's plots, its panels as the test reached them); it is another kind of
    new window: one just built (or reset) with the step-through shown, whose look is kept
    as `stepped` (see `step_through`), and which is handed only to a test that uses the
    step-through too. Reset, it is shown the step-through again and must look as then."""

    def __init__(self) -> None:
        self.window: QWidget | None = None
        self.new: NewWindow | None = None
        self.stepped: NewWindow | None = None
        self.show_steps = None  # how the `steps` fixture shows the step-through
        self.next_uses_window = False
        self.next_uses_steps = False
        self.built = 0
        self.reused = 0
        self.closed: dict[str, int] = {}
        self.last_reason = ""
        # Whether the window was built with nothing patched but dialogs: the patches of a
        # test that took it are then undone before its reset (`give_back`).
        self.clean = True

    def take(
        self, monkeypatch: object, new_only: bool = False, steps: bool = False
    ) -> QWidget | None:
        """The kept window, if a new one built now would be the same and the test takes a
        used one (`new_only`: the test is marked `new_window`); one the step-through was
        shown on only where the test uses the step-through (`steps`)."""
        win, self.window = self.window, None
        if win is None:
            return None
        if new_only:
            self.close(win, "the test asks for a new window")
            return None
        if self.stepped is not None and not steps:
            self.close(win, "the test does not use the step-through shown on it")
            return None
        if self.new.environment != environment() or not only_harmless_patches(monkeypatch):
            self.close(win, "environment or patches before the test")
            return None
        self.reused += 1
        return win

    def remember_new(self, win: QWidget) -> None:
        """`win` was just built and drew its first picture: what it is now is what a reset
        brings back."""
        self.built += 1
        settle()
        self.new = NewWindow(win)
        self.stepped = None

    def step_through(self, win: QWidget, show, reset) -> None:
        """Before a test that uses the step-through: show it on `win` (`show`, the `steps`
        fixture's way), where a reset at the last give-back did not already. The first time,
        `win` is as new (just built, or reset and found so): what it is then, with the
        step-through shown, is what the reset of a later give-back brings back."""
        self.show_steps = show
        if self.stepped is None:
            show(win)
            settle()
            # Shown a second time, as a reset window is: its stage is then laid out from
            # the sizes of its first showing, a fraction of a pixel from where the first
            # layout puts it, and a reset window is found as new only in the same layout.
            room = label_room(win)
            unstep(win, step_parts(win))
            self.restore(win, reset, room)
            self.stepped = NewWindow(win)

    def give_back(self, win: QWidget, failed: bool, monkeypatch: object, reset) -> None:
        """After a test: keep `win` for the next one if, reset, it looks new; else close it."""
        if failed:
            return self.close(win, "the test failed")
        if not self.next_uses_window:
            return self.close(win, "the next test does not use it")
        stepped = self.stepped
        if stepped is not None and not self.next_uses_steps:
            return self.close(win, "the next test does not use the step-through")
        like = stepped or self.new
        if not isValid(win) or not win.isVisible():
            return self.close(win, "closed by the test")
        if not only_harmless_patches(monkeypatch):
            if not self.clean:
                return self.close(win, "built under the test's patches")
            undo_patches(monkeypatch)
        if self.new is None or self.new.environment != environment():
            return self.close(win, "environment changed by the test")
        # Nothing is painted while the window is reset and checked: each change the reset
        # makes would be painted on the next turn of the event loop (two or three pictures
        # of the whole window, most of a reset's time), and what `looks` reads is no
        # painting's. Updates on again, the window paints its reset picture once, when the
        # next test first lets the event loop run.
        win.setUpdatesEnabled(False)
        try:
            self._check(win, stepped, like, reset)
        finally:
            if isValid(win):
                win.setUpdatesEnabled(True)
        return None

    def _check(self, win: QWidget, stepped: NewWindow | None, like: NewWindow, reset) -> None:
        """`give_back`'s reset of `win` and its look compared with `like`'s."""
        tidy(win)
        if stepped is not None:
            # What the step-through builds as a test goes on (its panels, plots for larger
            # stages) goes first: its objects are then the stepped one's, and its items
            # once it is shown again.
            unstep(win, stepped.step_parts)
            if skeleton(win)[0] != stepped.skeleton[0]:
                return self.close(win, "objects made or deleted")
        kept, now = identities(like.look["parts"]), identities(parts(win))
        if kept != now:
            self.last_reason = "\n".join(differences(kept, now)[:20])
            return self.close(win, "attributes replaced")
        if stepped is None and (now := skeleton(win)) != self.new.skeleton:
            (old_objects, old_items), (objects, items) = self.new.skeleton, now
            self.last_reason = f"{len(objects - old_objects)} objects made, "
            drawn = {view: n for view, n in items.items() if old_items.get(view) != n}
            self.last_reason += f"{len(old_objects - objects)} deleted; items drawn now {drawn}"
            return self.close(win, "objects made or deleted")
        try:
            self.restore(win, reset, stepped.room if stepped is not None else None)
        except Exception as error:  # the window is closed, as before
            return self.close(win, f"reset failed: {error!r}")
        look = looks(win)
        if look != like.look:
            found = differences(like.look, look)
            self.last_reason = "\n".join(found[:20]) + _named(found[:20], look["objects"])
            return self.close(win, "looks different: " + found[0].split(":")[0])
        self.window = win
        return None

    def restore(self, win: QWidget, reset, stepped_room: dict | None) -> None:
        """`reset` `win`, and where it is a stepped window (`stepped_room`, its labels' room
        when stepped), show it the step-through again (`unstep` went first)."""
        reset(win, self.new)
        if stepped_room is not None:
            settle()
            self.show_steps(win)
            settle()
            win.bridge._hand_over()  # (see `reset`)
            give_room_back(win, stepped_room)
        settle()
        win.bridge._hand_over()  # a trace dropped while settling (see `reset`)
        paint_pending(win, self.new)

    def close(self, win: QWidget, why: str) -> None:
        """Close `win` as the fixture always closed its window."""
        self.closed[why] = self.closed.get(why, 0) + 1
        if self.window is win:
            self.window = None
        if isValid(win):
            win.doc.undo_stack.setClean()
            win.close()
            win.deleteLater()
            assert not win.bridge.is_running(), "the engine thread outlived the window"


def settle() -> None:
    """Run what the window posted for later (layouts, a fit to the text size, the values'
    notice), as the event loop would before the next test looks."""
    collect_deleted()
    for _ in range(3):
        QApplication.processEvents()


def _items(win: QWidget, kind: type) -> list:
    return [
        item
        for view in win.findChildren(QGraphicsView)
        if view.scene() is not None
        for item in view.scene().items()
        if isinstance(item, kind)
    ]


def _pending(box: pg.ViewBox) -> bool:
    """Whether `box` takes a new range or transform when next painted."""
    return box._matrixNeedsUpdate or box._autoRangeNeedsUpdate


def paint_pending(win: QWidget, new: NewWindow) -> None:
    """A matrix's view box on a tab not shown (the Matrices tab, where the test went on on
    the step-through) takes its new range when next painted (pyqtgraph's
    ViewBox.prepareForPaint); where a new window's had been painted, it takes it now, as
    that paint would."""
    for box in _items(win, pg.ViewBox):
        if _pending(box) and not new.pending.get(box, False):
            box.prepareForPaint()


def label_room(win: QWidget) -> dict:
    """The room each axis and colour bar of the matrices keeps for its labels, by item."""
    room = {axis: (axis.textWidth, axis.textHeight) for axis in _items(win, pg.AxisItem)}
    room.update({bar: (bar.minimumWidth(), bar.maximumWidth()) for bar in _items(win, ColorBar)})
    return room


def give_room_back(win: QWidget, new_room: dict) -> None:
    """An axis widens for longer labels at once but narrows only when they are 10 px shorter
    (pyqtgraph's AxisItem), and a colour bar only grows with its labels (ColorBar.set_levels):
    after a test's long token names or large values the default ones would sit in wider
    axes and bars than a new window's. They get back the room they had when new, once the
    default labels are drawn (drawn later, the test's labels would widen them again)."""
    now = label_room(win)
    for item, (a, b) in new_room.items():
        if now.get(item, (a, b)) == (a, b):
            continue
        if isinstance(item, ColorBar):
            item.setMinimumWidth(0)
            item.setMaximumWidth(b)
            item.setMinimumWidth(a)
        else:
            item.textWidth, item.textHeight = a, b
            item._adjustSize()


def tidy(win: QWidget) -> None:
    """Take away what a test left beside the window and a new window has not: a tooltip
    still shown (a child of the window until it fades), a dialog answered in place of a user
    (one until deleted), a matrix's right-click menu closed, Help > Keyboard Shortcuts'
    dialog and Edit > Check my numbers' (built when first opened and kept; the next test to
    open one gets a new one, as in a new window), the Open Recent items (filled each time it
    opens), a notice in the status bar. Qt deletes them so."""
    for tip in win.findChildren(QLabel, "qtooltip_label"):
        tip.close()
        tip.deleteLater()
    for dialog in win.findChildren(QDialog, options=Qt.FindChildOption.FindDirectChildrenOnly):
        if dialog.isHidden():
            dialog.deleteLater()
    # A matrix's right-click menu (ui/matrices/context_menu.py), closed: made anew on each
    # right-click, it stays a child of its view until the view goes.
    for view in win.findChildren(QGraphicsView):
        for menu in view.findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if menu.isHidden():
                menu.deleteLater()
    shortcuts = win.menus.shortcuts_dialog
    if shortcuts is not None and isValid(shortcuts):
        shortcuts.close()
        shortcuts.deleteLater()
    win.menus.shortcuts_dialog = None
    # Check my numbers: its dialog and its marks on the matrices, as Shortcuts' dialog.
    for name in ("check_dialog", "check_marks"):
        made = getattr(win.menus, name, None)
        if made is not None and isValid(made):
            if name == "check_dialog":
                made.close()
            else:
                made.clear()
            made.deleteLater()
        setattr(win.menus, name, None)
    win.files.recent_menu.clear()
    win.status_line.clear_notice()  # (the status bar's timer for it goes with it)
    collect_deleted()


def unstep(win: QWidget, first: dict) -> None:
    """Take away what the step-through built after `first` (`step_parts`): the
    softmax and mask panels (built when their stage is first shown) and the stage figure's
    plots beyond those it had then (its pool grows to the largest stage shown). A new
    window shown the step-through builds them again as they are needed. The plots are let
    go, not deleted: deleting a pyqtgraph plot the stage's rows have held crashed Qt at the
    next showing, and the app too keeps every plot it made for as long as it runs
    (StageFigure._plot)."""
    stepper = win.stepper
    for name in ("_softmax_panel", "_mask_panel"):
        panel = getattr(stepper, name)
        if panel is not None and first[name] is None:
            stepper.extras.removeWidget(panel)
            panel.deleteLater()
            setattr(stepper, name, None)
    figure = stepper.figure
    extra = figure._pool[first["pool"] :]
    if extra:
        if any(plot in figure.plots for plot in extra):
            # A larger stage is shown: it goes back to the first stage's plots first.
            stepper.set_stage(win.stepper.keys[0])
        del figure._pool[first["pool"] :]
    # Laid out afresh at the next showing, as when `stepped` was kept: a row of matrices
    # keeps what it measured of its plots, and laid out from that it places them a pixel
    # apart from where a fresh layout does.
    figure._layout_key = None
    collect_deleted()


def _no_cell_chosen(win: QWidget) -> None:
    for table in (win.editor.query_table, win.editor.kv_table):
        table.selectionModel().clearCurrentIndex()
        table.clearSelection()


def reset(win: QWidget, new: NewWindow, settled, wait_settled) -> None:
    """Bring `win` back to the default document and view, as File → New does with nothing to
    save, and what else a test may have changed to what it was when new (`new`): its size,
    the notice, the lesson, the tables' chosen cells, the focus, the text boxes' cursors, the
    room kept for labels (`tidy` came first). What this misses, `looks` finds."""
    # What the test's end posted first (the fit to a text size set back to normal by its
    # fixture's teardown, which narrows the controls' least width).
    settle()
    win.stepper.play_button.setChecked(False)
    win.stepper.column = None  # the cell a test chose at a stage
    win.editor._rng = None  # made when random values are first asked for, as in a new window
    if win.isFullScreen():
        win.set_full_screen(False)
    if not win.window_layout.side.isVisible():
        win.show_controls(True)
    if (win.width(), win.height()) != SIZE:
        win.resize(*SIZE)
    # The columns' widths: a larger text size widens the controls' column, which keeps
    # that width when the text is back to normal (as one the user gave it would be kept),
    # and its least width, measured by the window before the widgets had their normal
    # fonts back, is measured again as a new window measures it.
    layout = win.window_layout
    layout.fit_controls()
    if (layout.splitter.sizes(), layout.side.sizes(), layout._side_width) != new.splitters:
        layout.splitter.setSizes(new.splitters[0])
        layout.side.setSizes(new.splitters[1])
        layout._side_width = new.splitters[2]  # the width kept for F9 to show it again
    # Before the document's reset, where a table remembers its chosen cells for after its
    # model's reset.
    _no_cell_chosen(win)
    fresh = default_state()
    doc = win.doc
    if doc.pinned is not None:  # a new or opened session keeps A; a new window has none
        doc.pinned = None
        doc.pinnedChanged.emit()
    if doc.state() != fresh or doc.undo_stack.count() or not settled(win):
        doc.reset(fresh)
    win.apply_view(doc.view)
    win.files.path = None
    win.files.update_title()
    win._show_example(doc.config(), again=True)
    wait_settled(win)
    # Traces no longer shown go to the engine thread with the next request or after a pause
    # (`EngineBridge.release`): hand them over now, as that pause would.
    win.bridge._hand_over()
    _no_cell_chosen(win)  # a new picture chooses the followed query's row
    for table, (widths, heights) in new.sections.items():
        # Rows and columns sized for a larger text keep that size when it is back to
        # normal; a column widened by hand keeps its width (EmbeddingTable._size_cells).
        if _sections(table) != (widths, heights):
            for column, width in enumerate(widths):
                table.setColumnWidth(column, width)
            for row, height in enumerate(heights):
                table.setRowHeight(row, height)
    win.status_line.size_labels()  # the shapes' room only grows with longer shapes
    overflow = overflow_menu(win)
    if overflow.actions() != new.overflow and not overflow.isVisible():
        overflow.clear()  # (its own actions only: the menus' are the menus' children)
        overflow.addActions(new.overflow)
    give_room_back(win, new.room)
    for box, position in new.cursors.items():
        if box.cursorPosition() != position or box.hasSelectedText():
            box.deselect()
            box.setCursorPosition(position)
    focus = new.focus
    if QApplication.activeWindow() is not win and new.active:
        win.activateWindow()  # a dialog shown beside it took the keyboard
    if QApplication.focusWidget() is not focus:
        if focus is None:
            QApplication.focusWidget().clearFocus()
        else:
            focus.setFocus(Qt.FocusReason.ActiveWindowFocusReason)
    note = win.stepper.extras_left_out
    if note.isHidden() and (note.text() or note._height):
        # What a short window left out (see StageRoom._fit_extras), as the banner below.
        note.setText("")
        note.setToolTip("")
        note.setWordWrap(True)
        note._height = 0
        note.setMaximumHeight(QWIDGETSIZE_MAX)
    if win.stale_banner.isHidden():
        # (what it said stays in it, hidden, until it says something else)
        win.stale_banner.setText("")
        win.stale_banner.setToolTip("")


pool = WindowPool()
