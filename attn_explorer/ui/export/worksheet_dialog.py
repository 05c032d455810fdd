"""The Export Worksheet dialog: which arrays the learner computes, how many exercises, which
paper. Where the file goes is asked after it, in the usual save dialog."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from attn_explorer.engine import Trace
from attn_explorer.text.i18n import N_
from attn_explorer.text.titles import array_label
from attn_explorer.text.worksheet import blankable
from attn_explorer.ui.export.worksheet_files import MAX_VARIANTS
from attn_explorer.ui.i18n import tr as _tr

PAPER_CHOICES = {"a4": N_("A4"), "letter": N_("Letter")}
# Checked when the dialog opens: the weights and the context, the tutorials' hand exercise.
FIRST_CHOSEN = ("weights", "head_contexts")


class WorksheetDialog(QDialog):
    """Checkboxes for the arrays to blank, the number of exercises, the paper."""

    def __init__(self, trace: Trace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_tr("Export worksheet"))
        layout = QVBoxLayout(self)
        box = QGroupBox(_tr("Arrays the learner computes"))
        column = QVBoxLayout(box)
        self.boxes: dict[str, QCheckBox] = {}
        for name in blankable(trace):
            symbol, title = array_label(trace.config, name)
            shown = title if symbol in title else f"{title} {symbol}"
            check = QCheckBox(f"{shown}  ({name})")
            check.setChecked(name in FIRST_CHOSEN)
            check.toggled.connect(self._update)
            column.addWidget(check)
            self.boxes[name] = check
        layout.addWidget(box)
        form = QFormLayout()
        self.variants = QSpinBox()
        self.variants.setRange(0, MAX_VARIANTS)
        # 0 is this exercise itself; N, that many new ones (seeds and embeddings drawn anew).
        self.variants.setSpecialValueText(_tr("none: this exercise as it is"))
        self.variants.setToolTip(
            _tr(
                "Different exercises, one per learner: each its own seed and embeddings, "
                "each with its answer key"
            )
        )
        form.addRow(_tr("Variants:"), self.variants)
        self.paper = QComboBox()
        for key, name in PAPER_CHOICES.items():
            self.paper.addItem(_tr(name), key)
        form.addRow(_tr("Paper:"), self.paper)
        layout.addLayout(form)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(_tr("Choose File…"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self._update()

    def _update(self) -> None:
        """A worksheet with nothing to compute is no worksheet: OK waits for a checkbox."""
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.blanks()))

    def blanks(self) -> tuple[str, ...]:
        return tuple(name for name, box in self.boxes.items() if box.isChecked())

    def choices(self) -> tuple[tuple[str, ...], int, str]:
        """(the arrays to blank, the number of variants or 0, the paper)."""
        return self.blanks(), self.variants.value(), self.paper.currentData()
