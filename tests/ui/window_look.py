"""What `looks` reads of a main window, for tests/ui/window_reuse.py to tell whether a window
used by a test is, reset, as a new one: every object the window holds (by address), with
its Python attributes and how many slots its signals reach, and of every widget what it
shows, and the items drawn in its matrices."""

from __future__ import annotations

import enum
from pathlib import Path

import numpy as np
from PySide6.QtCore import (
    QMetaMethod,
    QObject,
    QRectF,
)
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QGraphicsView,
    QLabel,
    QLayout,
    QLineEdit,
    QStackedWidget,
    QStatusBar,
    QTabBar,
    QTableView,
    QTabWidget,
    QTextEdit,
    QWidget,
)
from shiboken6 import getCppPointer, isValid

from attn_explorer.engine import Trace

# Attributes that count what happened (computations, pictures drawn): a test reads them only
# as differences, and they go on counting in a window used again.
COUNTERS = {"_pictures", "_generation", "computations", "trims", "revision", "frame_revision"}
# The engine's timer that hands freed memory back, made when the first trace is dropped
# (every window's second picture).
MADE_ON_THE_WAY = {"_trim_timer"}
# Caches, filled as they are needed from what is shown (the widths of the values written in a
# matrix's cells, measured on paint; an axis's drawing, made again on its next paint where it
# was dropped; pyqtgraph's outline of a graphics widget, made from its bounds when first asked
# and dropped when they change; the height the projections' stage was last weighed to need,
# measured again each time before it is read; the glyph runs of a matrix's values, where
# their glyphs go, and a colour bar's gradient, made on paint and dropped when what they draw
# changes): a fuller one shows the same.
CACHES = {"_measured", "picture", "_painterPathCache", "_weights_need"}
CACHES |= {"_runs", "_placed", "_gradient"}
# pyqtgraph's weak reference to the view an item is drawn in, found when first asked for
# (GraphicsItem.getViewWidget) and found again when dropped.
CACHES |= {"_viewWidget"}
# A matrix's cells as the device pixels they are blitted as, made on paint for the place the
# view is painted at; the status bar's labels held at the size they were laid out at, let go
# on the next resize or change of font.
CACHES |= {"_device", "_held"}
LEFT_OUT = COUNTERS | MADE_ON_THE_WAY | CACHES
# Caches whose names other classes use for what they show, left out of one class's
# attributes only: a matrix cell image's `_grid`, where its cells' device pixels come from
# under the transform it was last painted under (worked out again when that changes; the
# sibling of its `_device`), where the board's `_grid` is its all-heads page.
# A matrix's values in two decimals, and the longest texts of each precision, are made where
# they are first needed (a cell too narrow for four decimals, the stage figure's widths):
# until then the two decimals are a function that writes them. The values themselves are
# in the four decimals, which are compared.
CACHES_OF = {"CellImage": LEFT_OUT | {"_grid"}, "CellTextItem": LEFT_OUT | {"_coarse", "_longest"}}
# Qt's animations of a style (a scroll bar fading), which end and delete themselves.
TRANSIENT = {"QPropertyAnimation"}

SIMPLE = (type(None), bool, int, float, str, bytes, Path, enum.Enum)

# ---------------------------------------------------------------------------- the look


def _address(obj: object) -> int:
    return getCppPointer(obj)[0]


def _rect(rect: object) -> tuple:
    return (rect.x(), rect.y(), rect.width(), rect.height())


_KINDS: dict[type, str] = {}
# The classes `_value` writes as themselves, for `_attributes` to pass their values through
# without a call: some 10,000 values a look, most of them plain.
_PLAIN: set[type] = set()


