# fuse-elementwise: a mask's cast to a number joins the chain (a merge of 0 and 1.0's bits, from an x register
# loaded before the loop, under the mask: no conversion), although it changes the element width: dropout's
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

# ASM: li [[ONE:[a-z0-9]+]], 1065353216
# ASM: .Lfused
# ASM: vmfgt.vf {{v[0-9]+}}, {{v[0-9]+}}, {{f[a-z0-9]+}}
# ASM: vmv.v.i [[D:v[0-9]+]], 0
# ASM: vmerge.vxm [[D]], [[D]], [[ONE]], v0
# ASM-NOT: vfcvt
# ASM-NOT: vse8.v
# ASM: bnez
