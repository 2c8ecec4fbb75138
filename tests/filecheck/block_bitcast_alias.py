# A same-width bitcast of a block outside a fused loop moves no data: its result is its operand's buffer under
# another type (as a reshape is), so Inductor's `offsets.to(tl.uint32)` before rand4x's `tl.min` is no copy loop.
# RUN: mtiacc %s --emit=asm -O2 --signature='*i32,*i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def first(X, S):
    offs = tl.arange(0, 256)
    u = tl.load(X + offs).to(tl.uint32, bitcast=True)
    tl.store(S, tl.min(u, 0).to(tl.int32, bitcast=True))

# CHECK-NOT: # tt.bitcast
# CHECK: vredminu.vs
# CHECK-NOT: # tt.bitcast
# CHECK: ret
