# Local-memory allocation with liveness-based reuse: each block gets a buffer when it is defined, and a
# buffer is free again after its last reader.  `c` takes the buffer of `a` (dead once `b` is computed)
# and `d` the buffer of `b`: two buffers serve four blocks.  (-O1: no fusion, one loop per op; --no-fp-fusion
# keeps b + 1.0 apart from a * 2.0.)
# RUN: mtiacc %s --emit=asm -O1 -D BLOCK=256 --no-fp-fusion | filecheck %s
import triton
import triton.language as tl


@triton.jit
def chain(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(X + offs)
    b = a * 2.0
    c = b + 1.0
    d = c * 3.0
    tl.store(Y + offs, d)

# CHECK: li [[A:[a-z0-9]+]], 64
# CHECK-NEXT: li [[N:[a-z0-9]+]], 1024
# CHECK-NEXT: mtia.dma.in [[A]], {{[a-z0-9]+}}, [[N]]
# CHECK: # arith.mulf
# CHECK-NEXT: li {{[a-z0-9]+}}, 64
# CHECK-NEXT: li {{[a-z0-9]+}}, 1088
# CHECK: # arith.addf
# CHECK-NEXT: li {{[a-z0-9]+}}, 1088
# CHECK-NEXT: li {{[a-z0-9]+}}, 64
# CHECK: # arith.mulf
# CHECK-NEXT: li {{[a-z0-9]+}}, 64
# CHECK-NEXT: li {{[a-z0-9]+}}, 1088
# CHECK: mtia.dma.out
