"""What a test's window is brought back by before tests/ui/window_reuse.py checks its look:
the default document and view, and what else a test may have changed and File → New does not
bring back (the size, the columns, the focus, a dialog kept, what the step-through built, the
room kept for labels). What this misses, the look finds."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QGraphicsView,
    QLabel,
    QMenu,
    QToolButton,
    QWidget,
)
from shiboken6 import isValid

from attn_explorer.model.state import default_state
from attn_explorer.ui.heatmap import ColorBar
from tests.ui.window_look import _sections

if TYPE_CHECKING:
    from tests.ui.window_reuse import NewWindow

SIZE = (1500, 940)
QWIDGETSIZE_MAX = (1 << 24) - 1


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
