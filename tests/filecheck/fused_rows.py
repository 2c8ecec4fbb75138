# A column broadcast along the rows (`m[:, None]`, [R, 1] -> [R, C] with C >= 16) is never built: a lone op reading
# one is fused (fuse-elementwise), and the fused loop runs a row at a time with the column's element in an f
# register (`flw`, then the `.vf` form), as flash attention's `acc * alpha[:, None]` and `qk - m[:, None]`.
# RUN: mtiacc %s --emit=ir -O3 | filecheck %s --check-prefix=IR
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def rows(X, M, O):
    r = tl.arange(0, 32)
    c = tl.arange(0, 64)
    x = tl.load(X + r[:, None] * 64 + c[None, :])
    m = tl.load(M + r)
    tl.store(O + r[:, None] * 64 + c[None, :], x * m[:, None])

# IR: %[[B:[0-9]+]] = "tt.broadcast"({{.*}}) : (tensor<32x1xf32>) -> tensor<32x64xf32>
# IR: "tt.fused_elementwise"(%x, %[[B]])
# IR-NEXT: ^bb0
# IR-NEXT: "arith.mulf"
# IR-NEXT: "tt.fused_yield"

# CHECK: tt.fused_elementwise (1 ops), a row at a time
# CHECK-NOT: vlse32.v
# CHECK: .Lrows{{[0-9]+}}:
# CHECK-NEXT: flw [[S:[a-z0-9]+]], 0([[P:[a-z0-9]+]])
# CHECK-NEXT: addi [[P]], [[P]], 4
# CHECK: .Lfused{{[0-9]+}}:
# CHECK: vfmul.vf {{v[0-9]+}}, {{v[0-9]+}}, [[S]]
# CHECK: bnez
# CHECK: bnez {{[a-z0-9]+}}, .Lrows
