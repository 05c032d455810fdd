"""The model runs off the window's thread: a forward pass of a GPT-2 small at 512 tokens takes
seconds on two cores, and typing must not wait for it.

`ModelRunner` runs one text at a time; a text asked for while one runs replaces any waiting one
and starts when it ends, so the newest text always wins and no more than one pass queues. The
work may ask `stale()` between layers and stop early (`lens.capture.SupersededError`): then
the newest text starts within a layer's time, not a whole pass's.
`ModelLoader` opens a model (a download, for a hub name) the same way, once. Both are QThreads
joined by `stop()`.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QThread, Signal

from attn_explorer.lens.errors import LensError


class _Job(QThread):
    finishedWith = Signal(object, object)  # (result or None, error message or None)

    def __init__(self, work, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.work = work

    def run(self) -> None:
        try:
            self.finishedWith.emit(self.work(), None)
        except LensError as error:
            self.finishedWith.emit(None, str(error))


class ModelRunner(QObject):
    """Runs `work(text)` in a thread; `done(result)` or `failed(message)` for the newest text."""

    done = Signal(object)
    failed = Signal(str)

    def __init__(self, work, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.work = work
        self.job: _Job | None = None
        self.waiting: str | None = None
        self.stopping = False

    def stale(self) -> bool:
        """Whether the text under way is no longer wanted (read from the job's thread)."""
        return self.waiting is not None or self.stopping

    @property
    def busy(self) -> bool:
        return self.job is not None

    def ask(self, text: str) -> None:
        if self.job is not None:
            self.waiting = text
            return
        self.job = _Job(lambda: self.work(text), self)
        self.job.finishedWith.connect(self._ended)
        self.job.start()

    def _ended(self, result: object, error: str | None) -> None:
        job, self.job = self.job, None
        if job is not None:
            job.wait()
            job.deleteLater()
        if self.waiting is not None:
            text, self.waiting = self.waiting, None
            self.ask(text)  # a newer text: this result is already stale
        elif error is not None:
            self.failed.emit(error)
        else:
            self.done.emit(result)

    def stop(self) -> None:
        """Stop a pass under way at its next layer, wait for it, and drop what it brings."""
        self.waiting = None
        self.stopping = True
        if self.job is not None:
            self.job.finishedWith.disconnect(self._ended)
            self.job.wait()
            self.job = None
        self.stopping = False
