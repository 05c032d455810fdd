"""Undo steps that hold only what changed, and a history bounded in bytes as well as in steps.

Every undo step is an `EditCommand` holding a list of `Edit`s: small objects that know how to
apply and revert one change and how many bytes they keep. A moved token keeps two rows, not the
whole table, so a long session at the largest table size stays within memory; the few steps
that must keep a whole table (randomize, open a preset) are what the byte budget is for.

QUndoStack can only bound its number of steps (and only while empty), so `record` enforces the
byte budget itself: when the history grows past it, the oldest steps are forgotten by
re-pushing the newest ones onto a cleared stack without re-applying them.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Protocol

from PySide6.QtGui import QUndoCommand, QUndoStack

# Enough for dozens of whole-table steps at the largest table (4096 × 1024 floats is 32 MB);
# a tutorial-sized session never comes near it.
UNDO_BUDGET_BYTES = 512 * 2**20
COMMAND_OVERHEAD_BYTES = 200  # a Python object or two per step, however small the change


class Edit(Protocol):
    """One reversible change; `nbytes` is what it keeps alive for undo."""

    nbytes: int

    def apply(self) -> None: ...

    def revert(self) -> None: ...


class EditCommand(QUndoCommand):
    """One undo step: its edits applied in order, reverted in reverse order."""

    def __init__(
        self, text: str, edits: Sequence[Edit], group: weakref.WeakMethod | None = None
    ) -> None:
        super().__init__(text)
        self.edits = list(edits)
        self.group = group
        self._replaying = False

    def _whole(self) -> AbstractContextManager[object]:
        owner_group = self.group() if self.group is not None else None
        return owner_group() if owner_group is not None else nullcontext()

    @property
    def nbytes(self) -> int:
        return COMMAND_OVERHEAD_BYTES + sum(edit.nbytes for edit in self.edits)

    def redo(self) -> None:
        if self._replaying:
            return
        with self._whole():
            for edit in self.edits:
                edit.apply()

    def undo(self) -> None:
        if self._replaying:
            return
        with self._whole():
            for edit in reversed(self.edits):
                edit.revert()


def record(
    stack: QUndoStack, text: str, edits: Iterable[Edit | None], budget: int | None = None
) -> bool:
    """Apply `edits` as one undo step (None entries are skipped); False when nothing to do."""
    kept = [edit for edit in edits if edit is not None]
    if not kept:
        return False
    command = EditCommand(text, kept, _GROUPS.get(stack))
    size = command.nbytes
    stack.push(command)
    budget = UNDO_BUDGET_BYTES if budget is None else budget
    # An upper bound of the history's size (Qt only ever removes steps behind our back)
    # spares a walk over up to 1000 steps after every edit.
    bound = _BOUNDS.get(stack, 0) + size
    if bound > budget:
        trim(stack, budget)
        bound = history_bytes(stack)
    _BOUNDS[stack] = bound
    return True


# Per undo stack, an upper bound of what its history keeps.
_BOUNDS: weakref.WeakKeyDictionary[QUndoStack, int] = weakref.WeakKeyDictionary()
# Per undo stack, its owner's method that wraps a step's edits (weak: the owner holds the stack).
_GROUPS: weakref.WeakKeyDictionary[QUndoStack, weakref.WeakMethod] = weakref.WeakKeyDictionary()


def group_steps(stack: QUndoStack, group: Callable[[], AbstractContextManager[object]]) -> None:
    """Apply every step later recorded on `stack`, and its undo and redo, inside `group()`.

    A step of several edits (a loaded example replaces both tables and the controls) passes
    through states that are not the step's: `group` lets the stack's owner tell its
    listeners once, when the step is whole, rather than after each edit.
    """
    _GROUPS[stack] = weakref.WeakMethod(group)


def history_bytes(stack: QUndoStack) -> int:
    """What the undo history keeps alive, by the edits' own count."""
    return sum(stack.command(i).nbytes for i in range(stack.count()))


def trim(stack: QUndoStack, budget: int) -> int:
    """Forget the oldest steps until the history fits `budget`; returns how many were dropped.

    The newest step is always kept. Only called right after a push, so there is no redo tail.
    A clean (saved) state among the forgotten steps can no longer be reached: the document
    then stays modified until saved again.
    """
    sizes = [stack.command(i).nbytes for i in range(stack.count())]
    total, drop = sum(sizes), 0
    while total > budget and drop < len(sizes) - 1:
        total -= sizes[drop]
        drop += 1
    if drop == 0 or stack.index() != stack.count():
        return 0
    # Copied out before Qt deletes the commands (every step is an EditCommand: `record`).
    kept = [(c.text(), c.edits, c.group) for c in map(stack.command, range(drop, stack.count()))]
    clean = stack.cleanIndex()
    stack.clear()
    for position, (text, edits, group) in enumerate(kept):
        if clean == drop + position:
            stack.setClean()
        command = EditCommand(text, edits, group)
        command._replaying = True  # its edits are already applied
        stack.push(command)
        command._replaying = False
    if clean == drop + len(kept):
        stack.setClean()
    elif clean < drop:
        stack.resetClean()
    return drop
