"""Atomics: what one does to memory, and when (the timing model of the atomic units).

**Function.** ``amo<op>.<w>`` reads the naturally aligned value at its address, writes ``old <op> x[rs2]`` (for
``amocas``: ``x[rs2]`` when ``old`` equals the low bits of ``x[rd]``) and returns ``old`` sign-extended to 64 bits;
``mtia.amofadd.<h|bf|s|d>`` adds the float ``x[rs2]`` holds (its low 16, 32 or 64 bits) to the float in memory,
rounded once to nearest even.  The address is a DRAM or SRAM buffer's (``--place``) or the PE's local memory's.

**Time** (``atomics:`` in the machine YAML; every number there is an ASSUMPTION).  An atomic is performed by the
atomic unit of the memory that holds its address.  It travels there over the network (``noc_cycles`` each way;
none for local memory), waits while the unit performs earlier atomics on the same address (one at a time, in
arrival order: the *contention*), is performed in ``service_cycles``, and its old value returns after the
level's access latency (``memory.dram.latency_ns`` / ``memory.sram.latency_ns``; ``local_latency_cycles``)::

    uncontended round trip = 2 * noc_cycles + service_cycles + level latency

Programs arriving at a unit in the same cycle are served in an order drawn from the run's seed (``mtiasim run
--seed``), so races between programs show up when tests vary it.  Ordering: an atomic with ``.rl`` issues only
once the PE's earlier DMA transfers and atomics have completed; with ``.aq`` the core waits for its old value
before issuing anything else; ``fence`` waits for every DMA transfer and atomic of the PE.
"""
from __future__ import annotations

import struct
from typing import Dict, List, Tuple

import numpy as np

from ..faults import SimFault

SIZES = {"h": 2, "bf": 2, "w": 4, "s": 4, "d": 8}
_MASKS = {2: 0xFFFF, 4: 0xFFFFFFFF, 8: 0xFFFFFFFFFFFFFFFF}
LOCAL, DRAM, SRAM = "local", "dram", "sram"


def _signed(v: int, size: int) -> int:
    bits = 8 * size
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _f16(bits: int) -> float:
    return float(np.array(bits, np.uint16).view(np.float16))


def _bf16_bits(x: float) -> int:
    """``x`` rounded once to bfloat16 (nearest even): round to float32 by rounding to odd, then to 16 bits."""
    if x != x:
        return 0x7FC0
    f = np.float32(x)
    if np.isfinite(f) and float(f) != x:       # round to odd: truncate toward zero, then set the last bit
        if abs(float(f)) > abs(x):
            f = np.nextafter(f, np.float32(0))
        f = np.array(np.array(f, np.float32).view(np.uint32) | 1, np.uint32).view(np.float32)
    b = int(np.array(f, np.float32).view(np.uint32))
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) & 0xFFFF


def float_add(w: str, old: int, val: int) -> int:
    """The bits of ``old + val`` in float format ``w`` (h, bf, s, d), rounded once to nearest even."""
    if w == "h":
        return int(np.array(_f16(old) + _f16(val), np.float64).astype(np.float16).view(np.uint16))
    if w == "bf":
        a = struct.unpack("<f", struct.pack("<I", (old & 0xFFFF) << 16))[0]
        b = struct.unpack("<f", struct.pack("<I", (val & 0xFFFF) << 16))[0]
        return _bf16_bits(a + b)       # bf16 + bf16 is exact in float64 unless far apart (then no tie arises)
    if w == "s":
        a = np.array(old & 0xFFFFFFFF, np.uint32).view(np.float32)
        b = np.array(val & 0xFFFFFFFF, np.uint32).view(np.float32)
        with np.errstate(all="ignore"):
            return int(np.array(a + b, np.float32).view(np.uint32))
    a = struct.unpack("<d", struct.pack("<Q", old & _MASKS[8]))[0]
    b = struct.unpack("<d", struct.pack("<Q", val & _MASKS[8]))[0]
    return struct.unpack("<Q", struct.pack("<d", a + b))[0]


