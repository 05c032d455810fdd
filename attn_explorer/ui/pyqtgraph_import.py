"""Import pyqtgraph without making PySide6 create every class it has.

PySide6 creates a module's classes when they are first looked up. `pyqtgraph.Qt` keeps its own
copies of QtCore, QtGui and QtWidgets and fills them, as it is imported, with every name that
`dir()` lists in PySide6's modules (`_copy_attrs`), looking each up: that creates all of
PySide6's classes at once, about 0.25 s of CPU on two cores, of pyqtgraph's 0.5 s, before a
single one is used.

`load()` gives pyqtgraph copies that look a name up in PySide6's module when pyqtgraph first
asks for it, and while pyqtgraph is imported, PySide6's modules list only the classes they
have already created, so that `_copy_attrs` copies just those. Names set on a copy (pyqtgraph's
shims) stay on the copy, as they did. The installed pyqtgraph is not changed; where it is already
imported it is left as it is, and where this way fails it is imported again the usual way.
"""

from __future__ import annotations

import sys
import types
from typing import Any

MIRRORS = ("QtCore", "QtGui", "QtWidgets")


class _LazyMirror(types.ModuleType):
    """pyqtgraph's copy of one of PySide6's modules, each name looked up when first asked."""

    def __init__(self, name: str, source: types.ModuleType) -> None:
        super().__init__(name)
        self._source = source

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__") and name not in ("__version__",):
            raise AttributeError(name)
        value = getattr(self._source, name)
        setattr(self, name, value)
        return value

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(dir(self._source)))


def load() -> types.ModuleType:
    """pyqtgraph, imported the cheap way if it is not imported yet (see the module)."""
    if "pyqtgraph" in sys.modules:
        return sys.modules["pyqtgraph"]
    import importlib

    import PySide6.QtCore
    import PySide6.QtGui
    import PySide6.QtWidgets

    sources = {name: getattr(PySide6, name) for name in MIRRORS}
    saved = {name: module.__dict__.get("__dir__") for name, module in sources.items()}
    for name, module in sources.items():
        sys.modules[f"pyqtgraph.Qt.{name}"] = _LazyMirror(f"pyqtgraph.Qt.{name}", module)
        # Only the classes created so far: `_copy_attrs` copies these, the copy finds the rest.
        module.__dir__ = lambda module=module: list(module.__dict__)
    try:
        return importlib.import_module("pyqtgraph")
    except Exception:
        # A pyqtgraph this does not fit: forget what was half imported, import it as it is.
        for name in [m for m in sys.modules if m == "pyqtgraph" or m.startswith("pyqtgraph.")]:
            del sys.modules[name]
    finally:
        for name, module in sources.items():
            if saved[name] is None:
                module.__dict__.pop("__dir__", None)
            else:
                module.__dir__ = saved[name]
    return importlib.import_module("pyqtgraph")
