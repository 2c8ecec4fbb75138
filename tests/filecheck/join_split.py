# tl.join is a tt.join adding a minor dimension of 2; tl.split is one tt.split per half ({index});
# tl.cat and tl.flip carry their dim.  Codegen copies with strided vector stores / loads.
# RUN: mtiacc-ir %s -O0 | filecheck %s --check-prefix=IR
# RUN: mtiacc %s --emit=asm | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def k(X, Y):
    r = tl.arange(0, 4)[:, None]
    c = tl.arange(0, 8)[None, :]
    x = tl.load(X + r * 8 + c)
    j = tl.join(x, x + 1.0)
    a, b = tl.split(j)
    tl.store(Y + r * 8 + c, tl.flip(a, 0) + b)
    tl.store(Y + 32 + r * 16 + tl.arange(0, 16)[None, :], tl.cat(a, b, dim=1))

# IR: %j = "tt.join"(%x, %{{[0-9]+}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8x2xf32>
# IR-NEXT: %a = "tt.split"(%j) {index = 0} : (tensor<4x8x2xf32>) -> tensor<4x8xf32>
# IR-NEXT: %b = "tt.split"(%j) {index = 1} : (tensor<4x8x2xf32>) -> tensor<4x8xf32>
# IR: "tt.flip"(%a) {dim = 0} : (tensor<4x8xf32>) -> tensor<4x8xf32>
# IR: "tt.cat"(%a, %b) {dim = 1} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x16xf32>
# ASM: vsse32.v
# ASM: vsse32.v
# ASM: vlse32.v
