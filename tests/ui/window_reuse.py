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
reads is in tests/ui/window_look.py; what the reset brings back, in tests/ui/window_reset.py.
"""

from __future__ import annotations

import os

import pyqtgraph as pg
from PySide6.QtCore import (
    QLocale,
    QSettings,
)
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFileDialog,
    QInputDialog,
    QLineEdit,
    QMessageBox,
    QWidget,
)
from shiboken6 import isValid

from attn_explorer.text import i18n
from attn_explorer.ui import i18n as ui_i18n
from attn_explorer.ui import text_size as text_size_module
from tests.ui.window_look import (
    _sections,
    differences,
    identities,
    looks,
    parts,
    skeleton,
)
from tests.ui.window_reset import (
    _items,
    _pending,
    give_room_back,
    label_room,
    overflow_menu,
    paint_pending,
    settle,
    step_parts,
    tidy,
    unstep,
)

# Qt's dialogs, which tests answer in place of a user (tests/ui/conftest.py's
# `no_modal_dialogs` refuses the message boxes for every test): a window is built without
# them, and what a dialog leaves in a window shows in its look.
DIALOGS = (QMessageBox, QFileDialog, QInputDialog)

# ---------------------------------------------------------------------------- the pool


def environment() -> tuple:
    """What a window takes from around it when it is built: a new one built under another
    language (ours or Qt's words), text size, locale or direction would differ from the one
    kept."""
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
        qt_words(),
    )


def qt_words() -> str | None:
    """The file of Qt's own words in use (`use_language`; none in English and where only our
    catalogue was switched, as the `vietnamese` fixture does)."""
    words = ui_i18n._qt_words
    return None if words is None or words.translator is None else words.translator.filePath()


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


pool = WindowPool()
