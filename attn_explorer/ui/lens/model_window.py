"""The model view: a window beside the lab with every layer × head of a real model's attention
for the sentence typed in it, each head's summary under the pointer, and a click that opens that
head in the lab (the main window's Matrices and Step through then show its real numbers).

The grid is one pyqtgraph ImageItem (`attn_explorer.lens.grid`): 144 maps of a GPT-2 small are
one image, drawn in one paint. The model runs again a moment after the last keystroke
(`TYPING_PAUSE_MS`), in a thread, from the shown run: a GPT-2 reruns only the tokens after the
unchanged prefix, and a pass whose text was typed over stops at its next layer.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.lens.capture import ModelRun, run
from attn_explorer.lens.grid import Grid, grid
from attn_explorer.lens.lab import forget, prepare, prepare_head
from attn_explorer.lens.loading import LoadedModel
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.lens.figure import title
from attn_explorer.ui.lens.grid_keys import GridKeys
from attn_explorer.ui.lens.runner import ModelRunner

# The main window (ui/main_window.py), not imported: it builds the menus that import this.
LabWindow = Any

TYPING_PAUSE_MS = 200
POINTER_REST_MS = 60  # the pointer resting on a head this long: its layer is made ready


def head_summary(model_run: ModelRun, layer: int, head: int, by_keys: bool = False) -> str:
    """One line about a head (from 0), with its numbers, in the learner's language; how to open
    it by the pointer, or by the keys for a head the keyboard's frame is on (`by_keys`)."""
    s = model_run.summaries
    if by_keys:
        sentence = _tr(
            "Layer {layer}, head {head}: entropy {entropy:.2f} bits, looks back {back:.2f} "
            "tokens on average, weight on the previous token {previous:.2f}, on the first "
            "{first:.2f}. Press Enter to open it in the lab."
        )
    else:
        sentence = _tr(
            "Layer {layer}, head {head}: entropy {entropy:.2f} bits, looks back {back:.2f} "
            "tokens on average, weight on the previous token {previous:.2f}, on the first "
            "{first:.2f}. Click to open it in the lab."
        )
    return sentence.format(
        layer=layer + 1,
        head=head + 1,
        entropy=float(s.entropy[layer, head]),
        back=float(s.look_back[layer, head]),
        previous=float(s.previous[layer, head]),
        first=float(s.first[layer, head]),
    )


def layer_summary(model_run: ModelRun, layer: int) -> str:
    s = model_run.summaries
    return _tr(
        "Layer {layer}, mean over its heads: entropy {entropy:.2f} bits, previous token "
        "{previous:.2f}, first token {first:.2f}."
    ).format(
        layer=layer + 1,
        entropy=float(s.entropy[layer].mean()),
        previous=float(s.previous[layer].mean()),
        first=float(s.first[layer].mean()),
    )


