"""The open document: both embedding tables, the controls, and one undo stack for all edits.

Widgets never hold state of their own: they show the document and ask it for changes, which
become QUndoCommands. Consecutive moves of the same control within a second merge into one
undo step, so dragging a slider is undone in one Ctrl+Z.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoStack

from attn_explorer.engine import AttentionConfig
from attn_explorer.model.state import MAX_DIMS, Controls, ExplorerState
from attn_explorer.text.i18n import N_, pgettext
from attn_explorer.ui.editing.embedding_model import EmbeddingTableModel
from attn_explorer.ui.editing.undo import group_steps, record
from attn_explorer.ui.i18n import tr as _tr

MERGE_SECONDS = 1.0
# Deep enough for any lesson; the history is also bounded in bytes (see undo.py).
UNDO_LIMIT = 1000


# What the Edit menu's "Undo …" calls each control: the words on the controls, not field names.
CONTROL_NAMES = {
    "projection": N_("projection"),
    "d_out": N_("d_out"),
    "num_heads": N_("heads"),
    "head_layout": N_("head layout"),
    "out_proj": N_("output projection"),
    "qkv_bias": N_("q/k/v bias"),
    "causal": N_("causal mask"),
    "mask_method": N_("mask method"),
    "mask_before_scaling": N_("masking before scaling"),
    "padding": N_("padding"),
    "valid_len": N_("valid length"),
    "scale": N_("division by √d_k"),
    "temperature": N_("temperature"),
    "dropout": N_("dropout p"),
    "training": N_("training mode"),
    "seed": N_("seed"),
    "cross": N_("cross-attention"),
    "reseed_dropout": N_("reseeding before dropout"),
    "dropout_seed": N_("dropout seed"),
    "ablate": N_("heads switched off"),
    "ablate_mode": N_("how heads are switched off"),
}


def undo_text(name: str | None, new: Controls) -> str:
    """The undo step's name: "Change heads", "Turn on causal mask", or "Change settings"
    for several controls at once.

    Every step's name is looked up in the context "undo": it follows the Edit menu's
    "Undo"/"Redo" ("&Undo Change heads"), so a language may write it as the second half of a
    sentence ("Hoàn tác thay đổi số đầu"), unlike the same words on a button."""
    if name is None:
        return pgettext("undo", "Change settings")
    label = _tr(CONTROL_NAMES[name])
    value = getattr(new, name)
    if isinstance(value, bool):
        turned = pgettext("undo", "Turn on {0}") if value else pgettext("undo", "Turn off {0}")
        return turned.format(label)
    return pgettext("undo", "Change {0}").format(label)


def with_control(controls: Controls, name: str, value: object) -> Controls:
    """`replace(controls, name=value)`, at a tenth of its cost.

    A dragged slider or a scripted sweep sends up to a thousand changes a second, each a new
    Controls. `dataclasses.replace` passes all its fields through `__init__` again (8-13 µs
    here, against 1 µs); copying the fields and setting the one that changed gives the same
    frozen value (equal, same hash). Controls has no `__post_init__` to run: where one
    appears, `replace` is used.
    """
    if _CONTROLS_CHECKED:
        return replace(controls, **{name: value})
    new = object.__new__(Controls)
    new.__dict__.update(controls.__dict__)
    object.__setattr__(new, name, value)
    return new


# Controls checks its values as it is made: copying its fields would skip that.
_CONTROLS_CHECKED = hasattr(Controls, "__post_init__") or hasattr(Controls, "__slots__")


class Document(QObject):
    """Everything the learner edits; emits `changed` whenever the engine's input may differ.

    A change of several parts (an opened file, a loaded example, a dimension added to both
    tables) emits `changed` once, when every part is in: the engine and the problems banner
    never see the tables of one state with the controls of another.
    """

    changed = Signal()
    controlsChanged = Signal()  # controls changed by undo/redo/load: widgets must re-sync
    queryFollowed = Signal(int)  # the followed query's row moved with its token (or back)
    weightsShownChanged = Signal(str)  # which weights the matrices show, set by a load or undo
    pinnedChanged = Signal()  # what is pinned as A (ui/compare), by a pin, an undo or a file

    def __init__(self, state: ExplorerState, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self.undo_stack.setUndoLimit(UNDO_LIMIT)
        self.queries = EmbeddingTableModel(self.undo_stack, _tr("Queries"), self)
        self.kv = EmbeddingTableModel(self.undo_stack, _tr("Keys & values"), self)
        self._controls = state.controls
        self.view = state.view
        self.given = state.given  # a real head's weights, opened from the model view
        self.pinned = state.pinned  # A, to compare with (ui/compare/pin.py edits it)
        self._parts_open = 0  # depth of `_whole_change`s under way
        self._part_changed = False  # a part changed inside them: emit `changed` at their end
        self.queries.restore(state.queries)
        self.kv.restore(state.kv or state.queries)
        self.queries.follow_rows = self._follow_query
        self.queries.sequenceChanged.connect(self._changed_part)
        self.kv.sequenceChanged.connect(self._changed_part)
        group_steps(self.undo_stack, self._whole_change)
        self.undo_stack.setClean()

    # ------------------------------------------------------------------ reading
    @property
    def controls(self) -> Controls:
        return self._controls

    def state(self) -> ExplorerState:
        return ExplorerState(
            queries=self.queries.sequence(),
            kv=self.kv.sequence(),
            controls=self._controls,
            view=self.view,
            given=self.given,
            pinned=self.pinned,
        )

    def config(self) -> AttentionConfig:
        return self.state().config()

    # ------------------------------------------------------------------ editing
    def set_control(self, name: str, value: object) -> None:
        """Change one control (undoable; quick repeats on the same control merge)."""
        if getattr(self._controls, name) == value and type(getattr(self._controls, name)) is type(
            value
        ):
            return
        new = with_control(self._controls, name, value)
        if not self._merge_into_top(new, name):
            self._record_controls(new, name)

    def _record_controls(self, new: Controls, name: str | None) -> None:
        edit = _ControlsEdit(self, self._controls, new, name)
        record(self.undo_stack, undo_text(name, new), [edit])

    def _merge_into_top(self, new: Controls, name: str) -> bool:
        """Fold a quick repeat of the same control into the newest command.

        Done here rather than through QUndoCommand.mergeWith: PySide never frees a Python
        command that Qt merged away, so a dragged slider would leak one per move. As in Qt,
        nothing merges into the saved (clean) state.
        """
        stack = self.undo_stack
        index = stack.index()
        if index == 0 or index != stack.count() or index == stack.cleanIndex():
            return False
        command = stack.command(index - 1)
        if len(command.edits) != 1:
            return False
        top = command.edits[0]
        if not isinstance(top, _ControlsEdit) or top.name != name:
            return False
        now = time.monotonic()
        if now - top.stamp > MERGE_SECONDS:
            return False
        top.new, top.stamp = new, now
        self._apply_controls(new)
        if top.new == top.old:
            # Back where it started: an obsolete step is dropped by undo() without running.
            command.setObsolete(True)
            stack.undo()
        return True

    def _apply_controls(self, controls: Controls) -> None:
        self._controls = controls
        self.controlsChanged.emit()
        self._changed_part()

    def _changed_part(self) -> None:
        if self._parts_open:
            self._part_changed = True
        else:
            self.changed.emit()

    @contextmanager
    def _whole_change(self) -> Iterator[None]:
        """Hold back `changed` until the change made inside is complete, then emit it once."""
        self._parts_open += 1
        try:
            yield
        finally:
            self._parts_open -= 1
            if not self._parts_open and self._part_changed:
                self._part_changed = False
                self.changed.emit()

    def reset(self, state: ExplorerState) -> None:
        """Start over from `state` (an opened file): no undo history, nothing unsaved; A
        (`pinned`) kept where `state` pins none."""
        self.undo_stack.clear()
        self.view = state.view  # first: the new tables' recompute checks the view against them
        with self._whole_change():
            self.given = state.given  # a new or opened session's own weights, or drawn ones
            self.queries.restore(state.queries)
            self.kv.restore(state.kv or state.queries)
            self._apply_controls(state.controls)
        # A stays pinned across a new or opened session, to be compared with it, unless
        # the session brings an A of its own.
        if state.pinned is not None:
            self.pinned = state.pinned
        self.pinnedChanged.emit()
        self.undo_stack.setClean()

    def load_state(self, state: ExplorerState, text: str) -> None:
        """Replace everything (a preset or a session) in one undoable step.

        The view is where the learner looks, not an edit, except which weights the matrices
        show and which query they follow: an example may choose them (the dropout example
        shows them dropped, and follows “starts”), and undoing the example gives back the
        weights shown and the query followed before it."""
        controls = None
        if state.controls != self._controls:
            controls = _ControlsEdit(self, self._controls, state.controls, None)
        shown = self.view.weights_array
        weights = None
        if state.view.weights_array != shown:
            weights = _WeightsShown(self, shown, state.view.weights_array)
        followed = self.view.query
        query = None
        if state.view.query != followed:
            query = _QueryChosen(self, followed, state.view.query)
        edits = [
            self.queries.replacement(state.queries),
            self.kv.replacement(state.kv or state.queries),
            controls,
            weights,
            query,
            _GivenEdit(self, self.given, state.given) if state.given is not self.given else None,
        ]
        # First: the new tables' recompute checks the view against them.
        self.view = replace(state.view, weights_array=shown, query=followed)
        record(self.undo_stack, text, edits)

    def add_dimension(self, rng: np.random.Generator | None = None) -> str | None:
        """Add one embedding dimension to both tables (they share the embedding space)."""
        if self.queries.d_in >= MAX_DIMS:
            return _tr("The embeddings already have the maximum of {0} dimensions.").format(
                MAX_DIMS
            )
        rng = rng or np.random.default_rng()
        edits = [model.dimension_added(rng) for model in (self.queries, self.kv)]
        record(self.undo_stack, pgettext("undo", "Add dimension"), edits)
        return None

    def remove_dimension(self, col: int) -> str | None:
        """Remove embedding dimension `col` (0-based) from both tables."""
        if self.queries.d_in <= 1:
            return _tr("The embeddings need at least one dimension.")
        col = min(max(col, 0), self.queries.d_in - 1)
        edits = [
            model.dimension_removed(col) for model in (self.queries, self.kv) if col < model.d_in
        ]
        record(self.undo_stack, pgettext("undo", "Remove dimension"), edits)
        return None

    def set_view(self, **changes: object) -> None:
        """Remember where the learner looks (not an edit: no undo step, no recompute)."""
        self.view = replace(self.view, **changes)

    def _follow_query(
        self, moved: Callable[[int], int], back: Callable[[int], int]
    ) -> _QueryFollow | None:
        """Keep following the same token when rows are inserted, removed or moved above it;
        undone with the rows' change."""
        old = self.view.query
        new = max(moved(old), 0)
        return _QueryFollow(self, old, new, moved, back) if new != old else None

    def _set_query(self, row: int) -> None:
        self.view = replace(self.view, query=row)
        self.queryFollowed.emit(row)