def _kind(kind: type) -> str:
    """How `_value` writes a value of class `kind` (looked up once per class: isinstance
    against Qt's classes is slow, and there are some 50,000 values in a look)."""
    found = _KINDS.get(kind)
    if found is None:
        if issubclass(kind, SIMPLE):
            found = "plain"
            _PLAIN.add(kind)
        elif issubclass(kind, (tuple, list)):
            found = "sequence"
        elif issubclass(kind, QObject):
            found = "qobject"
        elif issubclass(kind, Trace):
            found = "trace"
        elif any("__call__" in vars(base) for base in kind.__mro__):  # callable instances
            found = "callable"
        else:
            found = "object"
        _KINDS[kind] = found
    return found


def _value(value: object, depth: int = 0) -> object:
    """A plain value as itself; a Qt object by its address; a trace by its settings and
    arrays (one computed again is a new object of the same numbers); anything else by its
    type."""
    kind = _KINDS.get(type(value)) or _kind(type(value))
    if kind == "plain":
        return value
    if kind == "sequence" and depth < 2:
        plain = _PLAIN
        return (
            type(value).__name__,
            tuple(v if type(v) in plain else _value(v, depth + 1) for v in value),
        )
    if kind == "qobject":
        return ("qobject", _address(value) if isValid(value) else None)
    if kind == "callable":
        return ("callable", id(value))
    if kind == "trace":
        return ("trace", value.config, tuple(sorted(value.arrays)))
    return ("object", type(value).__name__)


def _attributes(obj: object) -> dict:
    plain, left_out = _PLAIN, CACHES_OF.get(type(obj).__name__, LEFT_OUT)
    return {
        key: value if type(value) in plain else _value(value)
        for key, value in vars(obj).items()
        if key not in left_out
    }


def parts(win: QWidget) -> dict:
    """The attributes of the window and of the parts tests reach into: one replaced (a test
    that monkeypatched a method, or swapped a widget) makes another window."""
    named = {"window": win}
    for name in (
        "doc",
        "bridge",
        "board",
        "stepper",
        "controls",
        "editor",
        "files",
        "menus",
        "window_layout",
        "status_line",
    ):
        named[name] = getattr(win, name, None)
    named["worker"] = getattr(named["bridge"], "_worker", None)
    return {name: _attributes(obj) for name, obj in named.items() if obj is not None}


def identities(attributes: dict) -> dict:
    """Of `parts`, which attributes there are and the objects among them (a test's monkeypatch
    or a widget swapped), leaving out plain values, which the reset brings back."""
    return {
        name: {
            key: value
            for key, value in values.items()
            if isinstance(value, tuple) and value[:1] in (("qobject",), ("callable",))
        }
        | {"keys": tuple(values)}
        for name, values in attributes.items()
    }


_READERS: dict[type, tuple] = {}


def _readers(kind: type) -> tuple:
    """What to read of a widget of class `kind` beyond what every widget has (looked up once
    per class: isinstance against Qt's classes is slow)."""
    found = _READERS.get(kind)
    if found is None:
        found = tuple(
            read
            for base, read in (
                ((QLabel, QAbstractButton, QLineEdit), lambda w: w.text()),
                (QLineEdit, lambda w: (w.selectedText(), w.cursorPosition())),
                (QTableView, _sections),
                (QAbstractButton, lambda w: w.isChecked()),
                (QTextEdit, lambda w: w.toPlainText()),
                (QComboBox, lambda w: (w.currentIndex(), w.count(), w.currentText())),
                ((QTabWidget, QStackedWidget, QTabBar), lambda w: (w.currentIndex(), w.count())),
                (QTabBar, lambda w: tuple(w.tabText(i) for i in range(w.count()))),
                (QAbstractSlider, lambda w: (w.value(), w.minimum(), w.maximum())),
                (QAbstractSpinBox, lambda w: w.text()),
                (QAbstractItemView, _item_view),
                (QGraphicsView, _scene),
            )
            if issubclass(kind, base)
        )
        _READERS[kind] = found
    return found


