"""The Export Figure dialog: what, in which format, how large, where."""

from __future__ import annotations

import math
import os
from pathlib import Path

from PySide6.QtCore import QT_TR_NOOP
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from .figures import PNG_SCALES
from .i18n import tr as _tr

FORMAT_NAMES = {
    "png": QT_TR_NOOP("PNG image"),
    "svg": QT_TR_NOOP("SVG (vector)"),
    "pdf": QT_TR_NOOP("PDF (vector)"),
}


class ExportFigureDialog(QDialog):
    """Choose format, PNG scale (defaulting to the screen's pixel ratio), size and file."""

    def __init__(
        self,
        what: str,
        size: tuple[int, int],
        directory: Path,
        stem: str,
        all_stages: bool,
        pixel_ratio: float,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(_tr("Export all stages") if all_stages else _tr("Export figure"))
        self.all_stages = all_stages
        self.directory = directory
        form = QFormLayout(self)
        form.addRow(_tr("Figure:"), QLabel(what))
        self.format = QComboBox()
        for key, name in FORMAT_NAMES.items():
            self.format.addItem(_tr(name), key)
        if all_stages:
            self.format.setItemText(2, _tr("PDF, one page per stage"))
            self.format.setCurrentIndex(2)
        form.addRow(_tr("Format:"), self.format)
        self.scale = QComboBox()
        for scale in PNG_SCALES:
            self.scale.addItem(f"{scale}×", scale)
        # Honour the screen: a 2× display gets 2× PNGs unless asked otherwise.
        self.scale.setCurrentIndex(PNG_SCALES.index(default_scale(pixel_ratio)))
        self.scale.setToolTip(
            _tr(
                "PNG pixels per logical pixel: 2× and 4× are sharp on "
                "high-density screens and projectors."
            )
        )
        form.addRow(_tr("PNG scale:"), self.scale)
        size_row = QHBoxLayout()
        self.width = QSpinBox()
        self.height = QSpinBox()
        for spin, value in ((self.width, size[0]), (self.height, size[1])):
            spin.setRange(200, 8000)
            spin.setSingleStep(50)
            spin.setValue(value)
            spin.setSuffix(" px")
            size_row.addWidget(spin)
        form.addRow(_tr("Size (logical):"), size_row)
        path_row = QHBoxLayout()
        self.path = QLineEdit(str(directory / stem))
        # Wide enough for a usual folder and file name: the end of a path is what tells.
        self.path.setMinimumWidth(self.fontMetrics().horizontalAdvance("x" * 48))
        browse = QPushButton(_tr("Choose…"))
        browse.clicked.connect(self._browse)
        path_row.addWidget(self.path, 1)
        path_row.addWidget(browse)
        form.addRow(_tr("Save to:"), path_row)
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #b00020;")
        self.problem.setWordWrap(True)
        self.problem.hide()
        form.addRow(self.problem)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.format.currentIndexChanged.connect(self._format_chosen)
        self._format_chosen()

    def chosen_format(self) -> str:
        return self.format.currentData()

    def _format_chosen(self) -> None:
        fmt = self.chosen_format()
        self.scale.setEnabled(fmt == "png")
        text = self.path.text()
        path = Path(text)
        if not text.strip() or text.endswith(("/", os.sep)) or not path.name:
            return  # nothing to put an extension on: left as typed, refused on saving
        # Only a figure extension is swapped: "my.figures" is a name, not a format.
        if path.suffix.lower() in {f".{f}" for f in FORMAT_NAMES}:
            path = path.with_suffix("")
        folder = self.all_stages and fmt != "pdf"
        self.path.setText(str(path if folder else path.with_name(f"{path.name}.{fmt}")))

    def _browse(self) -> None:
        fmt = self.chosen_format()
        if self.all_stages and fmt != "pdf":
            chosen = QFileDialog.getExistingDirectory(
                self, _tr("Folder for the stages"), str(self.directory)
            )
        else:
            chosen, _ = QFileDialog.getSaveFileName(
                self, _tr("Export figure"), self.path.text(), f"{FORMAT_NAMES[fmt]} (*.{fmt})"
            )
        if chosen:
            self.path.setText(chosen)

    def accept(self) -> None:
        """Save only to a path that names what is written: a file for a figure (its typed
        extension choosing the format, as in a file dialog), a folder for stages as files."""
        text = self.path.text().strip()
        fmt = self.chosen_format()
        folder = self.all_stages and fmt != "pdf"
        if not text:
            self._refuse(_tr("Type where to save."))
            return
        if not folder and (text.endswith(("/", os.sep)) or Path(text).is_dir()):
            self._refuse(_tr("“{0}” is a folder: type a file name.").format(text))
            return
        typed = Path(text).suffix.lower().lstrip(".")
        if not folder and typed in FORMAT_NAMES and typed != fmt:
            self.format.setCurrentIndex(self.format.findData(typed))  # the name decides
        super().accept()

    def _refuse(self, message: str) -> None:
        self.problem.setText(message)
        self.problem.show()
        self.path.setFocus()

    def result_values(self) -> tuple[Path, str, int, tuple[int, int]]:
        return (
            Path(self.path.text()),
            self.chosen_format(),
            int(self.scale.currentData()),
            (self.width.value(), self.height.value()),
        )


def default_scale(pixel_ratio: float) -> int:
    """The smallest offered PNG scale that covers the screen's device pixel ratio."""
    return min((s for s in PNG_SCALES if s >= math.ceil(pixel_ratio)), default=PNG_SCALES[-1])
