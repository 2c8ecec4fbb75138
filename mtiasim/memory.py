"""DRAM: the kernel's buffers laid out per the ABI (from ``dram_base``, 64-byte aligned, with a gap between)."""
from __future__ import annotations

import bisect
import dataclasses
from typing import List, Optional, Tuple

import numpy as np

from .faults import SimFault


@dataclasses.dataclass
class Buffer:
    name: str
    addr: int
    size: int
    level: int = 0      # where it lives: 0 DRAM, 1 on-chip SRAM (mtiasim.dma.LEVELS)

    @property
    def end(self) -> int:
        return self.addr + self.size


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


class Dram:
    """One uint8 array covering every buffer; accesses must fall inside a single buffer."""

    def __init__(self, base: int, gap: int, capacity: int):
        self.base = base
        self.gap = gap
        self.capacity = capacity
        self.buffers: List[Buffer] = []
        self.data = np.zeros(0, np.uint8)
        self._starts: List[int] = []
        self.bytes_read = 0
        self.bytes_written = 0
        self.llc = None     # the last-level cache's timing state (mtiasim.llc.Llc) when the machine has one

    def layout(self, named_sizes: List[Tuple[str, int]]) -> None:
        addr = self.base
        self.buffers = []
        for name, size in named_sizes:
            addr = _align(addr, 64)
            self.buffers.append(Buffer(name, addr, size))
            addr += size + self.gap
        end = self.buffers[-1].end if self.buffers else self.base
        if end - self.base > self.capacity:
            from mtiacc.diagnostics import UserError
            raise UserError(f"the kernel's buffers need {end - self.base} bytes of DRAM; the machine has "
                            f"{self.capacity}")
        self.data = np.zeros(end - self.base, np.uint8)
        self._starts = [b.addr for b in self.buffers]

    def buffer(self, name: str) -> Buffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)

    def view(self, name: str) -> np.ndarray:
        b = self.buffer(name)
        return self.data[b.addr - self.base:b.end - self.base]

    def nearest(self, addr: int) -> Optional[Buffer]:
        if not self.buffers:
            return None
        i = bisect.bisect_right(self._starts, addr) - 1
        cands = [self.buffers[j] for j in (i, i + 1) if 0 <= j < len(self.buffers)]

        def dist(b: Buffer) -> int:
            if b.addr <= addr < b.end:
                return 0
            return min(abs(addr - b.addr), abs(addr - b.end))
        return min(cands, key=dist)

    def index_of(self, addr: int) -> int:
        return bisect.bisect_right(self._starts, addr) - 1

    def check(self, addr: int, n: int, what: str, slot: int) -> int:
        """The offset into ``data`` of ``n`` bytes at ``addr``; a :class:`SimFault` unless inside one buffer."""
        i = bisect.bisect_right(self._starts, addr) - 1
        if i >= 0:
            b = self.buffers[i]
            if addr + n <= b.end and n >= 0:
                return addr - self.base
        near = self.nearest(addr)
        notes = []
        if near is None:
            where = "the kernel has no DRAM buffers"
        else:
            where = f"buffer '{near.name}' is 0x{near.addr:x}..0x{near.end:x}"
            if near.addr <= addr < near.end:
                notes.append(f"the access runs {addr + n - near.end} bytes out of bounds past the end of "
                             f"'{near.name}': is that array smaller than the kernel expects?")
            else:
                notes.append(f"the address is out of bounds of every buffer; the nearest is '{near.name}'")
        raise SimFault(f"out-of-bounds {what} of {n} bytes at DRAM 0x{addr % (1 << 64):x} ({where})", slot,
                       notes)
