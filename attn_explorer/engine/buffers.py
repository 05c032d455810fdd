"""Big arrays reused from one computation to the next, once nothing can see them any more.

A slider move on 1024 tokens × 16 heads fills four fresh (16, 1024, 1024) float32 arrays
(64 MB each). Fresh memory means page faults and, in a virtual machine, the host backing new
pages: measured here, the same computation took 95 ms most of the time and up to 250 ms
when the system was slow to hand out memory. Writing into the arrays of a trace that is no
longer shown costs no new memory at all.

A buffer is lent with the numpy arrays made from it; it comes back when every one of them
(and so every view of them, which keeps its base alive) has been freed. Nothing is
overwritten while anybody can still read it, without trusting anybody to say so.
"""

from __future__ import annotations

import math
import weakref

import numpy as np
import torch

# Smaller arrays are cheap to allocate; pooling them would only hold memory.
MIN_POOLED_BYTES = 2 * 2**20


class BufferPool:
    """Float32 buffers for one engine thread. Not thread-safe: one pool per computing thread."""

    def __init__(self) -> None:
        self._lent: list[tuple[torch.Tensor, list[weakref.ref]]] = []
        self._given: list[torch.Tensor] = []  # handed out during the running computation
        self.reused = 0  # buffers written again instead of allocated (read by the tests)

    def empty(self, shape: tuple[int, ...]) -> torch.Tensor:
        """An uninitialised float32 tensor of `shape`: a returned buffer when one fits."""
        numel = math.prod(shape)
        if numel * 4 < MIN_POOLED_BYTES:
            return torch.empty(shape)
        for index, (tensor, arrays) in enumerate(self._lent):
            if tensor.numel() == numel and all(ref() is None for ref in arrays):
                del self._lent[index]
                self._given.append(tensor)
                self.reused += 1
                return tensor.view(shape)
        tensor = torch.empty(shape)
        self._given.append(tensor)
        return tensor

    def lend(self, tensors: dict[str, torch.Tensor], arrays: dict[str, np.ndarray]) -> None:
        """End a computation: the buffers it was given go out with the arrays made from them.

        A buffer given but not in `tensors` (a temporary) is free for the next computation.
        Buffers nobody reads any more and this computation did not need are let go, so the
        pool never holds more than the traces on screen and the one being computed.
        """
        self.let_go()
        if not self._given:  # all small: nothing to look up (18 storages, 15 µs a move)
            return
        given = {_storage(t): t for t in self._given}
        self._given = []
        out: dict[int, list[weakref.ref]] = {key: [] for key in given}
        for name, tensor in tensors.items():
            key = _storage(tensor)
            if key in out:
                out[key].append(weakref.ref(arrays[name]))
        self._lent += [(given[key], refs) for key, refs in out.items()]

    def let_go(self) -> None:
        """Free the buffers nobody reads any more: after every computation, including one too
        small to take any (the traces of a bigger one may have been dropped meanwhile)."""
        if self._lent:
            self._lent = [
                (tensor, arrays)
                for tensor, arrays in self._lent
                if any(ref() is not None for ref in arrays)
            ]

    def abandon(self) -> None:
        """A computation failed: what it was given is simply freed."""
        self._given = []

    @property
    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t, _ in self._lent)


def _storage(tensor: torch.Tensor) -> int:
    return tensor.untyped_storage().data_ptr()
