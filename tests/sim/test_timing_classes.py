"""Every timing class of the ISA table, pinned to exact cycles.

``PINNED`` writes down, on purpose a second time, the issue cost and result latency of each timing class of
``mtiacc/asm/isa.py`` (the ``timing:`` section of ``mtiacc/machine/mtia2i.yaml``).  For each class a tiny program
repeats one instruction of the class (picked from the table by :mod:`tests.sim.timing_programs`) independently
and as a dependence chain, and the simulated cycles must be exactly what the pinned costs give.  A changed cost
fails ``test_timing_class[<class>]``; a class added to the table without a pinned cost fails
``test_every_timing_class_is_pinned``.

Each program runs twice, with the model's state as scalars (all programs agree) and as per-program arrays.
A program's cycles end when its last instruction has issued and every unit it started is done; registers'
ready times do not count, so a latency shows only where a later instruction reads the result.
"""
import math

import pytest

from mtiacc.asm.isa import BY_NAME, INSTRUCTIONS, TIMING_CLASSES
from mtiacc.diagnostics import KernelFault
from mtiacc.machine.simulator import load_config
from mtiasim.runner import run
from mtiasim.timing import UniformTiming
from tests.sim.helpers import build
from tests.sim.timing_programs import accumulates, chain_source, repeat, representative

CFG = load_config()

# class: (issue, latency) in cycles
PINNED = {
    "IntALU": (1, 1), "IntMul": (1, 3), "IntDiv": (1, 20), "Branch": (1, 1), "Jump": (1, 1), "Load": (1, 3),
    "Store": (1, 1), "FPU": (1, 4), "FDiv": (1, 16), "FCvt": (1, 3), "System": (1, 1),
    "DPU": (2, 8), "DDiv": (2, 32),         # fp64 on the scalar core: not pipelined
    "VSet": (1, 1), "VALU": (1, 2), "VMul": (1, 4), "VDiv": (4, 20), "VFALU": (1, 4), "VFDiv": (4, 20),
    "VMask": (1, 2), "VPerm": (1, 3), "VRed": (1, 8), "VLoad": (1, 4), "VStore": (1, 1),
    "Custom": (2, 1), "DMA": (4, 1), "DPE": (2, 1), "DPEWait": (1, 1), "Atomic": (2, 1), "Fence": (1, 1),
    "SE": (1, 8), "SEALU": (1, 4), "SEMem": (1, 4),
}
DATAPATH_BITS = 256          # a vector instruction occupies its unit ceil(vl * SEW / 256) cycles
FP64_SLOWDOWN = 2            # float arithmetic at SEW=64: half the datapath
SE_ELEMENTS_PER_CYCLE = 32   # the SE's occupancy: ceil(vl / 32) cycles
ATOMIC_LOCAL_CYCLES = 6      # a local-memory atomic's result: service (4) + local latency (2)
RET = 1                      # the `ret` ending every program (a Jump)
N = 5                        # copies of the instruction

# classes whose instructions write no register (or none the class's own instructions read): no chain
# (SEMem: the SE's loads write a group only its stores read; test_se_memory.py pins the latency by hand)
UNCHAINED = {"Branch", "Store", "VStore", "System", "Custom", "DMA", "DPE", "DPEWait", "Fence", "SEMem"}
# classes timed by hand-written programs below
SPECIAL = {"Jump", "System", "Custom", "DMA", "DPE", "Atomic"}
VECTOR_UNIT = {c for c in PINNED if c.startswith("V") and c != "VSet"}
VSETUP = "li t0, {vl}\nvsetvli t1, t0, {vtype}"    # 2 cycles: vsetvli's source is ready as it issues
VSETUP_CYCLES = 2


def cycles(asm: str) -> float:
    """The program's cycles, the same whether the model keeps its state as scalars or as per-program arrays."""
    binary = build(asm)
    fast = run(binary, {}, grid=(1,)).stats.wave_cycles[0]
    reset = UniformTiming.reset

    def arrays(self):          # the per-program arrays from the start
        reset(self)
        self.materialize()
    UniformTiming.reset = arrays
    try:
        slow = run(binary, {}, grid=(1,)).stats.wave_cycles[0]
    finally:
        UniformTiming.reset = reset
    assert fast == slow
    return fast


def chain(n: int, issue: int, latency: int) -> int:
    """n scalar instructions, each reading the one before: it issues when the result is ready."""
    return (n - 1) * max(issue, latency) + issue + RET


def vector(n: int, issue: int, latency: int, occ: int, chained: bool) -> int:
    """n instructions on a unit occupied ``occ`` cycles each: one begins when the unit is free (and, chained, when
    the result of the one before is ready, ``latency`` after its last occupancy cycle begins)."""
    step = max(issue, occ - 1 + latency if chained else occ)
    last = VSETUP_CYCLES + (n - 1) * step
    return max(last + issue + RET, last + occ)


def test_every_timing_class_is_pinned():
    assert set(TIMING_CLASSES) == set(PINNED)
    assert {s.timing for s in INSTRUCTIONS} <= set(PINNED)
    assert set(CFG.timing) == set(PINNED)
    assert SPECIAL | UNCHAINED <= set(PINNED)


@pytest.mark.parametrize("cls", TIMING_CLASSES)
def test_machine_cost(cls):
    """The machine description's costs are the pinned ones (also those no program can observe)."""
    assert tuple(CFG.timing[cls]) == PINNED[cls]


def test_machine_vector_rates():
    assert (CFG.datapath_bits, CFG.fp64_slowdown, CFG.se.elements_per_cycle) == \
        (DATAPATH_BITS, FP64_SLOWDOWN, SE_ELEMENTS_PER_CYCLE)


