"""File → Open Model…: a folder (the save_pretrained layout) or a hub name, opened through the
lens, and the model view shown beside the lab."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMenu, QMessageBox

from attn_explorer.lens.errors import LensError
from attn_explorer.ui.i18n import tr as _tr

# The main window (ui/main_window.py), not imported: it builds the menus that import this.
LabWindow = Any

if TYPE_CHECKING:
    from attn_explorer.ui.lens.model_window import ModelWindow

DEFAULT_TEXT = "Your journey starts with one step"


def open_model(
    window: LabWindow,
    source: str,
    text: str | None = None,
    device: str | None = None,
    wait: bool = False,
) -> ModelWindow:
    """Open `source` and show its model view; LensError with the sentence if it cannot be.
    `wait`: the first text's grid is drawn before this returns (see ModelWindow). A hub name
    not yet in the cache is downloaded behind the same dialog as File → Open Model by Name
    (bytes counted, Cancel stops it), this call waiting for it."""
    from attn_explorer.lens.download import cached
    from attn_explorer.lens.loading import is_folder_name, load
    from attn_explorer.ui.lens.model_window import ModelWindow

    if not is_folder_name(source) and cached(source) is None:
        loaded = _download_and_wait(window, source, device)
    else:
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            loaded = load(source, device)
        finally:
            QApplication.restoreOverrideCursor()
    view = ModelWindow(window, loaded, text or DEFAULT_TEXT, wait)
    window.model_view = view  # kept: a window without a reference would be collected
    view.show()
    return view


def _ask_and_open(window: LabWindow, by_name: bool) -> None:
    if by_name:
        source, ok = QInputDialog.getText(
            window,
            _tr("Open Model by Name"),
            _tr("A hub name such as gpt2 or bert-base-uncased (downloaded once):"),
        )
        if not ok or not source.strip():
            return
    else:
        source = QFileDialog.getExistingDirectory(window, _tr("Open Model Folder"))
        if not source:
            return
    open_in_background(window, source.strip())


class _Progress(QObject):
    """Carries the download's byte counts from its thread to the dialog's."""

    bytes = Signal(object, object)  # (done, total or None): Python ints, past 2**31


def megabytes(count: int) -> str:
    return f"{count / 1e6:.1f}"


def open_in_background(window: LabWindow, source: str) -> None:
    """Open `source` in a thread (a hub name may download for minutes) behind a progress dialog
    that counts the bytes downloaded and whose Cancel stops the download (`lens.download`);
    then show its model view."""
    from attn_explorer.ui.lens.model_window import ModelWindow

    def opened(loaded: object, error: str | None) -> None:
        if error is not None:
            QMessageBox.warning(window, _tr("Cannot open the model"), error)
            return
        view = ModelWindow(window, loaded, DEFAULT_TEXT)
        window.model_view = view
        view.show()

    _load_behind_dialog(window, source, None, opened)


def _download_and_wait(window: LabWindow, source: str, device: str | None) -> Any:
    """The model `source`, loaded behind the dialog while this waits in an event loop;
    LensError if it cannot be or is cancelled."""
    from PySide6.QtCore import QEventLoop

    loop = QEventLoop()
    outcome: dict[str, Any] = {}

    def opened(loaded: object, error: str | None) -> None:
        outcome.update(loaded=loaded, error=error)
        loop.quit()

    _load_behind_dialog(window, source, device, opened, on_cancel=opened)
    loop.exec()  # the job's end is a queued signal: it arrives inside this loop
    if outcome.get("error") is not None or outcome.get("loaded") is None:
        raise LensError(outcome.get("error") or _tr("Opening the model was cancelled."))
    return outcome["loaded"]


def _load_behind_dialog(
    window: LabWindow,
    source: str,
    device: str | None,
    opened: Callable[[Any, str | None], None],
    on_cancel: Callable[[Any, str | None], None] | None = None,
) -> None:
    """Start loading `source` in a thread behind the progress dialog; `opened(loaded, error)`
    when it ends, unless cancelled (then `on_cancel(None, None)` if given)."""
    from PySide6.QtWidgets import QProgressDialog

    from attn_explorer.lens.download import Transfer
    from attn_explorer.lens.loading import load
    from attn_explorer.ui.lens.runner import _Job

    dialog = QProgressDialog(
        _tr("Opening {model}… (a hub name is downloaded once, into the usual cache)").format(
            model=source
        ),
        _tr("Cancel"),
        0,
        0,
        window,
    )
    dialog.setWindowTitle(_tr("Open Model"))
    dialog.setMinimumDuration(0)
    dialog.setAutoReset(False)
    dialog.setAutoClose(False)
    progress = _Progress(dialog)
    transfer = Transfer(progress.bytes.emit)
    job = _Job(lambda: load(source, device, transfer=transfer), window)
    window.model_loader = job  # kept until it ends

    def counted(done: int, total: int | None) -> None:
        if transfer.cancelled:
            return
        if total:
            dialog.setMaximum(max(1, total // 1024))  # kB: a dialog counts in 32-bit ints
            dialog.setValue(min(done, total) // 1024)
            text = _tr("Downloading {model}: {done} MB of {total} MB").format(
                model=source, done=megabytes(done), total=megabytes(total)
            )
        else:
            text = _tr("Downloading {model}: {done} MB").format(model=source, done=megabytes(done))
        dialog.setLabelText(text)

    def cancel() -> None:
        transfer.cancel()  # the download raises from its next chunk, in its thread
        dialog.setLabelText(_tr("Stopping the download of {model}…").format(model=source))
        window.notify(_tr("Opening {model} was cancelled.").format(model=source))

    def ended(loaded: object, error: str | None) -> None:
        job.wait()
        dialog.reset()
        dialog.deleteLater()
        if not transfer.cancelled:
            opened(loaded, error)
        elif on_cancel is not None:
            on_cancel(None, None)

    progress.bytes.connect(counted)
    dialog.canceled.connect(cancel)
    job.finishedWith.connect(ended)
    job.start()
    dialog.show()


def add_model_actions(window: LabWindow, file_menu: QMenu) -> list[QAction]:
    """The File menu's two ways to open a model, before its Quit."""
    folder = QAction(_tr("Open &Model Folder…"), window)
    folder.triggered.connect(lambda: _ask_and_open(window, by_name=False))
    name = QAction(_tr("Open Model &by Name…"), window)
    name.triggered.connect(lambda: _ask_and_open(window, by_name=True))
    file_menu.addActions([folder, name])
    file_menu.addSeparator()
    return [folder, name]


