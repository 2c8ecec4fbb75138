# A fused elementwise loop reads a scalar operand (a constant, a kernel argument) from its x or f register with the
# .vx / .vf form of the instruction, not splatted into a vector group first (vmv.v.x / vfmv.v.f take as long as the
# operation itself); a scalar left operand of - and / uses the reversed forms.  tl.umulhi is one vmulhu at 32 bits.
# fp32 * and - run on the SIMD engine's ALUs (mtia.se.f<op>.vf, the same forms), / on the vector unit.
# RUN: mtiacc %s --emit=asm -O2 --signature=*u32,*u32,*fp32,*fp32,u32,fp32 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def k(A, B, X, Y, key, f):
    offs = tl.arange(0, 256)
    a = tl.load(A + offs)
    x = tl.load(X + offs)
    h = tl.umulhi(a, 3528531795) ^ key
    tl.store(B + offs, h + (a * 7))
    tl.store(Y + offs, (1.0 - x * f) / (2.0 / x))

# CHECK: .Lfused
# CHECK-NOT: vmv.v.x
# CHECK-DAG: vmulhu.vx {{v[0-9]+}}, {{v[0-9]+}}, {{[a-z0-9]+}}
# CHECK-DAG: vxor.vx
# CHECK-DAG: vmul.vx
# CHECK: bnez
# CHECK: .Lfused
# CHECK-NOT: vfmv.v.f
# CHECK-DAG: mtia.se.fmul.vf
# CHECK-DAG: mtia.se.frsub.vf
# CHECK-DAG: vfrdiv.vf
# CHECK: bnez
