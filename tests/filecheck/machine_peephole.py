# machine-peephole: a multiply by a power of two becomes a shift; two DMA waits with nothing reading
# memory between them become one.  --disable-pass keeps the code as instruction selection made it.
# RUN: mtiacc %s --emit=asm -O2 -D BLOCK=256 | filecheck %s --check-prefix=PEEP
# RUN: mtiacc %s --emit=asm -O2 -D BLOCK=256 --disable-pass=machine-peephole | filecheck %s --check-prefix=RAW
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < N)
    tl.store(Y + offs, x * 3.0, mask=offs < N)

# PEEP: mtia.pid [[PID:[a-z0-9]+]], 0
# PEEP-NOT: mulw
# PEEP: slliw {{[a-z0-9]+}}, [[PID]], 8
# PEEP: vfmul.vf

# RAW: mtia.pid [[PID:[a-z0-9]+]], 0
# RAW: li [[K:[a-z0-9]+]], 256
# RAW: mulw {{[a-z0-9]+}}, [[PID]], [[K]]
