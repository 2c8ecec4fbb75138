# The wait before a load that may read what an earlier store writes (`after_store`) waits for the stores the load may
# read only (mtiacc/ir/analysis/dram_order.py: hazard_stores), and leaves the transfers issued after the last of
# them in flight (its count; insert-waits):
# - `y` reads what the store of line 19 writes; the load of `x` was issued after that store: the wait leaves it in
#   flight (`mtia.dma.wait 1`), and `y`'s transfer overlaps it;
# - `u` reads Y again: the store of line 19 has completed, and the store in flight (line 22, W) is not one it may
#   read: no wait (a wait for every store in flight would wait for W's).
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 -D BLOCK=16 -s '*i32,*i32,*i32,*i32' | filecheck %s
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O0 -D BLOCK=16 -s '*i32,*i32,*i32,*i32' | filecheck %s
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=16 -s '*i32,*i32,*i32,*i32' | filecheck %s --check-prefix=IR
import triton
import triton.language as tl


@triton.jit
def counted(X, Y, Z, W, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(Z + offs)
    tl.store(Y + offs, a + 1)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    tl.store(W + offs, x + y)
    u = tl.load(Y + offs)
    tl.store(Z + offs, u * 2)

# CHECK-LABEL: counted:
# CHECK: mtia.dma.out
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.in
# CHECK-NOT: mtia.dma.{{in|out}}
# CHECK: mtia.dma.wait 1 # a store in flight may write what the load reads (tl.store at line 19: the same parameter, at overlapping offsets) (the transfer issued since stay in flight)
# CHECK: mtia.dma.in
# CHECK: mtia.dma.out
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.in
# CHECK-NOT: a store in flight may write
# CHECK: ret

# IR: %y = "tt.load"({{.*}}after_store = "tl.store at line 19: the same parameter, at overlapping offsets"
# IR: %u = "tt.load"({{.*}}after_store = "tl.store at line 19: the same parameter, at overlapping offsets"
