# fuse-elementwise: a mask's cast to a number joins the chain, although it changes the element width: dropout's
# `(r > p).to(tl.float32) * x * scale` is one loop, with no byte block written and read back between the compare
# and the multiply.
# RUN: mtiacc-ir %s --passes=canonicalize,fuse-elementwise,dce --signature='*fp32,*fp32,*fp32' | filecheck %s
# RUN: mtiacc %s --emit=asm -O2 --signature='*fp32,*fp32,*fp32' | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def keep(R, X, Y):
    offs = tl.arange(0, 256)
    r = tl.load(R + offs)
    x = tl.load(X + offs)
    tl.store(Y + offs, (r > 0.1).to(tl.float32) * x * 1.25)

# CHECK: "tt.fused_elementwise"
# CHECK: "arith.cmpf"
# CHECK-NEXT: "arith.uitofp"({{.*}}) : (i1) -> f32
# CHECK-NEXT: "arith.mulf"
# CHECK: "tt.fused_yield"
# CHECK-NOT: "arith.uitofp"

# The multiply by the cast is a multiply by 0.0 under the mask `not (r > 0.1)`, the other elements undisturbed
# (codegen/vector/masks.py): the compare writes v0 itself, a float compare has no exact inverse predicate (NaN), so one
# vmnand.mm inverts it; no merge, no conversion, no byte block.
# ASM: fmv.w.x [[FZ:f[a-z0-9]+]], zero
# ASM: .Lfused
# ASM: vsetvli {{.*}}, e32, m4, ta, mu
# ASM: vmfgt.vf v0, {{v[0-9]+}}, {{f[a-z0-9]+}}
# ASM: vmnand.mm v0, v0, v0
# ASM: vfmul.vf [[X:v[0-9]+]], [[X]], [[FZ]], v0.t
# ASM-NOT: vmerge
# ASM-NOT: vfcvt
# ASM-NOT: vse8.v
# ASM: bnez
