"""Faults raised while a wave runs.

Executors raise :class:`SimFault` with the index (within the wave) of the first offending program; the machine
adds the pc and turns it into a :class:`~mtiacc.diagnostics.UserError` with the kernel's source location.
"""
from __future__ import annotations

from typing import Optional

import numpy as np


class SimFault(Exception):
    """A fault of one program of a wave: ``slot`` is its index within the wave (``None``: the first of the group)."""

    def __init__(self, message: str, slot: Optional[int] = None, notes=()):
        super().__init__(message)
        self.message = message
        self.slot = slot
        self.notes = list(notes)


def group_slots(g, n: int) -> np.ndarray:
    """The wave slots of group ``g`` (a slice or an index array)."""
    if isinstance(g, slice):
        return np.arange(n)[g]
    return np.asarray(g)


def first_slot(g, n: int, bad) -> int:
    """The wave slot of the first program of group ``g`` for which the boolean array ``bad`` (over the group) holds."""
    slots = group_slots(g, n)
    bad = np.asarray(bad)
    if bad.ndim > 1:
        bad = bad.reshape(bad.shape[0], -1).any(axis=1)
    hits = np.flatnonzero(bad)
    return int(slots[hits[0]]) if len(hits) else int(slots[0])
