# axis-info: contiguity / divisibility / constancy of the vector add's integer blocks.
# RUN: mtiacc %s --emit=ir --passes='axis-info{print=true}' -D BLOCK=64 | filecheck %s
# CHECK: // axis-info %0 = tt.make_range: contiguity=[64] divisibility=[1073741824] constancy=[1]
# CHECK: // axis-info %1 = tt.splat: contiguity=[1] divisibility=[64] constancy=[64]
# CHECK: // axis-info %offs = arith.addi: contiguity=[64] divisibility=[64] constancy=[1]
# CHECK: // axis-info %2 = tt.splat: contiguity=[1] divisibility=[1] constancy=[64]
# CHECK: // axis-info %3 = tt.addptr: contiguity=[64] divisibility=[1] constancy=[1]
import triton
import triton.language as tl


@triton.jit
def k(X, Y, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs))