def _item_view(view: QAbstractItemView) -> tuple:
    model, selection, current = view.model(), view.selectionModel(), view.currentIndex()
    return (
        model.rowCount() if model else None,
        model.columnCount() if model else None,
        (current.row(), current.column()),
        tuple(sorted((i.row(), i.column()) for i in selection.selectedIndexes()))
        if selection
        else (),
    )


_FROM_QT: dict[type, bool] = {}


def _from_qt(kind: type) -> bool:
    found = _FROM_QT.get(kind)
    if found is None:
        found = _FROM_QT[kind] = kind.__module__.startswith(("PySide6", "shiboken6"))
    return found


def _python_state(obj: object) -> object:
    """The attributes a Python class (ours, pyqtgraph's) keeps on an object; none for Qt's."""
    if _from_qt(type(obj)):
        return None
    try:
        return _attributes(obj)
    except TypeError:  # no __dict__
        return None


# Qt's own signals a test may connect to; every signal a Python class (ours, pyqtgraph's)
# declares is counted as well.
QT_SIGNALS = {
    "activated",
    "clicked",
    "currentChanged",
    "currentIndexChanged",
    "textChanged",
    "toggled",
    "triggered",
    "valueChanged",
}
_SIGNALS: dict[type, tuple[str, ...]] = {}


def _signals(obj: QObject) -> tuple[str, ...]:
    """The signals of `obj` whose connections `looks` counts, by class."""
    found = _SIGNALS.get(type(obj))
    if found is None:
        meta = obj.metaObject()
        qt = meta
        while qt is not None and not _from_qt_name(qt.className()):
            qt = qt.superClass()
        own = qt.methodCount() if qt is not None else 0
        found = tuple(
            "2" + bytes(method.methodSignature()).decode()
            for method in (meta.method(i) for i in range(meta.methodCount()))
            if method.methodType() == QMetaMethod.MethodType.Signal
            and (method.methodIndex() >= own or bytes(method.name()).decode() in QT_SIGNALS)
        )
        _SIGNALS[type(obj)] = found
    return found


def _from_qt_name(name: str) -> bool:
    return name.startswith("Q")


def connections(obj: QObject) -> tuple[int, ...]:
    """How many slots each counted signal of `obj` reaches: a test's lambda left connected
    to a window's signal would run in every later test."""
    return tuple(obj.receivers(signal) for signal in _signals(obj))


def _sections(table: QTableView) -> tuple:
    """The widths of a table's columns and heights of its rows (a test may drag them)."""
    model = table.model()
    if model is None:
        return ()
    return (
        tuple(table.columnWidth(c) for c in range(model.columnCount())),
        tuple(table.rowHeight(r) for r in range(model.rowCount())),
    )


# Of each class of graphics item: whether it is a QObject (its signals are counted), and
# whether it has a text of its own (looked up once per class: some 300 items a look).
_ITEM_KINDS: dict[type, tuple[bool, bool]] = {}


def _item_kind(kind: type) -> tuple[bool, bool]:
    found = _ITEM_KINDS.get(kind)
    if found is None:
        found = _ITEM_KINDS[kind] = (issubclass(kind, QObject), hasattr(kind, "toPlainText"))
    return found


def _scene(view: QGraphicsView) -> tuple:
    scene = view.scene()
    if scene is None:
        return ()
    items = []
    for item in scene.items():
        kind = type(item)
        qobject, has_text = _ITEM_KINDS.get(kind) or _item_kind(kind)
        bounds = item.boundingRect()
        pos = item.pos()
        entry = [
            kind.__name__,
            item.isVisible(),
            (pos.x(), pos.y()),
            _rect(bounds) if isinstance(bounds, QRectF) else None,
            item.zValue(),
            _python_state(item),
            connections(item) if qobject else (),
        ]
        if has_text:
            entry.append(item.toPlainText())
        matrix = getattr(item, "matrix", None)
        if isinstance(matrix, np.ndarray):
            entry.append((matrix.shape, matrix.tobytes()))
        items.append(tuple(entry))
    return tuple(items)


