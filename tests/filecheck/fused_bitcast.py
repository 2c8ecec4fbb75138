# A same-width bitcast inside a fused loop moves no data: its result takes the register its operand is in when
# that is the operand's last use (Philox's `offset.to(tl.uint32)` and uint_to_uniform_float's reinterpretation
# as int32 in tl.rand); the value read again after the bitcast keeps its register and the bitcast copies it.
# RUN: mtiacc %s --kernel last_use --emit=asm -O2 --signature='*i32,*i32' | filecheck %s
# RUN: mtiacc %s --kernel read_again --emit=asm -O2 --signature='*i32,*i32' | filecheck %s --check-prefix=AGAIN
import triton
import triton.language as tl


@triton.jit
def last_use(X, Y):
    offs = tl.arange(0, 256)
    x = tl.load(X + offs)
    u = (x * 3).to(tl.uint32, bitcast=True)
    tl.store(Y + offs, ((u >> 3) ^ u).to(tl.int32, bitcast=True))


@triton.jit
def read_again(X, Y):
    offs = tl.arange(0, 256)
    x = tl.load(X + offs) * 3
    u = x.to(tl.uint32, bitcast=True)
    tl.store(Y + offs, (u >> 3).to(tl.int32, bitcast=True) + x)

# CHECK: .Lfused
# CHECK: vmul.vx [[P:v[0-9]+]]
# CHECK-NOT: vmv.v.v
# CHECK: vsrl.vx {{v[0-9]+}}, [[P]], {{[a-z0-9]+}}
# CHECK-NOT: vmv.v.v
# CHECK: bnez

# AGAIN: .Lfused
# AGAIN: vmv.v.v
# AGAIN: bnez