def perform(op: str, w: str, old: int, val: int, expected: int) -> int:
    """The value an atomic leaves in memory (unsigned, ``SIZES[w]`` bytes) given the ``old`` one."""
    size = SIZES[w]
    mask = _MASKS[size]
    old &= mask
    v = val & mask
    if op == "add":
        return (old + v) & mask
    if op == "swap":
        return v
    if op == "cas":
        return v if old == expected & mask else old
    if op == "xor":
        return old ^ v
    if op == "or":
        return old | v
    if op == "and":
        return old & v
    if op in ("min", "max"):
        a, b = _signed(old, size), _signed(v, size)
        return (min(a, b) if op == "min" else max(a, b)) & mask
    if op == "minu":
        return min(old, v)
    if op == "maxu":
        return max(old, v)
    if op == "fadd":
        return float_add(w, old, v)
    raise KeyError(op)


class AtomicUnits:
    """The atomic units' state for one wave: when each address is free again, the PEs' last atomic's completion,
    and the order in which programs arriving together are served."""

    def __init__(self, cfg, P: int):
        self.cfg = cfg.atomics                  # config.AtomicsConfig
        self.P = P
        self.level_latency = {LOCAL: self.cfg.local_latency_cycles, DRAM: cfg.ns_to_cycles(cfg.dram_latency_ns),
                              SRAM: cfg.ns_to_cycles(cfg.sram_latency_ns)}
        self.last = np.zeros(P)                 # per PE: when its last atomic completes
        self.rank = np.arange(P)                # tie-break order among programs arriving together
        self.busy: Dict[Tuple[str, int], float] = {}
        self.count = 0                          # atomics performed
        self.contention = 0.0                   # cycles atomics waited for their address at the unit
        self.round_trips = 0.0                  # sum of issue-to-result cycles

    def reset(self, seed: int, wave: int) -> None:
        self.last[:] = 0
        self.busy.clear()
        self.count = 0
        self.contention = self.round_trips = 0.0
        self.rank = np.random.default_rng([seed, wave]).permutation(self.P)

    def round_trip(self, level: str) -> float:
        noc = 0.0 if level == LOCAL else self.cfg.noc_cycles
        return 2 * noc + self.cfg.service_cycles + self.level_latency[level]

    def serve(self, slots: List[int], issue: List[float], keys: List[Tuple[str, int]]) -> Tuple[List[int], List[float]]:
        """The order (indices into ``slots``) in which the atomics are performed, and each one's result time."""
        cfg = self.cfg
        noc, service, busy, latency = cfg.noc_cycles, cfg.service_cycles, self.busy, self.level_latency
        arrive = [t if k[0] == LOCAL else t + noc for t, k in zip(issue, keys)]
        rank = self.rank[slots].tolist()
        order = sorted(range(len(slots)), key=lambda i: (arrive[i], rank[i]))
        done = [0.0] * len(slots)
        contention, round_trips = self.contention, self.round_trips
        for i in order:
            key = keys[i]
            start = max(arrive[i], busy.get(key, -1.0))
            contention += start - arrive[i]
            end = start + service
            busy[key] = end
            done[i] = end + latency[key[0]] + (0.0 if key[0] == LOCAL else noc)
            round_trips += done[i] - issue[i]
        self.contention, self.round_trips = contention, round_trips
        self.count += len(slots)
        return order, done


def locate(m, slot: int, addr: int, size: int, what: str):
    """``(byte array, offset, level)`` of the ``size`` bytes at ``addr`` for program ``slot``: its local memory, or
    the DRAM / SRAM buffer holding them (a fault outside both, or when misaligned)."""
    if addr % size:
        raise SimFault(f"misaligned {what}: address 0x{addr % (1 << 64):x} is not a multiple of {size}", slot)
    if 0 <= addr and addr + size <= m.lmb:
        return m.LM[slot], addr, LOCAL
    dram = m.dram
    dram.check(addr, size, what, slot)
    b = dram.buffers[dram.index_of(addr)]
    return dram.data, addr - dram.base, (SRAM if b.level == 1 else DRAM)
