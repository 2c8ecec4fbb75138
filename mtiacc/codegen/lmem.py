"""Local-memory allocation for block values: first fit, with reuse once a block is dead."""
from __future__ import annotations

import dataclasses
from typing import List, Optional

from mtiacc.diagnostics import CompileError, SourceLocation

ALIGN = 64


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

    def alloc(self, nbytes: int, what: str, loc: Optional[SourceLocation]) -> Buffer:
        size = (max(nbytes, 1) + ALIGN - 1) // ALIGN * ALIGN
        cursor = self.base
        for b in sorted(self.live, key=lambda b: b.offset):
            if b.offset - cursor >= size:
                break
            cursor = max(cursor, b.offset + (b.nbytes + ALIGN - 1) // ALIGN * ALIGN)
        if cursor + size > self.limit:
            listing = ", ".join(f"{b.what} ({b.nbytes} bytes, line {b.loc.line if b.loc else '?'})"
                                for b in sorted(self.live, key=lambda b: -b.nbytes))
            raise CompileError(
                f"blocks do not fit in the PE's local memory: {what} needs {nbytes} bytes, "
                f"{self.limit - self.base} bytes are available for blocks",
                loc, notes=[f"live blocks: {listing}"] if listing else [])
        buf = Buffer(cursor, nbytes, what, loc)
        self.live.append(buf)
        self.high_water = max(self.high_water, cursor + size)
        return buf

    def free(self, buf: Buffer) -> None:
        if buf in self.live:
            self.live.remove(buf)
