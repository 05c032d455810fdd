"""The Export Figure dialog: what, in which format, how large, where.

It stays open until the figure is written: a refused size or an unwritable folder is said in
the dialog, next to what caused it, instead of in a message box after everything chosen is
gone. The format, the PNG scale and the folder of the last export are remembered.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QWidget,
)

from attn_explorer.io.data_export import file_for
from attn_explorer.io.errors import shown_path
from attn_explorer.text.i18n import N_
from attn_explorer.ui.export.spec import PNG_SCALES
from attn_explorer.ui.export.stages import any_stage_file_names
from attn_explorer.ui.i18n import tr as _tr

FORMAT_NAMES = {
    "png": N_("PNG image"),
    "svg": N_("SVG (vector)"),
    "pdf": N_("PDF (vector)"),
}
SETTINGS_GROUP = "exportFigure"


class FigureChoice(NamedTuple):
    """A figure the dialog may save: its description, its default size, its file's stem."""

    what: str
    size: tuple[int, int]
    stem: str


# What the dialog writes: the chosen path, format, PNG scale and size; an error message or None.
Writer = Callable[[Path, str, int, tuple[int, int]], str | None]


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
        write: Writer | None = None,
        choices: Sequence[FigureChoice] = (),
    ) -> None:
        """`choices`: other figures offered in place of `what` (A, B and B − A while A is
        pinned), each with its own size and file name; `chosen_figure()` says which."""
        super().__init__(parent)
        self.setWindowTitle(_tr("Export all stages") if all_stages else _tr("Export figure"))
        self.all_stages = all_stages
        self.write = write
        remembered = QSettings()
        remembered.beginGroup(SETTINGS_GROUP)
        last_folder = Path(str(remembered.value("directory", "")))
        if last_folder.is_absolute() and _is_dir(last_folder):  # garbage is ignored
            directory = last_folder
        # Absolute: a session opened as "lessons/l1.json" gives the folder "lessons", and the
        # typed "lessons/l1-matrices.png" would then be saved in lessons/lessons.
        self.directory = directory = Path(os.path.abspath(directory))
        form = QFormLayout(self)
        self.choices = [FigureChoice(what, size, stem), *choices]
        self.figure_box: QComboBox | None = None
        if choices:
            self.figure_box = QComboBox()
            for choice in self.choices:
                self.figure_box.addItem(choice.what)
            form.addRow(_tr("Figure:"), self.figure_box)
        else:
            form.addRow(_tr("Figure:"), QLabel(what))
        self.format = QComboBox()
        for key, name in FORMAT_NAMES.items():
            self.format.addItem(_tr(name), key)
        if all_stages:
            self.format.setItemText(2, _tr("PDF, one page per stage"))
            self.format.setCurrentIndex(2)
        fmt_key = "stagesFormat" if all_stages else "format"
        last_format = self.format.findData(remembered.value(fmt_key, ""))
        if last_format >= 0:
            self.format.setCurrentIndex(last_format)
        form.addRow(_tr("Format:"), self.format)
        self.scale = QComboBox()
        for scale in PNG_SCALES:
            self.scale.addItem(f"{scale}×", scale)
        # Honour the screen: a 2× display gets 2× PNGs unless asked otherwise.
        self.scale.setCurrentIndex(PNG_SCALES.index(default_scale(pixel_ratio)))
        last_scale = self.scale.findData(_as_int(remembered.value("scale", 0)))
        if last_scale >= 0:
            self.scale.setCurrentIndex(last_scale)
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
        if self.figure_box is not None:
            self.figure_box.currentIndexChanged.connect(self._figure_chosen)

    def chosen_figure(self) -> int:
        """Which figure is chosen: 0 for `what`, i for the i-th of `choices`."""
        return 0 if self.figure_box is None else self.figure_box.currentIndex()

    def _figure_chosen(self, index: int) -> None:
        """The chosen figure's own size, and its file name in the folder typed."""
        choice = self.choices[index]
        self.width.setValue(choice.size[0])
        self.height.setValue(choice.size[1])
        typed = self.path.text().strip()
        folder = Path(typed).parent if typed else self.directory
        self.path.setText(str(folder / choice.stem))
        self._format_chosen()

    def chosen_format(self) -> str:
        return self.format.currentData()

    def _format_chosen(self) -> None:
        fmt = self.chosen_format()
        self.scale.setEnabled(fmt == "png")
        text = self.path.text().strip()  # " fig.svg " became " fig.svg .svg"
        path = Path(text)
        if not text or text.endswith(("/", os.sep)) or not path.name:
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
                self,
                _tr("Export figure"),
                str(self.target()),
                _tr(FORMAT_NAMES[fmt]) + f" (*.{fmt})",
                options=QFileDialog.Option.DontConfirmOverwrite,  # Save asks, once
            )
        if chosen:
            self.path.setText(chosen)

    def target(self) -> Path:
        """The typed path as it will be written: "~" expanded, and a bare name (or a relative
        path) in the dialog's folder, not in whatever folder the app was started from."""
        # os.path's expanduser leaves "~fig.png" (no such user) as typed; Path's raised.
        path = Path(os.path.expanduser(self.path.text().strip()))
        return path if path.is_absolute() else self.directory / path

    def accept(self) -> None:
        """Save only to a path that names what is written: a file for a figure (its typed
        extension choosing the format, as in a file dialog), a folder for stages as files.
        Whatever would be replaced is asked about first."""
        text = self.path.text().strip()
        fmt = self.chosen_format()
        folder = self.all_stages and fmt != "pdf"
        if not text:
            self._refuse(_tr("Type where to save."))
            return
        target = self.target()
        if "\0" in text:
            self._refuse(_tr("A file name cannot hold a NUL character."))
            return
        if not folder and (text.endswith(("/", os.sep)) or _is_dir(target)):
            self._refuse(_tr("“{0}” is a folder: type a file name.").format(text))
            return
        typed = target.suffix.lower().lstrip(".")
        if not folder and typed in FORMAT_NAMES and typed != fmt:
            self.format.setCurrentIndex(self.format.findData(typed))  # the name decides
            # For all stages, "steps.png" means a folder "steps" of PNG files.
            fmt, folder, target = typed, self.all_stages and typed != "pdf", self.target()
        if not folder and file_for(target, fmt) != target:
            # A PDF named "steps" would open in no viewer on a double click: the name gets
            # its format's extension, shown before anything is asked.
            self.path.setText(f"{text.rstrip('.')}.{fmt}")
            target = self.target()
        if not self._may_replace(target, fmt, folder):
            return
        if self.write is not None:
            problem = self.write(*self.result_values())
            if problem is not None:
                self._refuse(problem)
                return
        self._remember(target, fmt)
        super().accept()

    def _may_replace(self, target: Path, fmt: str, folder: bool) -> bool:
        if folder:
            existing = [name for name in any_stage_file_names(fmt) if _exists(target / name)]
            if not existing:
                return True
            if len(existing) == 1:
                text = _tr("The folder “{0}” already holds the stage file {1}. Replace it?")
            else:
                text = _tr("The folder “{0}” already holds {2} stage files ({1}, …). Replace them?")
            text = text.format(shown_path(target.name), existing[0], len(existing))
        else:
            if not _exists(target):
                return True
            text = _tr("“{0}” already exists in “{1}”. Replace it?").format(
                shown_path(target.name), shown_path(target.parent)
            )
        answer = QMessageBox.question(
            self,
            self.windowTitle(),
            text,
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    def _remember(self, target: Path, fmt: str) -> None:
        settings = QSettings()
        settings.beginGroup(SETTINGS_GROUP)
        settings.setValue("stagesFormat" if self.all_stages else "format", fmt)
        if fmt == "png":
            settings.setValue("scale", int(self.scale.currentData()))
        settings.setValue("directory", str(target.parent))

    def _refuse(self, message: str) -> None:
        self.problem.setText(message)
        self.problem.show()
        self.path.setFocus()

    def result_values(self) -> tuple[Path, str, int, tuple[int, int]]:
        return (
            self.target(),
            self.chosen_format(),
            int(self.scale.currentData()),
            (self.width.value(), self.height.value()),
        )


def default_scale(pixel_ratio: float) -> int:
    """The smallest offered PNG scale that covers the screen's device pixel ratio."""
    return min((s for s in PNG_SCALES if s >= math.ceil(pixel_ratio)), default=PNG_SCALES[-1])


def _exists(path: Path) -> bool:
    """Whether `path` exists; a name the system refuses (too long) does not, and writing it
    then says why in the dialog."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _as_int(value: object) -> int:
    """A number read back from settings (some back ends return it as text)."""
    try:
        return int(str(value))
    except ValueError:
        return 0