def _widget(widget: QWidget) -> tuple:
    """Hidden, a widget keeps the size and place it had when last shown, and is laid out
    again when shown: they are left out."""
    look = [
        widget.isHidden(),
        widget.isEnabled(),
        _rect(widget.geometry()) if widget.isVisible() else None,
        widget.toolTip(),
        widget.font().pointSizeF(),
        widget.hasFocus(),
    ]
    look.extend(read(widget) for read in _readers(type(widget)))
    return tuple(look)


def counted_objects(win: QWidget) -> list[QObject]:
    """The window and the objects it holds, but those that come and go by themselves."""
    everything = win.findChildren(QObject)
    # A label that once showed rich text keeps the document it laid it out in; its text is
    # what it shows.
    label_texts = {
        _address(inner)
        for label in everything
        if isinstance(label, QLabel)
        for control in label.children()
        if not isinstance(control, QWidget)
        for inner in (control, *control.findChildren(QObject))
    }
    return [
        obj
        for obj in (win, *everything)
        if type(obj).__name__ not in TRANSIENT and _address(obj) not in label_texts
    ]


_LAYOUTS: dict[type, bool] = {}


def _key(obj: QObject) -> object:
    """How `looks` and `skeleton` know `obj`: by its address, but the box layouts a status
    bar lays its widgets out in, which Qt deletes and makes anew, of the same shape, each
    time the status bar is laid out again (QStatusBar::reformat: a widget added, or a new
    text size): those by where they sit under their status bar."""
    kind = type(obj)
    layout = _LAYOUTS.get(kind)
    if layout is None:
        layout = _LAYOUTS[kind] = issubclass(kind, QLayout)
    if layout:
        path = []
        parent = obj
        while isinstance(parent, QLayout):
            up = parent.parent()
            path.append([c for c in up.children() if isinstance(c, QLayout)].index(parent))
            parent = up
        if isinstance(parent, QStatusBar):
            return ("status bar layout", _address(parent), tuple(path))
    return _address(obj)


def skeleton(win: QWidget) -> tuple:
    """Which objects the window holds and how many items each of its views draws, which no
    reset changes back (a panel or grid built, a stage drawn): checked before one is tried."""
    views = win.findChildren(QGraphicsView)
    return (
        frozenset(_key(obj) for obj in counted_objects(win)),
        {_address(view): len(view.scene().items()) if view.scene() else 0 for view in views},
    )


def looks(win: QWidget) -> dict:
    """Everything of `win` a test could read that a reset must bring back (the engine's
    times in the status bar aside): every object it holds, by address, with its attributes
    and, for a widget, what it shows."""
    skip = _address(win.time_text)
    objects = {}
    for obj in counted_objects(win):
        kind = type(obj)
        look = (kind.__name__, obj.objectName(), connections(obj))
        if _address(obj) != skip:
            look += (_python_state(obj),)
            if isinstance(obj, QWidget):
                look += _widget(obj)
        objects[_key(obj)] = look
    return {
        "window": (
            win.isVisible(),
            win.windowState(),
            _rect(win.geometry()),
            win.windowTitle(),
            win.isWindowModified(),
        ),
        "objects": objects,
        "parts": parts(win),
    }


def differences(a: object, b: object, path: str = "") -> list[str]:
    """Where two looks differ, for a message (none: they are equal)."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            gone = sorted(str(a[k])[:80] for k in a.keys() - b.keys())
            new = sorted(str(b[k])[:80] for k in b.keys() - a.keys())
            return [f"{path}: only before {gone}, only after {new}"]
        return [d for k in a for d in differences(a[k], b[k], f"{path}[{k}]")]
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        pairs = enumerate(zip(a, b, strict=True))
        return [d for i, (x, y) in pairs for d in differences(x, y, f"{path}.{i}")]
    return [f"{path}: {a!r:.200} != {b!r:.200}"]
