# contract-fma: a * b + c, the product read by the add alone, is one math.fma (rounded once), as Triton's
# enable_fp_fusion does by default; at the add's location.  Not contracted: a product read twice (p), a
# subtraction, a product by a bool made a float (exact: the masked multiply computes it), f16.  --no-fp-fusion
# leaves every add as it is.  The pass opens every level's pipeline, so -O0 decides alike.
# RUN: mtiacc %s --emit=ir -O0 --signature='*fp32,*fp32,*fp16' | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 --signature='*fp32,*fp32,*fp16' | filecheck %s --check-prefix=O3
# RUN: mtiacc %s --emit=ir -O3 --no-fp-fusion --signature='*fp32,*fp32,*fp16' | filecheck %s --check-prefix=OFF
import triton
import triton.language as tl


@triton.jit
def k(X, Y, H):
    offs = tl.arange(0, 64)
    x = tl.load(X + offs)
    y = tl.load(Y + offs)
    a = x * y + 1.0
    p = x * 3.0
    b = p + y
    c = x * y - y
    d = (x > 0).to(tl.float32) * y + x
    tl.store(Y + offs, a + b * p + c + d)
    h = tl.load(H + offs)
    tl.store(H + offs, h * h + h)

# CHECK: %a = "math.fma"(%x, %y, %{{[0-9]+}}) : {{.*}} loc({{.*}}:17:9)
# CHECK: %p = "arith.mulf"(%x
# CHECK: %b = "arith.addf"(%p, %y)
# CHECK: "arith.mulf"(%x, %y)
# CHECK-NEXT: %c = "arith.subf"
# CHECK: "arith.uitofp"
# CHECK-NEXT: "arith.mulf"
# CHECK-NEXT: %d = "arith.addf"
# a + b * p: b * p is read once, by the add
# CHECK: "math.fma"(%b, %p, %a) : {{.*}} loc({{.*}}:22:24)
# CHECK: "arith.mulf"(%h, %h) : (tensor<64xf16>
# CHECK-NEXT: "arith.addf"({{.*}}) : (tensor<64xf16>

# -O3 decides alike, inside the fused region
# O3: "tt.fused_elementwise"
# O3-COUNT-2: "math.fma"
# O3-NOT: "math.fma"

# OFF-NOT: math.fma