class _QueryFollow:
    """The followed query's row, moved with its token by an edit of the queries' rows.

    Undo brings back the row followed before the edit only if the learner has not chosen
    another since (choosing is not an undo step); a later choice is carried over the undo,
    as the table's rows are.
    """

    nbytes = 64

    def __init__(
        self,
        doc: Document,
        old: int,
        new: int,
        moved: Callable[[int], int],
        back: Callable[[int], int],
    ) -> None:
        self.doc, self.old, self.new, self.moved, self.back = doc, old, new, moved, back

    def apply(self) -> None:
        now = self.doc.view.query
        self.doc._set_query(self.new if now == self.old else max(self.moved(now), 0))

    def revert(self) -> None:
        now = self.doc.view.query
        self.doc._set_query(self.old if now == self.new else max(self.back(now), 0))


class _QueryChosen:
    """The followed query, set with a loaded example (or session) and given back by its undo."""

    nbytes = 64

    def __init__(self, doc: Document, old: int, new: int) -> None:
        self.doc, self.old, self.new = doc, old, new

    def apply(self) -> None:
        self.doc._set_query(self.new)

    def revert(self) -> None:
        self.doc._set_query(self.old)


class _WeightsShown:
    """Which weights the matrices show (softmax, or after dropout), set with a loaded example."""

    nbytes = 64

    def __init__(self, doc: Document, old: str, new: str) -> None:
        self.doc, self.old, self.new = doc, old, new

    def apply(self) -> None:
        self._show(self.new)

    def revert(self) -> None:
        self._show(self.old)

    def _show(self, name: str) -> None:
        self.doc.view = replace(self.doc.view, weights_array=name)
        self.doc.weightsShownChanged.emit(name)


class _ControlsEdit:
    """Set the controls; `name` is the single control changed (mergeable), or None."""

    nbytes = 256

    def __init__(self, doc: Document, old: Controls, new: Controls, name: str | None) -> None:
        self.doc, self.old, self.new, self.name = doc, old, new, name
        self.stamp = time.monotonic()

    def apply(self) -> None:
        self.doc._apply_controls(self.new)

    def revert(self) -> None:
        self.doc._apply_controls(self.old)


class _GivenEdit:
    """Set the given weights (a real head's, or none): loading a head or an example."""

    nbytes = 256

    def __init__(self, doc: Document, old: object, new: object) -> None:
        self.doc, self.old, self.new = doc, old, new

    def apply(self) -> None:
        self.doc.given = self.new
        self.doc._changed_part()

    def revert(self) -> None:
        self.doc.given = self.old
        self.doc._changed_part()