def _generic(cls):
    issue, lat = PINNED[cls]
    chained = cls not in UNCHAINED
    spec = representative(cls, chained)
    assert spec is not None, f"no instruction of class {cls} can be timed by a generic program: pin it by hand"
    if cls in VECTOR_UNIT or cls in ("SE", "SEALU", "SEMem"):
        # SEW=32 (SEW=64: test_vector_fp64_occupancy)
        for vtype, vl, occ in (("e32, m1, ta, ma", 8, 1), ("e32, m8, ta, ma", 64, 8)):
            if cls in ("SE", "SEALU", "SEMem"):
                occ = math.ceil(vl / SE_ELEMENTS_PER_CYCLE)
            setup = VSETUP.format(vl=vl, vtype=vtype)
            assert cycles(repeat(spec, N, False, setup, vtype)) == vector(N, issue, lat, occ, False), (spec.name, vtype)
            if chained:
                assert cycles(repeat(spec, N, True, setup, vtype)) == vector(N, issue, lat, occ, True), \
                    (spec.name, vtype)
        return
    assert cycles(repeat(spec, N, False)) == N * issue + RET, spec.name
    if chained:
        assert chain_source(spec) is not None
        assert cycles(repeat(spec, N, True)) == chain(N, issue, lat), spec.name


def _jump(issue, lat):
    # independent: jal to the next line; chained: each jalr jumps to 4 past the address in a0 (its own address,
    # the link of the instruction before) and links the next
    assert cycles("kernel:\n" + "".join(f"    jal t0, n{k}\nn{k}:\n" for k in range(N)) + "    ret\n") \
        == N * issue + RET
    assert cycles("kernel:\n    jal a0, n0\nn0:\n" + "    jalr a0, 4(a0)\n" * (N - 1) + "    ret\n") \
        == chain(N, issue, lat)


def _system(issue, lat):
    # ecall and ebreak stop the program: their cost is never seen (test_machine_cost pins it)
    for name in ("ecall", "ebreak"):
        with pytest.raises(KernelFault):
            cycles(f"kernel:\n    {name}\n    ret\n")


def _custom(issue, lat):
    assert cycles("kernel:\n" + "    mtia.pid a0, 0\n" * N + "    ret\n") == N * issue + RET
    # a reader of mtia.pid's result waits for its latency or for the core, whichever is later
    pair = "    mtia.pid a0, 0\n    addi a0, a0, 1\n"
    assert cycles("kernel:\n" + pair * N + "    ret\n") == N * (max(issue, lat) + PINNED["IntALU"][0]) + RET


def _dma(issue, lat):
    # transfers of zero bytes are complete at their issue; the wait then has nothing to wait for
    assert cycles("kernel:\n" + "    mtia.dma.in a1, a2, zero\n" * N + "    ret\n") == N * issue + RET
    assert cycles("kernel:\n" + "    mtia.dma.out a1, a2, zero\n" * N + "    mtia.dma.wait\n    ret\n") \
        == (N + 1) * issue + RET


def _dpe(issue, lat):
    # configuration commands: the engine takes them at once
    assert cycles("kernel:\n" + "    mtia.dpe.cfg a1, 0\n" * N + "    ret\n") == N * issue + RET


def _atomic(issue, lat):
    spec = BY_NAME["amoadd.w"]
    assert spec.timing == "Atomic"
    assert cycles("kernel:\n" + "    amoadd.w a0, a1, (zero)\n" * N + "    ret\n") == N * issue + RET
    # chained: each reads the old value the one before returns, ATOMIC_LOCAL_CYCLES after its issue
    assert cycles("kernel:\n" + "    amoadd.w a0, a0, (zero)\n" * N + "    ret\n") \
        == (N - 1) * max(issue, ATOMIC_LOCAL_CYCLES) + issue + RET


HAND = {"Jump": _jump, "System": _system, "Custom": _custom, "DMA": _dma, "DPE": _dpe, "Atomic": _atomic}


@pytest.mark.parametrize("cls", TIMING_CLASSES)
def test_timing_class(cls):
    """One instruction of the class, repeated independently and (where one can read another) as a chain."""
    assert cls in PINNED, f"timing class {cls} has no pinned cost"
    if cls in HAND:
        HAND[cls](*PINNED[cls])
    else:
        _generic(cls)


# vector rows at SEW=64, vl=32, LMUL=8 (2048 bits): float arithmetic is at 1/FP64_SLOWDOWN of the datapath,
# a float merge (a permutation) and integer arithmetic are not
FP64 = [("vfadd.vv", 16), ("vfmacc.vv", 16), ("vfdiv.vv", 16), ("vfsqrt.v", 16), ("vfredusum.vs", 16),
        ("vmflt.vv", 16), ("vfmerge.vfm", 8), ("vadd.vv", 8), ("vdiv.vv", 8)]


@pytest.mark.parametrize("name, occ", FP64)
def test_vector_fp64_occupancy(name, occ):
    spec = BY_NAME[name]
    issue, lat = PINNED[spec.timing]
    setup = VSETUP.format(vl=32, vtype="e64, m8, ta, ma")
    assert cycles(repeat(spec, N, False, setup, "e64, m8, ta, ma")) == \
        vector(N, issue, lat, occ, accumulates(spec))     # vfmacc reads its own destination: always a chain
    if chain_source(spec) is not None:
        assert cycles(repeat(spec, N, True, setup, "e64, m8, ta, ma")) == vector(N, issue, lat, occ, True)
