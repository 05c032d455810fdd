"""Pinning what is on screen as A: an edit of the document like any other, so Ctrl+Z takes a
pin back (and Ctrl+Shift+Z gives it again) in the one history of the window's edits."""

from __future__ import annotations

from dataclasses import replace

from attn_explorer.model.state import ExplorerState
from attn_explorer.text.i18n import pgettext
from attn_explorer.ui.editing.document import Document
from attn_explorer.ui.editing.undo import record


class PinEdit:
    """A, pinned or unpinned: `old` and `new` are states (without a view) or None."""

    def __init__(self, doc: Document, old: ExplorerState | None, new: ExplorerState | None):
        self.doc, self.old, self.new = doc, old, new
        # What the undo history keeps alive: the pinned tables' numbers, about.
        rows = 0 if new is None else len(new.queries.embeddings) * (new.queries.d_in + 1)
        self.nbytes = 256 + 8 * rows * 2

    def apply(self) -> None:
        self._set(self.new)

    def revert(self) -> None:
        self._set(self.old)

    def _set(self, pinned: ExplorerState | None) -> None:
        self.doc.pinned = pinned
        self.doc.pinnedChanged.emit()


def pinned_part(state: ExplorerState) -> ExplorerState:
    """What A keeps of a state: its tables and controls, no view, nothing pinned in it."""
    return replace(state, pinned=None, view=type(state.view)())


def pin(doc: Document) -> None:
    """Pin the document's state as A (one undo step)."""
    new = pinned_part(doc.state())
    if new != doc.pinned:
        record(doc.undo_stack, pgettext("undo", "Pin as A"), [PinEdit(doc, doc.pinned, new)])


def unpin(doc: Document) -> None:
    """Forget A (one undo step)."""
    if doc.pinned is not None:
        record(doc.undo_stack, pgettext("undo", "Unpin A"), [PinEdit(doc, doc.pinned, None)])
