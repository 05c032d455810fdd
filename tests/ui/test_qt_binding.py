"""Guards against a broken Qt binding: PySide6 6.12.0 on Python 3.11 dies after a few hundred
signal emits ("bool_dealloc: deallocating True or False") because every emit drops a reference
to True. pyproject excludes that release; this test fails fast if another one does the same."""

import sys

from PySide6.QtCore import QObject, Signal


class _Emitter(QObject):
    changed = Signal(object)


def test_emitting_signals_keeps_reference_counts(qapp):
    emitter = _Emitter()
    received = []
    emitter.changed.connect(received.append)
    before_true, before_none = sys.getrefcount(True), sys.getrefcount(None)
    for value in range(200):
        emitter.changed.emit(value)
    assert len(received) == 200
    assert sys.getrefcount(True) >= before_true - 5
    assert sys.getrefcount(None) >= before_none - 5
