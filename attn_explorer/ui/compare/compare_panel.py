"""Beside the matrices while A is pinned: which side they show (A, B or B − A) and, in
sentences, what differs between A and B (`text.compare.summary_lines`)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QWidget,
)

from attn_explorer.engine.compare import Comparison
from attn_explorer.text.compare import summary_lines
from attn_explorer.ui.compare.side_panel import SidePanel
from attn_explorer.ui.i18n import tr as _tr

SIDES = ("a", "b", "diff", "trio")


class ComparePanel(SidePanel):
    """A, B and B − A as three buttons of which one is down, the summary under them."""

    sideChosen = Signal(str)
    unpinAsked = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = self.column
        row = QHBoxLayout()
        row.setSpacing(2)
        second = QHBoxLayout()  # the side by side view under the three
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QPushButton] = {}
        for side in SIDES:
            button = QPushButton()
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setCheckable(True)
            self.group.addButton(button)
            self.buttons[side] = button
            (second if side == "trio" else row).addWidget(button)
            button.clicked.connect(lambda _on=False, s=side: self.sideChosen.emit(s))
        layout.addLayout(row)
        layout.addLayout(second)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setWidget(self.summary)
        layout.addWidget(scroll, 1)
        self.unpin = QPushButton()
        self.unpin.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.unpin.clicked.connect(self.unpinAsked)
        layout.addWidget(self.unpin)
        self.lines: list[str] = []
        self.retranslate()
        self.show_side("b")

    def retranslate(self) -> None:
        self.title.setText(_tr("<b>Compare A with B</b>"))
        self.buttons["a"].setText("A")
        self.buttons["b"].setText("B")
        self.buttons["diff"].setText("B − A")
        self.buttons["trio"].setText(_tr("A | B | B − A"))
        self.buttons["trio"].setToolTip(_tr("One array of A, B and B − A side by side"))
        self.buttons["a"].setToolTip(_tr("Show A, the pinned configuration (Ctrl+D cycles)"))
        self.buttons["b"].setToolTip(_tr("Show B, the configuration now (Ctrl+D cycles)"))
        self.buttons["diff"].setToolTip(
            _tr("Show B − A: red where B is larger, blue where smaller (Ctrl+D cycles)")
        )
        self.unpin.setText(_tr("Unpin A"))

    def show_side(self, side: str) -> None:
        self.buttons[side].setChecked(True)

    def show_comparison(self, comparison: Comparison | None) -> None:
        """The summary of `comparison`, written in the language of now."""
        self.show_lines([] if comparison is None else summary_lines(comparison))

    def show_lines(self, lines: list[str]) -> None:
        """The summary's lines: the first two (settings, first stage) apart, then one line
        per array."""
        self.lines = lines
        self.summary.setText(
            "<br><br>".join(html.escape(line) for line in self.lines[:2])
            + ("<br><br>" if len(self.lines) > 2 else "")
            + "<br>".join(html.escape(line) for line in self.lines[2:])
        )
