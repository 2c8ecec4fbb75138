# machine-schedule: list scheduling within a block by the target's latencies.  The load of N, on the
# longest path (N feeds the mask arithmetic), goes first; the loads of B and C fill the cycles between
# the program id and its first use.  Without the pass the code keeps instruction selection's order.
# RUN: mtiacc %s --emit=asm -O2 -D BLOCK=256 | filecheck %s --check-prefix=SCHED
# RUN: mtiacc %s --emit=asm -O2 -D BLOCK=256 --disable-pass=machine-schedule | filecheck %s --check-prefix=RAW
import triton
import triton.language as tl


@triton.jit
def add(A, B, C, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    tl.store(C + offs, tl.load(A + offs, mask=m) + tl.load(B + offs, mask=m), mask=m)

# SCHED-LABEL: add:
# SCHED-NEXT: .loc
# SCHED-NEXT: lw {{[a-z0-9]+}}, 24(zero)
# SCHED-NEXT: ld {{[a-z0-9]+}}, 0(zero)
# SCHED: mtia.pid [[PID:[a-z0-9]+]], 0
# SCHED: ld {{[a-z0-9]+}}, 8(zero)
# SCHED: slliw {{[a-z0-9]+}}, [[PID]], 8

# RAW-LABEL: add:
# RAW-NEXT: .loc
# RAW-NEXT: ld {{[a-z0-9]+}}, 0(zero)
# RAW-NEXT: ld {{[a-z0-9]+}}, 8(zero)
# RAW-NEXT: ld {{[a-z0-9]+}}, 16(zero)
# RAW-NEXT: lw {{[a-z0-9]+}}, 24(zero)
# RAW: mtia.pid [[PID:[a-z0-9]+]], 0
# RAW-NEXT: slliw {{[a-z0-9]+}}, [[PID]], 8
