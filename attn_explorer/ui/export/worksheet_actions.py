"""File → Export Worksheet…: the current settings as a printable exercise with its key.

`export_worksheet` asks (the arrays, the variants, the paper; then the file) and calls
`export_worksheet_to`, which the tests call directly. A refusal (a grid too large for the
paper, a folder that cannot take the file) is said in a dialog, in the window's language,
and nothing is written. The worksheet's dialog and its PDF code are imported when first used:
the File menu is built before the window's first paint, which needs neither.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from attn_explorer.engine import ARRAY_INFO, matching_preset
from attn_explorer.io.errors import cannot_write, shown_path
from attn_explorer.io.session import SessionError
from attn_explorer.text.examples import example_text
from attn_explorer.text.i18n import ngettext
from attn_explorer.ui.export.host import FileHost
from attn_explorer.ui.i18n import tr as _tr


class WorksheetActions:
    """The worksheet half of `FileActions`, which mixes it in (as `ExportActions`)."""

    window: FileHost
    path: Path | None

    if TYPE_CHECKING:

        def _error(self, title: str, message: str) -> None: ...

        def _busy(self, block: bool = False) -> AbstractContextManager[None]: ...

        def _directory(self) -> Path: ...

        def _stem(self) -> str: ...

        def _stale(self, title: str) -> bool: ...

        def _ask_where(
            self, title: str, start: Path, filters: str, failure: str
        ) -> tuple[Path, str] | None: ...

        def _may_add_extension(self, fmt: str, path: Path) -> bool: ...

    def export_worksheet(self) -> None:
        failure = _tr("Cannot export worksheet")
        if self.window.trace is None or self._stale(failure):
            return
        from attn_explorer.ui.export.worksheet_dialog import WorksheetDialog

        dialog = WorksheetDialog(self.window.trace, self.window)
        try:
            if not dialog.exec():  # cancelled
                return
            blanks, variants, paper = dialog.choices()
        finally:
            dialog.deleteLater()  # not one more child of the window per export
        chosen = self._ask_where(
            _tr("Export worksheet"),
            self._directory() / f"{self._stem()}-worksheet.pdf",
            _tr("PDF (*.pdf)"),
            failure,
        )
        if chosen is None or not self._may_add_extension("pdf", chosen[0]):
            return
        from attn_explorer.io.data_export import file_for

        self.export_worksheet_to(file_for(chosen[0], "pdf"), blanks, variants, paper)

    def _opens_itself(self) -> tuple[str, str]:
        """(what the sheet is made from, the command that opens it): an example by its name,
        a saved session by its file while unchanged; else no command, and a session is
        written beside the PDF."""
        from attn_explorer.ui.export.worksheet_files import command

        config = self.window.trace.config
        example = matching_preset(config)
        if example is not None:
            return example_text(example.name).title, command("--preset", example.name)
        if self.path is not None:
            source = shown_path(self.path.name)
            if self.window.doc.undo_stack.isClean():
                return source, command(str(self.path))
            return source, ""
        return "", ""

    def export_worksheet_to(
        self, path: Path, blanks: tuple[str, ...], variants: int = 0, paper: str = "a4"
    ) -> bool:
        """Write the worksheet of the current settings at `path` (and the sessions its
        exercises open from); False, having said why, where it cannot."""
        from attn_explorer.ui.export.worksheet_files import (
            WorksheetError,
            WorksheetRequest,
            make_worksheet,
        )
        from attn_explorer.ui.export.worksheet_pdf import WorksheetTooLargeError

        failure = _tr("Cannot export worksheet")
        if self._stale(failure):
            return False
        source, opens = self._opens_itself()
        request = WorksheetRequest(self.window.trace.config, blanks, variants, paper, source, opens)
        try:
            with self._busy():
                written = make_worksheet(request, Path(path))
        except (WorksheetError, WorksheetTooLargeError, SessionError) as error:
            self._error(failure, _sentence(str(error)))
            return False
        except OSError as error:
            sentence = _tr("Cannot write {0}: {1}.")
            in_the_way = _tr("a file of that name is in the way")
            said = cannot_write(error, path, sentence=sentence, in_the_way=in_the_way, lower=False)
            self._error(failure, said)
            return False
        if len(written) > 1:
            sessions = ngettext(
                "Exported worksheet {path} and the session of its exercise beside it",
                "Exported worksheet {path} and the sessions of its {count} exercises beside it",
                len(written) - 1,
            )
            self.window.notify(sessions.format(path=shown_path(written[0]), count=len(written) - 1))
        else:
            self.window.notify(_tr("Exported worksheet {0}").format(shown_path(written[0])))
        return True


def _sentence(text: str) -> str:
    """A refusal's clause as a sentence: capital first (not where it opens with an array's
    name, x or w_query, which a capital would make another), full stop last."""
    if text.split(" ", 1)[0] not in ARRAY_INFO:
        text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."
