"""The sanitizer's shadow state for one run (a launch) and the checks every hook reports through.

- **Local memory** (initcheck): a bool per byte of each PE's local memory, cleared when a program starts (a program
  must not rely on what an earlier program on its PE left there); the argument block counts as written.  Scalar
  and vector stores, DMA into local memory, atomics on local memory and the matrix engine's ``acc.st`` write it;
  the MLU's transpose moves its source bytes' state to the bytes it writes.
  Vector registers have a bool per byte too: a vector load copies the bytes' state into the register, a vector
  store copies it back, and every other vector instruction writes its destination as defined.  A scalar load
  (``lb`` .. ``ld``, ``flw``, ``fld``) of a byte never written, and a DMA out of one, are findings; a vector load is
  not (compiled code loads whole blocks whose masked-off lanes were never filled, and computes on them).
- **DRAM / SRAM** (racecheck): per byte, the last program to write it and the last to read it (plain accesses:
  DMA transfers), each with the instruction and the sync sequence number at the time.  ``seq`` counts the atomics
  and fences of the launch; ``last_sync[p]`` is the number of program ``p``'s latest.  Program ``B`` accessing a
  byte that program ``A != B`` wrote (or, for a write, read) is a race unless ``A`` or ``B`` executed an atomic or
  fence since ``A``'s access.  Atomics themselves are not accesses here: they never race.
"""
from __future__ import annotations

from typing import Dict, Tuple

import numpy as np

from .report import Findings, describe_address
from .waits import InFlight


class Sanitizer:
    def __init__(self, program, cfg, dram, pointers, grid: Tuple[int, int, int], total: int, used: int):
        self.findings = Findings(program)
        self.cfg = cfg
        self.dram = dram
        self.grid = grid
        n = len(dram.data)
        self.writer = np.full(n, -1, np.int32)
        self.wseq = np.zeros(n, np.int32)
        self.wpc = np.zeros(n, np.int32)
        self.reader = np.full(n, -1, np.int32)
        self.rseq = np.zeros(n, np.int32)
        self.rpc = np.zeros(n, np.int32)
        self.last_sync = np.full(max(total, 1), -1, np.int64)
        self.seq = 0
        self.arrays: Dict[str, Tuple[int, tuple]] = {name: (arr.dtype.itemsize, tuple(arr.shape))
                                                     for name, _, arr in pointers}
        self.init = np.zeros((used, cfg.local_memory_bytes), bool)
        self.vinit = np.ones((used, 32 * cfg.vlenb), bool)
        self.flight = InFlight(self, used)

    # ------------------------------------------------------------------------------------------------------
    def start_wave(self, m, args_base: int, nargs: int) -> None:
        """New programs start on the wave's PEs: nothing of their local memory but the arguments is written."""
        P = m.P
        self.init[:P] = False
        self.init[:P, args_base:args_base + nargs] = True
        self.vinit[:P] = True       # registers start as zeros
        self.flight.start_wave(P)

    def synced(self, lins) -> None:
        """Programs ``lins`` executed an atomic or a fence."""
        self.seq += 1
        self.last_sync[lins] = self.seq

    def program(self, lin: int) -> str:
        gx, gy, _ = self.grid
        pid = (lin % gx, (lin // gx) % gy, lin // (gx * gy))
        return f"{pid} (linear id {lin}, PE {lin % self.cfg.n_pes})"

    # ------------------------------------------------------------------------------------------------------
    def division(self, k: int, lin: int, a: int, b: int, what: str, result: str, times: int) -> None:
        key = ("div", k)
        if self.findings.seen(key, times):
            return
        self.findings.add(key, "division by zero", f"{what} {a} by {b} (the result is {result}, as RISC-V "
                          f"defines it; no trap)", k, [f"in program {self.program(lin)}"], times)

    def uninitialized(self, k: int, lin: int, addr: int, nbytes: int, what: str, times: int) -> None:
        key = ("uninit", k)
        if self.findings.seen(key, times):
            return
        self.findings.add(key, "uninitialized read", f"{what} at local address 0x{addr:x} reads "
                          f"{nbytes} byte{'s' if nbytes != 1 else ''} of local memory that the program never wrote",
                          k, [f"in program {self.program(lin)}",
                              "a program's local memory holds only its arguments when it starts; stores, DMA in, "
                              "atomics, the matrix engine's acc.st and the MLU's transpose write it"], times)

    # ------------------------------------------------------------------------------------------------------
    def dram_access(self, lin: int, k: int, off, write: bool) -> None:
        """Program ``lin`` reads or writes the DRAM bytes ``off`` (a slice or an index array into ``dram.data``)
        with instruction ``k``: report a race with an earlier access of another program, then record it."""
        mine = self.last_sync[lin]
        self._conflict(lin, k, off, write, self.writer, self.wseq, self.wpc, mine, "wrote")
        if write:
            self._conflict(lin, k, off, write, self.reader, self.rseq, self.rpc, mine, "read")
            self.writer[off] = lin
            self.wseq[off] = self.seq
            self.wpc[off] = k
        else:
            self.reader[off] = lin
            self.rseq[off] = self.seq
            self.rpc[off] = k

    def _conflict(self, lin, k, off, write, who, seqs, pcs, mine, verb) -> None:
        w = who[off]
        bad = (w >= 0) & (w != lin)
        if not bad.any():
            return
        s = seqs[off]
        bad &= (self.last_sync[np.maximum(w, 0)] <= s) & (mine <= s)
        if not bad.any():
            return
        i = int(np.flatnonzero(bad)[0])
        other, other_k = int(w[i]), int(pcs[off][i])
        key = ("race", k, other_k, write, verb)
        if self.findings.seen(key):
            return
        start = off.start if isinstance(off, slice) else 0
        byte = start + i if isinstance(off, slice) else int(off[i])
        addr = self.dram.base + byte
        fs = self.findings
        where = describe_address(self.dram, self.arrays, addr)
        fs.add(key, "data race", f"program {self.program(lin)} {'writes' if write else 'reads'} {where} with "
               f"{fs.op(k)}, which program {self.program(other)} {verb} with {fs.op(other_k)}, with no atomic or "
               f"fence between the two",
               k, [f"program {self.program(other)} {verb} it at {fs.where(other_k)}",
                   f"{int(bad.sum())} byte{'s' if int(bad.sum()) != 1 else ''} of this transfer conflict",
                   "programs of one launch run in no guaranteed order: order them with atomics (a flag) or "
                   "give each its own memory"])
