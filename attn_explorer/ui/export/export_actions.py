"""The File menu's exports: a figure, every stage, the data, a PyTorch script.

Each has a dialog-free method taking a path (`export_figure_to`, `export_stages_to`,
`export_data_to`, `export_script_to`), which the menu calls after asking and the tests call
directly. A refusal is said in a dialog, in the window's language, and nothing is written.

The figure code (dialog, layout, rendering, fonts) and the data and script writers are
imported when an export first needs them: the File menu is built before the window's first
paint, which needs none of them.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from attn_explorer.engine import STEP_KEYS, Trace
from attn_explorer.io import atomic
from attn_explorer.io.errors import cannot_write, missing_folder, shown_path
from attn_explorer.text.i18n import N_
from attn_explorer.text.problems import problem_text
from attn_explorer.ui.export.host import FileHost
from attn_explorer.ui.i18n import tr as _tr

if TYPE_CHECKING:
    from attn_explorer.ui.export.dialogs import FigureChoice
    from attn_explorer.ui.export.spec import FigureSpec


def export_figure(*args: Any, **kwargs: Any) -> Path:
    """`render.export_figure`, imported on first use (see the module)."""
    from attn_explorer.ui.export.render import export_figure as export

    return export(*args, **kwargs)


def export_all_stages(*args: Any, **kwargs: Any) -> list[Path]:
    """`stages.export_all_stages`, imported on first use (see the module)."""
    from attn_explorer.ui.export.stages import export_all_stages as export

    return export(*args, **kwargs)


DATA_FILTERS = {
    "npz": N_("NumPy archive, all arrays (*.npz)"),
    "json": N_("JSON, all arrays (*.json)"),
    "csv": N_("CSV, one file per matrix in a folder (*.csv)"),
    "npy": N_("NumPy, one file per array in a folder (*.npy)"),
}
# Offered too while A is pinned: both sides and their difference in one file.
COMPARE_FILTERS = {
    "npz": N_("NumPy archive of A, B and B − A (*.npz)"),
    "json": N_("JSON of A, B and B − A (*.json)"),
}


class ExportActions:
    """The export half of `FileActions`, which mixes it in and provides the window and the
    helpers it shares with the sessions (declared below for the reader and the type checker).
    """

    window: FileHost

    if TYPE_CHECKING:

        def _error(self, title: str, message: str) -> None: ...

        def _busy(self, block: bool = False) -> AbstractContextManager[None]: ...

        def _directory(self) -> Path: ...

        def _stem(self) -> str: ...

        def _confirm_replace(self, path: Path, title: str) -> bool: ...

    def export_figure(self) -> None:
        spec, what = self.window.current_figure()
        self._export_dialog(spec, what, all_stages=False)

    def export_stages(self) -> None:
        from attn_explorer.ui.export.spec import FigureSpec

        spec, _ = self.window.current_figure()
        stage_spec = FigureSpec("stage", "embeddings", spec.head or 0, spec.query)
        self._export_dialog(stage_spec, _tr("All ten stages of the step-through"), True)

    def _export_dialog(self, spec: FigureSpec, what: str, all_stages: bool) -> None:
        from attn_explorer.ui.export.dialogs import ExportFigureDialog

        trace = self.window.trace
        if trace is None:
            self._error(_tr("Nothing to export"), _tr("No picture has been computed yet."))
            return
        stem = self._stem() + ("-stages" if all_stages else f"-{spec.name or spec.kind}")
        compared = None if all_stages else self._comparison_choice()

        def write(path: Path, fmt: str, scale: int, size: tuple[int, int]) -> str | None:
            if all_stages:
                return self._write_stages(path, fmt, scale, size)
            if dialog.chosen_figure() == 1:
                return self._write(
                    path, lambda: self.window.compare.export_figure(path, fmt, scale, size)
                )
            return self._write_figure(path, spec, fmt, scale, size)

        dialog = ExportFigureDialog(
            what,
            spec.default_size(trace),
            self._directory(),
            stem,
            all_stages,
            self.window.devicePixelRatioF(),
            self.window,
            write=write,  # a refused size or folder is said in the dialog, which stays open
            choices=() if compared is None else (compared,),
        )
        dialog.exec()

    def _comparison_choice(self) -> FigureChoice | None:
        """While A is pinned (and small enough to compare live), the figure of A, B and B − A
        the Compare menu saves, offered beside the figure of what is on screen."""
        tools = self.window.compare
        if tools.comparison() is None:
            return None
        from attn_explorer.ui.export.dialogs import FigureChoice
        from attn_explorer.ui.export.spec import COMPARE_SIZE

        stem = f"{self._stem()}-compare-{tools.figure_array()}"
        return FigureChoice(tools.figure_what(), COMPARE_SIZE, stem)

    def export_figure_to(
        self,
        path: Path,
        spec: FigureSpec,
        fmt: str | None = None,
        scale: int = 1,
        size: tuple[int, int] | None = None,
    ) -> bool:
        problem = self._write_figure(path, spec, fmt, scale, size)
        if problem is not None:
            self._error(_tr("Cannot export figure"), problem)
        return problem is None

    def _write_figure(
        self,
        path: Path,
        spec: FigureSpec,
        fmt: str | None,
        scale: int,
        size: tuple[int, int] | None,
    ) -> str | None:
        return self._write(
            path, lambda: export_figure(self.window.trace, spec, path, fmt, scale, size)
        )

    def _write(self, path: Path, make: Callable[[], Path]) -> str | None:
        """Write a figure with `make()`; None, or why it could not be written."""
        problem = self._missing_folder(path)
        if problem is not None:
            return problem
        try:
            with self._busy(), self._figure_font():
                written = make()
        except (OSError, ValueError) as error:  # FigureError is one; so is a NUL in a name
            return _sentence(error, path)
        self.window.notify(_tr("Exported {0}").format(shown_path(written)))
        return None

    def export_stages_to(
        self, path: Path, fmt: str = "pdf", scale: int = 1, size: tuple[int, int] | None = None
    ) -> bool:
        problem = self._write_stages(path, fmt, scale, size)
        if problem is not None:
            self._error(_tr("Cannot export the stages"), problem)
        return problem is None

    def _write_stages(
        self, path: Path, fmt: str, scale: int, size: tuple[int, int] | None
    ) -> str | None:
        spec, _ = self.window.current_figure()
        problem = self._missing_folder(path)  # for PNG or SVG, the folder of the stages
        if problem is not None:
            return problem
        try:
            with self._busy(block=True), self._figure_font():  # ten figures: seconds at 4×
                written = export_all_stages(
                    self.window.trace, path, fmt, spec.head or 0, spec.query, scale, size
                )
        except (OSError, ValueError) as error:  # FigureError is one; so is a NUL in a name
            return _sentence(error, path)
        where = written[0] if fmt == "pdf" else Path(path)
        self.window.notify(
            _tr("Exported {0} stages to {1}").format(len(STEP_KEYS), shown_path(where))
        )
        return None

    def _figure_font(self) -> AbstractContextManager[str]:
        """The figures' own font while they are drawn, the window and the export dialog
        not repainted in it meanwhile (see `fonts.figure_font`)."""
        from attn_explorer.ui.export.fonts import figure_font

        return figure_font(still=(self.window, QApplication.activeModalWidget()))

    def _stale(self, title: str) -> bool:
        """Data and a script claim to be the computation of the settings: unless the picture
        is of the current settings, say why instead of writing older ones."""
        window = self.window
        if window.trace is not None and window.trace.config == window.doc.config():
            return False
        reason = problem_text(window.problems[0]) if window.problems else window.stale_reason
        if reason is None:
            text = _tr("The current settings are still being computed: export in a moment.")
        else:
            text = _tr(
                "The current settings cannot be computed: {0}\n\nThe matrices on screen are "
                "for the last settings that could be. Change the setting marked in red, or "
                "undo (Ctrl+Z), then export."
            ).format(reason)
        QMessageBox.critical(window, title, text)  # the status bar already names the problem
        return True

    def export_data(self) -> None:
        from attn_explorer.io import data_export

        if self.window.trace is None or self._stale(_tr("Cannot export data")):
            return
        compared = self.window.compare.comparison() is not None
        offered = [*DATA_FILTERS.values(), *(COMPARE_FILTERS.values() if compared else ())]
        filters = ";;".join(_tr(f) for f in offered)
        chosen = self._ask_where(
            _tr("Export data"),
            self._directory() / f"{self._stem()}-data.npz",
            filters,
            _tr("Cannot export data"),
        )
        if chosen is None:
            return
        path, chosen_filter = chosen
        # The typed name's extension decides, as for figures: "lesson.json" under the NPZ
        # filter is JSON, not a zip archive named .json.
        fmt = path.suffix.lower().lstrip(".")
        if compared and chosen_filter in [_tr(f) for f in COMPARE_FILTERS.values()]:
            if fmt not in COMPARE_FILTERS:
                fmt = next(k for k, f in COMPARE_FILTERS.items() if _tr(f) == chosen_filter)
            if self._may_add_extension(fmt, path):
                self.export_comparison_to(data_export.file_for(path, fmt), fmt)
            return
        if fmt not in DATA_FILTERS:
            fmt = next(k for k, f in DATA_FILTERS.items() if _tr(f) == chosen_filter)
        if fmt in ("csv", "npy"):
            path = data_export.folder_for(path, fmt)
        elif self._may_add_extension(fmt, path):
            path = data_export.file_for(path, fmt)
        else:
            return
        self.export_data_to(path, fmt)

    def _may_add_extension(self, fmt: str, path: Path) -> bool:
        """Whether to write `path` under its format's extension: "lesson" typed under the NPZ
        filter is written as lesson.npz, as the command line writes it (an archive named
        lesson would open with nothing on a double click). The file dialog asked about
        replacing the name typed, not this one: it is asked here."""
        from attn_explorer.io import data_export

        named = data_export.file_for(path, fmt)
        return (
            named == path
            or not named.exists()
            or self._confirm_replace(named, _tr("Replace file?"))
        )

    def _ask_where(
        self, title: str, start: Path, filters: str, failure: str
    ) -> tuple[Path, str] | None:
        """The path and the filter chosen in a save dialog, asked again (with the same name
        and filter) while the chosen folder does not exist; None if the dialog is cancelled.

        A missing folder is refused, as the command line refuses it, rather than made with
        every folder on the way ("lessons/week 3/x.csv" mistyped would scatter new folders).
        The refusal names it, and the dialog comes back with the name and type that were
        chosen, in the nearest folder that exists.
        """
        selected = ""
        while True:
            chosen, selected = QFileDialog.getSaveFileName(
                self.window, title, str(start), filters, selected
            )
            if not chosen:
                return None
            path = Path(chosen)
            problem = self._missing_folder(path)  # a CSV folder's parent is the file's
            if problem is None:
                return path, selected
            self._error(failure, problem)
            start = _nearest_folder(path.parent) / path.name

    @staticmethod
    def _missing_folder(path: Path) -> str | None:
        """Why `path` cannot be written because of its folder, in the window's language."""
        return missing_folder(
            path,
            missing=_tr("Cannot write {0}: the folder {1} does not exist."),
            not_a_folder=_tr("Cannot write {0}: {1} is a file, not a folder."),
        )

    def export_data_to(self, path: Path, fmt: str) -> bool:
        if self._stale(_tr("Cannot export data")):
            return False
        problem = self._missing_folder(path)  # for CSV and NPY, the folder filled
        if problem is not None:
            self._error(_tr("Cannot export data"), problem)
            return False
        from attn_explorer.io import data_export

        trace = self.window.trace
        writers = {
            "npz": data_export.write_npz,
            "json": data_export.write_json,
            "csv": data_export.write_csv,
            "npy": data_export.write_npy,
        }
        try:
            with self._busy():
                writers[fmt](self._complete(trace), Path(path))
        except OSError as error:
            self._error(_tr("Cannot export data"), _cannot_write(error, path))
            return False
        except ValueError as error:
            self._error(_tr("Cannot export data"), str(error))
            return False
        self.window.notify(_tr("Exported every array to {0}").format(shown_path(path)))
        return True

    def export_comparison_to(self, path: Path, fmt: str) -> bool:
        """A's arrays, B's and B − A (`io.compare_export`, as `export --compare` writes them)
        as npz or json."""
        from attn_explorer.io import compare_export

        title = _tr("Cannot export data")
        if self._stale(title):
            return False
        comparison = self.window.compare.comparison()
        problem = self._missing_folder(path)
        if comparison is None or problem is not None:
            self._error(title, problem or _tr("Pin A first (Ctrl+P)."))
            return False
        write = compare_export.write_npz if fmt == "npz" else compare_export.write_json
        try:
            with self._busy():
                write(comparison, Path(path), None)
        except OSError as error:
            self._error(title, _cannot_write(error, path))
            return False
        self.window.notify(_tr("Exported A, B and B − A to {0}").format(shown_path(path)))
        return True

    @staticmethod
    def _complete(trace: Trace) -> Trace:
        """The trace with both masking methods, as the command line's export writes it.

        Above a million weights the live window skips the comparison it does not show; an
        export of "every array" must not depend on the size.
        """
        if trace.config.has_mask and "weights_neg_inf" not in trace.arrays:
            from attn_explorer.engine import (
                compute,  # torch: never on the window's path to the screen
            )

            return compute(trace.config)
        return trace

    def export_script(self) -> None:
        from attn_explorer.io import data_export

        if self.window.trace is None or self._stale(_tr("Cannot export script")):
            return
        chosen = self._ask_where(
            _tr("Export PyTorch script"),
            self._directory() / f"{self._stem()}.py",
            _tr("Python script (*.py)"),
            _tr("Cannot export script"),
        )
        if chosen is not None and self._may_add_extension("py", chosen[0]):
            self.export_script_to(data_export.file_for(chosen[0], "py"))

    def export_script_to(self, path: Path) -> bool:
        if self._stale(_tr("Cannot export script")):
            return False
        problem = self._missing_folder(path)
        if problem is not None:
            self._error(_tr("Cannot export script"), problem)
            return False
        from attn_explorer.io import code_export

        try:
            atomic.write_text(path, code_export.pytorch_script(self.window.trace.config))
        except OSError as error:
            self._error(_tr("Cannot export script"), _cannot_write(error, path))
            return False
        self.window.notify(
            _tr("Wrote {0}: run it with python to print the same numbers").format(shown_path(path))
        )
        return True


def _sentence(error: Exception, path: Path) -> str:
    """A figure export's refusal as a sentence in the window's language."""
    if isinstance(error, OSError):
        return _cannot_write(error, path)
    # The figure code's refusals (`spec.FigureError`), said in the current language when
    # raised, as a clause the command line prints after "error: "; here a sentence.
    text = str(error)
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def _nearest_folder(path: Path) -> Path:
    """`path` or its nearest ancestor that is a folder: where a save dialog can open."""
    for folder in (path, *path.parents):
        if folder.is_dir():
            return folder
    return Path.home()


def _cannot_write(error: OSError, path: Path) -> str:
    return cannot_write(
        error,
        path,
        sentence=_tr("Cannot write {0}: {1}."),
        in_the_way=_tr("a file of that name is in the way"),
        lower=False,
    )
