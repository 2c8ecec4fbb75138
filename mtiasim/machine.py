"""The state of one wave of programs and the lockstep interpreter loop.

Every program of a wave runs on its own PE; all programs are simulated together: scalar and float registers are
``[32, P]`` arrays (register-major, so one register of all programs is contiguous), vector registers a
``uint8 [P, 32 * VLENB]`` array viewed per SEW, local memory ``uint8 [P, local_memory_bytes]``.  Each step runs
one instruction on a *group* of programs that share a pc (``slice(None)`` when all of them do); a group keeps
running while its pc is below every other program's pc (min-pc scheduling, so diverged programs reconverge).
"""
from __future__ import annotations

from typing import Callable, List, Optional

import numpy as np

from mtiacc.diagnostics import KernelFault
from mtiacc.machine.simulator import MachineConfig

from .faults import SimFault
from .loader import HALT_ADDRESS, Program  # noqa: F401 - HALT_ADDRESS: ra at launch, the end of a program
from .memory import Dram
from .sync.progress import CHECK_STEPS

ALL = slice(None)
_BIG = 1 << 62

DTYPES = {  # name -> numpy dtype for the memory/register views
    "i8": np.int8, "u8": np.uint8, "i16": np.int16, "u16": np.uint16, "i32": np.int32, "u32": np.uint32,
    "i64": np.int64, "u64": np.uint64, "f16": np.float16, "f32": np.float32, "f64": np.float64,
}