class ModelWindow(QWidget):
    def __init__(self, lab: LabWindow, loaded: LoadedModel, text: str, wait: bool = False) -> None:
        """`wait`: run the first text on this thread, as the command line's screenshot and the
        tests want the grid there when the window is."""
        super().__init__(lab, Qt.WindowType.Window)
        self.lab = lab
        self.loaded = loaded
        self.model_run: ModelRun | None = None
        self.model_grid: Grid | None = None
        # The shown run and its grid, the next run's starting point (read off this thread).
        self.shown: tuple[ModelRun | None, Grid | None] = (None, None)
        self.setWindowTitle(_tr("Model view: {model}").format(model=loaded.name))
        self.text = QLineEdit(text)
        self.text.setPlaceholderText(_tr("Type a sentence for the model to read"))
        self.heading = QLabel()
        self.plot = pg.GraphicsLayoutWidget()
        self.plot.setBackground("w")
        self.axes = self.plot.addPlot(enableMenu=False)
        self.axes.hideButtons()
        self.axes.showAxis("top")
        self.axes.hideAxis("bottom")
        self.view = self.axes.getViewBox()
        self.view.setAspectLocked(True)
        self.view.invertY(True)
        self.view.setMouseEnabled(False, False)
        self.image = pg.ImageItem(axisOrder="row-major")
        self.view.addItem(self.image)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(self.heading)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.summary)
        buttons = QHBoxLayout()
        self.save_figure = QPushButton(_tr("Save &Figure…"))
        self.save_figure.clicked.connect(self._ask_figure)
        self.save_script = QPushButton(_tr("Save &Script of the Open Head…"))
        self.save_script.clicked.connect(self._ask_script)
        self.save_script.setEnabled(False)
        buttons.addWidget(self.save_figure)
        buttons.addWidget(self.save_script)
        from attn_explorer.ui.lens.importance_window import importance_button

        buttons.addWidget(importance_button(self))  # head importance, in a window of its own
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.opened: tuple[int, int] | None = None  # the head last opened in the lab
        self.timer = QTimer(self, singleShot=True, interval=TYPING_PAUSE_MS)
        self.timer.timeout.connect(self.rerun)
        self.text.textEdited.connect(lambda _text: self.timer.start())
        # The layer under a resting pointer, and those beside the head last opened, are made
        # ready on a thread (`lens.lab.prepare`) before the click that opens one of them.
        self.rest = QTimer(self, singleShot=True, interval=POINTER_REST_MS)
        self.rest.timeout.connect(self._prepare_pointed)
        self.pointed: tuple[int, int] | None = None  # (layer, head) under the pointer
        self.head_prepared: tuple | None = None  # (run, layer, head) last computed ahead
        self.beside: tuple[ModelRun | None, tuple[int, int] | None] = (None, None)
        lab.traceShown.connect(self._prepare_beside)
        self.plot.scene().sigMouseMoved.connect(self._hovered)
        self.plot.scene().sigMouseClicked.connect(self._clicked)
        # The keyboard's frame: its head is made ready as a pointed one is (`_aim`).
        self.keys = GridKeys(self.plot, self.view)
        self.keys.focusMoved.connect(self._framed)
        self.keys.chosen.connect(self.open_in_lab)
        self.retranslate()
        lab.languageChanged.connect(self.retranslate)
        self.resize(1000, 760)
        self.runner = ModelRunner(self._work, self)
        self.runner.done.connect(self.show_run)
        self.runner.failed.connect(self.summary.setText)
        if wait:
            self.show_run(self._work(text))
        else:
            self.rerun()

    def _work(self, text: str) -> tuple[ModelRun, Grid]:
        """Off the window's thread: the forward pass and the grid image."""
        shown_run, shown_grid = self.shown  # one read: the window's thread replaces the pair
        model_run = run(self.loaded, text, shown_run, self.runner.stale)
        return model_run, grid(model_run.weights, previous=shown_grid, keep=model_run.reused)

    def rerun(self) -> None:
        """Run the model on the text (in the runner's thread) and draw every layer × head."""
        self.heading.setText(_tr("Running {model}…").format(model=self.loaded.name))
        self.runner.ask(self.text.text())

    def closeEvent(self, event: object) -> None:
        from attn_explorer.ui.lens.importance_window import close_importance

        close_importance(self)
        self.timer.stop()
        self.rest.stop()  # no head of a closed view made ready after it
        self.runner.stop()
        if self.model_run is not None:
            forget(self.model_run)  # its layers' rows and any head computed ahead
        super().closeEvent(event)  # type: ignore[arg-type]

    def show_run(self, result: tuple[ModelRun, Grid]) -> None:
        if self.model_run is not None and self.model_run is not result[0]:
            forget(self.model_run)  # its layers' rows, freed off this thread
            self.beside = (None, None)
            self.head_prepared = None
        self.shown = result
        self.model_run, self.model_grid = result
        self.image.setImage(self.model_grid.image, autoLevels=False)
        self._label_axes(self.model_grid)
        self.view.autoRange(padding=0.01)
        self.keys.show_grid(self.model_grid)
        self.heading.setText(title(self.model_run))
        self.summary.setText(self.hint())

    @staticmethod
    def hint() -> str:
        return _tr(
            "Point at a head to read its summary; click it to open it in the lab. Or press Tab "
            "and move between the heads with the arrow keys; Enter opens the framed head."
        )

    def retranslate(self, _language: str = "") -> None:
        """The words this window says of its grid, in the language now chosen."""
        self.plot.setToolTip(
            _tr(
                "Click a head to open it in the lab. Keys: the arrows move the frame from head "
                "to head, Enter or Space opens the framed head, Home and End go to the first "
                "and last head of its layer, Page Up and Page Down to the first and last "
                "layer, Ctrl+Home and Ctrl+End to the first and last head of all."
            )
        )
        if self.model_run is None:
            return
        if self.plot.hasFocus():
            self._framed(*self.keys.focus)
        else:
            self.summary.setText(self.hint())

    def _label_axes(self, model_grid: Grid) -> None:
        """Layers down the left, heads along the top, at the middle of their maps."""
        middle = model_grid.tile / 2
        heads = [
            (model_grid.origin(0, h)[0] + middle, _tr("H{number}").format(number=h + 1))
            for h in range(model_grid.heads)
        ]
        layers = [
            (model_grid.origin(layer, 0)[1] + middle, _tr("L{number}").format(number=layer + 1))
            for layer in range(model_grid.layers)
        ]
        self.axes.getAxis("top").setTicks([heads])
        self.axes.getAxis("left").setTicks([layers])

    def _head_under(self, scene_pos: object) -> tuple[int, int] | None:
        if self.model_grid is None:
            return None
        point = self.image.mapFromScene(scene_pos)
        return self.model_grid.head_at(point.x(), point.y())

    def _hovered(self, scene_pos: object) -> None:
        found = self._head_under(scene_pos)
        if found is not None and self.model_run is not None:
            self._aim(*found)

    def _framed(self, layer: int, head: int) -> None:
        """The keyboard's frame moved onto a head: prepared and summed up as a pointed one."""
        if self.model_run is not None:
            self._aim(layer, head, by_keys=True)

    def _aim(self, layer: int, head: int, by_keys: bool = False) -> None:
        """A head pointed at or framed: its summary now, and once the pointer or the frame
        rests on it `POINTER_REST_MS`, its layer and trace made ready (`_prepare_pointed`);
        a frame walked over many heads by a held key prepares only the one it stops on."""
        assert self.model_run is not None
        self.pointed = (layer, head)
        self.rest.start()
        self.summary.setText(
            head_summary(self.model_run, layer, head, by_keys)
            + "\n"
            + layer_summary(self.model_run, layer)
        )

    def _prepare_pointed(self) -> None:
        """The layer and the head under the resting pointer: its rows made and its trace
        computed on the preparer's thread, so that a click draws it at once."""
        if self.pointed is not None and self.model_run is not None:
            layer, head = self.pointed
            prepare(self.model_run, [layer])
            # Once per head pointed at: a pointer nudged within the head's tile rests again,
            # and computing it again would push another ready trace out.
            key = (self.model_run, layer, head)
            if self.opened != self.pointed and key != self.head_prepared:
                self.head_prepared = key
                prepare_head(self.model_run, layer, head)

    def _prepare_beside(self, _trace: object = None) -> None:
        """Once the lab shows an opened head: the layers above and below it, the next ones a
        learner walking through the layers opens."""
        beside = (self.model_run, self.opened)
        if self.opened is not None and self.model_run is not None and beside != self.beside:
            self.beside = beside  # once per head opened, not on every slider move after it
            layer = self.opened[0]
            prepare(self.model_run, [layer + 1, layer - 1])

    def _clicked(self, event: object) -> None:
        found = self._head_under(event.scenePos())  # type: ignore[attr-defined]
        if found is not None:
            self.open_in_lab(*found)

    def open_in_lab(self, layer: int, head: int) -> None:
        """Head `head` of layer `layer` (from 0) as the lab's session, on its Matrices tab."""
        from attn_explorer.lens.lab import head_config
        from attn_explorer.model.state import ExplorerState

        assert self.model_run is not None
        config = head_config(self.model_run, layer, head)
        state = ExplorerState.from_config(config, view=self.lab.doc.view)
        label = _tr("Open layer {layer}, head {head} of {model}").format(
            layer=layer + 1, head=head + 1, model=self.loaded.name
        )
        self.lab.doc.load_state(state, label)
        self.opened = (layer, head)
        self.keys.put(layer, head)
        self.save_script.setEnabled(True)
        self.lab.show_tab(0)
        self.lab.notify(label)
        self.lab.raise_()
        self.lab.activateWindow()

    def _ask_figure(self) -> None:
        path, _filter = QFileDialog.getSaveFileName(
            self, _tr("Save Figure"), "model-view.png", "PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"
        )
        if path:
            self.write_figure(path)

    def write_figure(self, path: str) -> None:
        """The model view as png, svg or pdf (by the name's extension; png otherwise)."""
        from pathlib import Path

        from attn_explorer.ui.lens.figure import export_model_figure

        if self.model_run is None:
            return
        fmt = Path(path).suffix.lower().lstrip(".")
        if fmt not in ("png", "svg", "pdf"):
            fmt, path = "png", path + ".png"
        try:
            export_model_figure(self.model_run, Path(path), fmt)
        except OSError as error:
            QMessageBox.warning(self, _tr("Cannot save"), str(error))
            return
        self.lab.notify(_tr("Saved {path}").format(path=path))

    def _ask_script(self) -> None:
        path, _filter = QFileDialog.getSaveFileName(
            self, _tr("Save Script"), "head.py", "Python (*.py)"
        )
        if path:
            self.write_script(path)

    def write_script(self, path: str) -> None:
        """A PyTorch script that loads this model and prints the open head's numbers."""
        import math

        from attn_explorer.io import atomic
        from attn_explorer.io.model_script import model_script

        if self.opened is None or self.model_run is None:
            return
        layer, head = self.opened
        scale, temperature = self.loaded.scale_temperature(layer)
        divisor = (math.sqrt(self.loaded.d_head) if scale else 1.0) * temperature
        script = model_script(
            self.loaded.source,
            self.loaded.family,
            self.model_run.text,
            layer + 1,
            head + 1,
            self.loaded.causal,
            divisor,
        )
        try:
            atomic.write_text(path, script)
        except OSError as error:
            QMessageBox.warning(self, _tr("Cannot save"), str(error))
            return
        self.lab.notify(_tr("Saved {path}").format(path=path))