def open_head(window: LabWindow, view: ModelWindow, spec: str, stage: str | None) -> None:
    """`--open-head LAYER:HEAD` (from 1): that head in the lab, on `stage` if one is given."""
    from dataclasses import replace

    from attn_explorer.lens.heads import check_head

    parts = spec.replace(",", ":").split(":")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise LensError(
            _tr("--open-head takes LAYER:HEAD, counted from 1, e.g. 1:3; not {spec}").format(
                spec=spec
            ),
            2,
        )
    layer, head = (int(p) for p in parts)
    assert view.model_run is not None
    check_head(view.model_run, layer, head)
    view.open_in_lab(layer - 1, head - 1)
    # Asked for on the command line, as a session named there is: nothing to save yet.
    window.doc.undo_stack.setClean()
    if stage:
        window.apply_view(replace(window.doc.view, tab="steps", stage=stage))


def save_model_view(app: QApplication, view: ModelWindow, path: str) -> int:
    """`--model … --screenshot OUT.png`: the model view, once drawn."""
    from PySide6.QtCore import QTimer

    from attn_explorer.io import atomic
    from attn_explorer.ui.export.render import encoded

    outcome = {"status": 1}

    def save() -> None:
        data = encoded(view.grab().toImage(), path.rsplit(".", 1)[-1].lower())
        if data is not None:
            atomic.write_bytes(path, data)
            outcome["status"] = 0
        app.exit(outcome["status"])

    QTimer.singleShot(300, save)
    app.exec()
    return outcome["status"]