class Machine:
    """``P`` PEs' worth of state, with the program's executors bound to it (decode once, bind once, run many)."""

    def __init__(self, cfg: MachineConfig, program: Program, P: int, local_memory: np.ndarray, dram: Dram,
                 timing, max_steps: int, max_cycles: float = float("inf")):
        from .semantics import bind_executor  # noqa: late import (semantics imports machine constants)
        from .semantics.dpe import DpeState
        from .sync.atomics import AtomicUnits
        from .sync.progress import Scheduler

        self.cfg = cfg
        self.program = program
        self.P = P
        self.rows = np.arange(P)
        self.vlenb = cfg.vlenb
        self.lmb = cfg.local_memory_bytes
        self.dram = dram
        self.max_steps = max_steps          # the steps this wave may take (what the run's budget has left)
        self.step_budget = max_steps        # the run's budget, for the message (runner.run sets both)
        # scalar and float registers, register-major
        self.X = np.zeros((32, P), np.int64)
        self.XU = self.X.view(np.uint64)
        # f registers are 64 bits (RV64D): FD views them as doubles; FF/FI/FW are the low 32 bits (a single lives
        # there NaN-boxed: the upper 32 bits, FH, all ones) -- strided views, so writes land in F
        self.F = np.zeros((32, P), np.uint64)
        self.FD = self.F.view(np.float64)
        self.FF = self.F.view(np.float32)[:, 0::2]
        self.FI = self.F.view(np.int32)[:, 0::2]
        self.FW = self.F.view(np.uint32)[:, 0::2]
        self.FH = self.F.view(np.uint32)[:, 1::2]
        # vector registers: program-major, elements of one register group contiguous
        self.V = np.zeros((P, 32 * self.vlenb), np.uint8)
        self.Vu = {8: self.V, 16: self.V.view(np.uint16), 32: self.V.view(np.uint32), 64: self.V.view(np.uint64)}
        self.Vs = {8: self.V.view(np.int8), 16: self.V.view(np.int16), 32: self.V.view(np.int32),
                   64: self.V.view(np.int64)}
        self.Vf = {16: self.V.view(np.float16), 32: self.V.view(np.float32), 64: self.V.view(np.float64)}
        self.vl = np.zeros(P, np.int64)
        self.sew = np.zeros(P, np.int64)      # 0: vtype is illegal (no vsetvli yet)
        self.vtype = np.zeros(P, np.int64)
        self.vl_u: Optional[int] = 0          # the vl of every program when they agree, else None
        self.sew_u: Optional[int] = 0
        # local memory (a view of the per-PE arrays, which persist across waves like the hardware's)
        self.LM = local_memory
        self.LMv = {k: self.LM.view(v) for k, v in DTYPES.items()}
        self.pid = np.zeros((3, P), np.int64)
        self.nprogs = [1, 1, 1]
        self.linear = np.zeros(P, np.int64)
        self.grid = (1, 1, 1)
        self.pcs = np.zeros(P, np.int64)
        self.dma_cfg = np.zeros((3, P), np.int64)   # 2-D DMA: rows, DRAM row stride, local row stride
        # timing state (cycles as float64: DMA transfers take fractional cycles)
        self.timing = timing
        self.cyc = np.zeros(P)
        self.xr = np.zeros((32, P))
        self.fr = np.zeros((32, P))
        self.vr = np.zeros((32, P))
        self.vfree = np.zeros(P)
        self.sefree = np.zeros(P)      # the SIMD engine's next free cycle (mtiasim/se/timing.py)
        self.vmem = np.zeros(P)        # when the vector unit's last load or store has finished
        self.semem = np.zeros(P)       # when the SE's last load or store has finished
        from .dma import DmaSystem
        from .timing import ACC, UniformTiming
        self.acc = {k: np.zeros(P) for k in ACC}
        self.dma = DmaSystem(cfg, P)
        self.dpe = DpeState(cfg, P)     # the matrix engines' functional state (semantics/dpe.py)
        # only matrix-engine instructions change that state: a program without them needs no clearing per wave
        self.uses_dpe = any(d is not None and d.spec.sem_family == "dpe" for d in program.decoded)
        self.dma_issue_t = 0.0
        self.atomics = AtomicUnits(cfg, P)    # the atomic units' timing state (sync/atomics.py)
        self.dram_epoch = 0                   # DRAM / SRAM writes so far (DMA out, atomics that change memory)
        self.dram_reads = np.zeros(P, np.int64)   # per program: DMA-in transfers and atomics so far
        self.ts = UniformTiming(self)
        self.dma_bytes_in = 0
        self.dma_bytes_out = 0
        self.profile = None     # per-instruction core cycles ([n] float) when profiling
        # bind every instruction once
        self.text_base = program.text_base
        self.counts = [0] * len(program.decoded)
        sync = np.array([d is not None and d.spec.sem_family in ("amo", "fence") for d in program.decoded], bool)
        self.sched = Scheduler(self, sync, max_cycles)
        self.execs: List[Callable] = [bind_executor(self, d, program.text_base + 4 * k, k)
                                      for k, d in enumerate(program.decoded)]
        self.plain_execs = self.execs

    # ------------------------------------------------------------------------------------------------------
    def update_uniform(self) -> None:
        v = self.vl
        lo = int(v.min())
        self.vl_u = lo if int(v.max()) == lo else None
        s = self.sew
        lo = int(s.min())
        self.sew_u = lo if int(s.max()) == lo else None

    def reset(self, linear: np.ndarray, grid, args: bytes, args_base: int, seed: int = 0, wave: int = 0,
              offset: float = 0.0, later=(0, 0)) -> None:
        P = self.P
        self.X[:] = 0
        self.X[2] = self.lmb          # sp
        self.X[1] = HALT_ADDRESS      # ra
        self.F[:] = 0
        self.V[:] = 0
        self.vl[:] = 0
        self.sew[:] = 0
        self.vtype[:] = 0
        self.dma_cfg[:] = 0
        self.vl_u = 0
        self.sew_u = 0
        self.linear[:] = linear
        self.grid = tuple(grid)
        gx, gy, _ = grid
        self.pid[0] = linear % gx
        self.pid[1] = (linear // gx) % gy
        self.pid[2] = linear // (gx * gy)
        self.nprogs = list(grid)
        if args:
            self.LM[:, args_base:args_base + len(args)] = np.frombuffer(args, np.uint8)
        self.cyc[:] = 0
        self.xr[:] = 0
        self.fr[:] = 0
        self.vr[:] = 0
        self.vfree[:] = 0
        self.sefree[:] = 0
        self.vmem[:] = 0
        self.semem[:] = 0
        for a in self.acc.values():
            a[:] = 0
        self.dma.reset()
        if self.uses_dpe:
            self.dpe.reset()
        self.ts.reset()
        self.atomics.reset(seed, wave)
        self.dram_reads[:] = 0
        self.sched.reset()
        self.sched.offset = offset
        self.sched.later = tuple(later)

    def enable_profile(self) -> None:
        """Count, per instruction, the core cycles it takes (its stalls and issue), summed over programs; a DMA
        wait's stall is charged to the load or store that issued the transfer (:func:`.profile.instrument`)."""
        from .profile import instrument
        self.profile, self.profile_moved = instrument(self)

    def program_id(self, slot: int):
        return tuple(int(self.pid[a, slot]) for a in range(3))

    # ------------------------------------------------------------------------------------------------------
    def run(self) -> int:
        """Run the wave to completion; returns the number of steps (instruction groups) executed."""
        execs = self.execs
        counts = self.counts
        n = len(execs)
        base = self.text_base
        P = self.P
        pcs = self.pcs
        pcs[:] = self.program.entry
        pc = self.program.entry
        g = ALL
        gsize = P
        barrier = _BIG     # the lowest pc of any program outside the group
        steps = 0
        limit = self.max_steps
        sched = self.sched
        coop = sched.coop
        check = min(sched.next_check, limit + 1)
        try:
            with np.errstate(all="ignore"):
                while True:
                    if pc < barrier:
                        k = (pc - base) >> 2
                        if k < 0 or k >= n or pc & 3:
                            if pc == HALT_ADDRESS:
                                pcs[g] = pc
                                pc = _BIG
                                continue
                            raise SimFault(self._bad_pc_message(pc))
                        r = execs[k](g)
                        counts[k] += gsize
                        steps += 1
                        if r is None:
                            pc += 4
                        elif r.__class__ is int:
                            if r <= pc and coop and sched.ahead(g):
                                pcs[g] = r      # a backward branch far ahead of a slower program: yield
                                pc = _BIG
                            else:
                                pc = r
                        else:
                            pcs[g] = r
                            pc = _BIG  # force a regroup
                        if steps >= check:
                            if steps > limit:
                                self._runaway(g, pc if pc != _BIG else None, steps)
                            if coop and steps < check + CHECK_STEPS and not (r.__class__ is int and r <= base + (k << 2)):
                                continue    # the watchdog samples a cooperating wave at a back-edge (sync/progress.py)
                            if pc != _BIG:
                                pcs[g] = pc
                            sched.check(steps, pcs, HALT_ADDRESS)
                            check = min(sched.next_check, limit + 1)
                        continue
                    # regroup
                    if pc != _BIG:
                        pcs[g] = pc
                    if coop:     # cooperating programs: by pc and simulated time (sync/progress.py)
                        live = pcs != HALT_ADDRESS
                        if not live.any():
                            break
                        pc, idx, b = sched.choose(pcs, live, base)
                        gsize = len(idx)
                        g = ALL if gsize == P else idx
                        barrier = _BIG if b is None else b
                        continue
                    # the programs at the lowest pc run next
                    m = int(pcs.min())
                    if m == HALT_ADDRESS:
                        break
                    sel = pcs == m
                    idx = np.flatnonzero(sel)
                    gsize = len(idx)
                    if gsize == P:
                        g = ALL
                        barrier = _BIG
                    else:
                        g = idx
                        barrier = int(pcs[~sel].min())
                    pc = m
        except SimFault as f:
            raise self._fault(f, g, pc if pc != _BIG else None) from None
        return steps

    def _bad_pc_message(self, pc: int) -> str:
        end = self.text_base + 4 * len(self.execs)
        if pc & 3:
            return f"misaligned jump target: pc 0x{pc % (1 << 64):x} is not a multiple of 4"
        return (f"jump outside the program: pc 0x{pc % (1 << 64):x} is not in .text "
                f"(0x{self.text_base:x}..0x{end:x}) and is not the halt address")

    def _runaway(self, g, pc, steps):
        raise SimFault(f"the run executed more than {self.step_budget} instruction steps without finishing, counted "
                       f"across its waves (an endless loop? raise --max-steps if the kernel really is this long)")

    def _fault(self, f: SimFault, g, pc) -> KernelFault:
        from .faults import group_slots
        slot = f.slot
        if slot is None:
            slot = int(group_slots(g, self.P)[0])
        if pc is None or slot not in group_slots(g, self.P):
            pc = int(self.pcs[slot])
        prog = self.program
        notes = [f"in program {self.program_id(slot)} (linear id {int(self.linear[slot])}, "
                 f"PE {int(self.linear[slot]) % self.cfg.n_pes})"]
        k = (pc - self.text_base) >> 2
        if 0 <= k < len(self.execs) and not pc & 3:
            notes.append(f"at pc 0x{pc:x}: {prog.disassemble(k)}")
        else:
            notes.append(f"at pc 0x{pc % (1 << 64):x}")
        notes.extend(f.notes)
        loc, text = prog.location(pc)
        return KernelFault(f.message, loc, notes, source_line=text)
