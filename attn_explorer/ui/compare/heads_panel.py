"""Beside the all-heads grid: every head switched on or off, how a head is switched off, and
each head's importance as a bar chart, the most important first.

The panel only shows: the document holds the heads switched off (a control like any other,
undone with Ctrl+Z), the engine measures importance (`engine.heads.head_importance`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QLabel,
    QWidget,
)

from attn_explorer.engine import Trace
from attn_explorer.engine.heads import HeadImportance, head_importance
from attn_explorer.io import atomic
from attn_explorer.model.settings import SETTINGS
from attn_explorer.text.i18n import N_
from attn_explorer.text.numbers import num
from attn_explorer.ui.compare.side_panel import SidePanel
from attn_explorer.ui.editing.document import Document
from attn_explorer.ui.i18n import tr as _tr
from attn_explorer.ui.widgets import ShrinkButton, choice_box

MODES = [
    ("zeros", N_("Zeros (pruning)")),
    ("mean", N_("Mean over tokens (ablation)")),
]
MOST_HEADS = int(SETTINGS["num_heads"].range[1])
BAR_COLOUR = "#3b6ea8"
OFF_COLOUR = "#b8b8b8"  # a head switched off on screen: its bar greyed


class HeadsPanel(SidePanel):
    """Checkboxes of the heads, the way to switch one off, the importance chart."""

    def __init__(self, doc: Document, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.doc = doc
        self.importance: HeadImportance | None = None
        layout = self.column
        self.boxes_layout = QGridLayout()
        self.boxes_layout.setSpacing(2)
        layout.addLayout(self.boxes_layout)
        # Every head's box made once, those beyond the heads hidden: a window shows the same
        # widgets whatever number of heads it showed before.
        self.all_boxes: list[QCheckBox] = []
        for h in range(MOST_HEADS):
            box = QCheckBox()
            box.toggled.connect(lambda on, number=h + 1: self.switch(number, on))
            self.boxes_layout.addWidget(box, h // 2, h % 2)
            box.setVisible(False)
            self.all_boxes.append(box)
        self.boxes: list[QCheckBox] = []
        self.mode_label = QLabel()
        self.mode_label.setWordWrap(True)
        layout.addWidget(self.mode_label)
        self.mode = choice_box(MODES, shrink_to=8)
        layout.addWidget(self.mode)
        self.chart_title = QLabel()
        self.chart_title.setWordWrap(True)
        layout.addWidget(self.chart_title)
        self.chart = pg.PlotWidget(background="w")
        self.chart.setMenuEnabled(False)
        self.chart.setMouseEnabled(False, False)
        self.chart.hideButtons()
        self.chart.setMinimumHeight(90)
        self.bars = pg.BarGraphItem(x0=0, y=[], height=0.7, width=[])
        self.chart.addItem(self.bars)
        layout.addWidget(self.chart, 1)
        self.values = QLabel()
        self.values.setWordWrap(True)
        self.values.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.values)
        self.export_button = ShrinkButton("", "")  # its short text in a narrow window
        layout.addWidget(self.export_button)
        self.mode.activated.connect(
            lambda _index: self.doc.set_control("ablate_mode", self.mode.currentData())
        )
        self.export_button.clicked.connect(self._export_chosen)
        self.retranslate()
        self.sync()

    def retranslate(self) -> None:
        self.title.setText(_tr("<b>Heads on and off</b>"))
        self.title.setToolTip(
            _tr(
                "A head switched off leaves a gap in the concatenation: the output is "
                "computed without it."
            )
        )
        self.mode_label.setText(_tr("Switched off by"))
        for index, (_value, label) in enumerate(MODES):
            self.mode.setItemText(index, _tr(label))
        self.chart_title.setText(_tr("Importance: change of the output with the head alone off"))
        self.export_button.set_texts(_tr("Export importance…"), _tr("Export…"))
        for h, box in enumerate(self.all_boxes):
            box.setText(_tr("Head {0}").format(h + 1))
        self._write_values()

    # ------------------------------------------------------------------ from the document
    def sync(self) -> None:
        """The boxes and the mode as the document's controls have them."""
        c = self.doc.controls
        index = self.mode.findData(c.ablate_mode)
        if index >= 0 and index != self.mode.currentIndex():
            self.mode.setCurrentIndex(index)
        for h, box in enumerate(self.all_boxes):  # hidden ones too: the same in every window
            on = h + 1 not in c.ablate
            if box.isChecked() != on:
                box.blockSignals(True)
                box.setChecked(on)
                box.blockSignals(False)

    def set_heads(self, trace: Trace) -> None:
        """A box for each head of `trace`, checked where the head is on."""
        heads = trace.heads
        if len(self.boxes) != heads:
            self.boxes = self.all_boxes[:heads]
            for h, box in enumerate(self.all_boxes):
                box.setVisible(h < heads)
        self.sync()

    def set_trace(self, trace: Trace) -> None:
        """The heads of `trace`, and their importance measured on it."""
        self.set_heads(trace)
        self.importance = head_importance(trace)
        self._draw(trace)
        self._write_values()

    def switch(self, number: int, on: bool) -> None:
        """Switch head `number` (from 1) on or off, as one edit of the document."""
        off = set(self.doc.controls.ablate)
        off = off - {number} if on else off | {number}
        self.doc.set_control("ablate", tuple(sorted(off)))

    # ------------------------------------------------------------------ the chart
    def _draw(self, trace: Trace) -> None:
        found = self.importance
        if found is None:
            return
        order = found.ranking()
        count = len(order)
        shares = np.array([found.shares[h] for h in order]) * 100
        off = set(trace.config.ablate)
        colours = [OFF_COLOUR if h + 1 in off else BAR_COLOUR for h in order]
        # The most important head on top: bar i at height count − 1 − i.
        heights = np.arange(count)[::-1]
        self.bars.setOpts(
            x0=0, y=heights, height=0.7, width=shares, brushes=colours, pens=[None] * count
        )
        left = self.chart.getAxis("left")
        pairs = zip(heights, order, strict=True)
        ticks = [(int(y), _tr("head {0}").format(h + 1)) for y, h in pairs]
        left.setTicks([ticks])
        self.chart.getAxis("bottom").setLabel(_tr("% of the output's norm"))
        self.chart.setYRange(-0.5, count - 0.5, padding=0.05)
        self.chart.setXRange(0, max(float(shares.max()) if count else 1.0, 1.0), padding=0.05)

    def _write_values(self) -> None:
        found = self.importance
        if found is None:
            self.values.setText("")
            return
        lines = [
            _tr("head {0}: {1} ({2} %)").format(
                h + 1, num(found.norms[h]), f"{100 * found.shares[h]:.1f}"
            )
            for h in found.ranking()
        ]
        self.values.setText("\n".join(lines))

    # ------------------------------------------------------------------ export
    def export_importance(self, path: str | Path) -> Path:
        """Write the importance as JSON (heads from 1, the most important first) or, for a
        name ending in .csv, as CSV with a header row."""
        if self.importance is None:
            raise ValueError("no importance measured yet")
        path = Path(path)
        data = self.importance.as_dict()
        if path.suffix.lower() == ".csv":
            rows = ["head,norm,share"]
            rows += [f"{r['head']},{r['norm']!r},{r['share']!r}" for r in data["heads"]]
            return atomic.write_text(path, "\n".join(rows) + "\n")
        return atomic.write_text(path, json.dumps(data, indent=1) + "\n")

    def _export_chosen(self) -> None:
        from PySide6.QtWidgets import QFileDialog, QMessageBox

        path, _chosen = QFileDialog.getSaveFileName(
            self, _tr("Export importance"), "importance.json", _tr("JSON (*.json);;CSV (*.csv)")
        )
        if not path:
            return
        try:
            self.export_importance(path)
        except OSError as error:
            QMessageBox.warning(self, _tr("Export importance"), str(error))
