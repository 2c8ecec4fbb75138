"""Local-memory allocation for block values: first fit, with reuse once a block is dead."""
from __future__ import annotations

import dataclasses
from typing import Callable, List, Optional

from mtiacc.diagnostics import CompileError, SourceLocation

ALIGN = 64


class LocalMemoryFull(CompileError):
    """The blocks live at some point of the kernel do not fit in the PE's local memory."""


@dataclasses.dataclass
class Buffer:
    offset: int
    nbytes: int
    what: str
    loc: Optional[SourceLocation]


class LocalMemory:
    def __init__(self, base: int, limit: int):
        self.base = base
        self.limit = limit
        self.live: List[Buffer] = []
        self.high_water = base
        # called when a block does not fit: frees what it can (buffers only running engine commands still hold,
        # matrix/engine.py) and says whether it freed anything, after which the block is placed again
        self.reclaim: Optional[Callable[[], bool]] = None

    def alloc(self, nbytes: int, what: str, loc: Optional[SourceLocation]) -> Buffer:
        size = (max(nbytes, 1) + ALIGN - 1) // ALIGN * ALIGN
        cursor = self._first_fit(size)
        if cursor + size > self.limit and self.reclaim is not None and self.reclaim():
            cursor = self._first_fit(size)
        if cursor + size > self.limit:
            raise self._overflow(nbytes, what, loc)
        buf = Buffer(cursor, nbytes, what, loc)
        self.live.append(buf)
        self.high_water = max(self.high_water, cursor + size)
        return buf

    def _first_fit(self, size: int) -> int:
        cursor = self.base
        for b in sorted(self.live, key=lambda b: b.offset):
            if b.offset - cursor >= size:
                break
            cursor = max(cursor, b.offset + (b.nbytes + ALIGN - 1) // ALIGN * ALIGN)
        return cursor

    def _overflow(self, nbytes: int, what: str, loc: Optional[SourceLocation]) -> LocalMemoryFull:
        """The error for a block that does not fit: the new value, then every live one, largest first."""
        live = sorted(self.live, key=lambda b: (-b.nbytes, b.offset))
        used = sum(b.nbytes for b in live)
        notes = [f"live: {b.what}, {b.nbytes} bytes, {_where(b.loc)}" for b in live]
        if live:
            notes.append("reduce the block sizes (BLOCK constexprs), or let fewer blocks be live at once")
        return LocalMemoryFull(
            f"blocks do not fit in the PE's local memory: {what} needs {nbytes} bytes while "
            f"{len(live)} live block(s) take {used} bytes, of {self.limit - self.base} bytes available "
            f"for blocks", loc, notes=notes)

    def free(self, buf: Buffer) -> None:
        if buf in self.live:
            self.live.remove(buf)


def _where(loc: Optional[SourceLocation]) -> str:
    return f"line {loc.line}, column {loc.col}" if loc is not None else "made by the compiler"
