# libdevice.exp and libdevice.exp2 promise what CUDA states for expf and exp2f, 2 ULP: the frontend marks them
# {approx = true}, as tl.exp, and codegen computes them on the SIMD engine where its table is within 2 ULP (the
# built-in machine's 22-bit tables).  A machine whose exp table has 20 bits (8 ULP) keeps libdevice.exp on the
# vector library's polynomial (1 ULP), and f64 always does.
# RUN: mtiacc %s --emit=ir -D BLOCK=64 --signature=*fp32,*fp32,*fp64 | filecheck %s --check-prefix=IR
# RUN: mtiacc %s --emit=asm -D BLOCK=64 --signature=*fp32,*fp32,*fp64 | filecheck %s --check-prefix=SE
# RUN: mtiacc %s --emit=asm -D BLOCK=64 --signature=*fp32,*fp32,*fp64 --set se.functions.exp.bits=20 | filecheck %s --check-prefix=COARSE
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def k(X, Y, D, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(X + i)
    tl.store(Y + i, libdevice.exp(x) + libdevice.exp2(x))
    d = tl.load(D + i)
    tl.store(D + i, libdevice.exp(d))

# IR: "math.exp"([[X:%[0-9]+]]) {approx = true} : (f32) -> f32 loc({{.*}}:17:21)
# IR: "math.exp2"([[X]]) {approx = true} : (f32) -> f32 loc({{.*}}:17:40)
# IR: "math.exp"(%d) : (tensor<64xf64>) -> tensor<64xf64> loc({{.*}}:19:21)

# SE-LABEL: k:
# SE: mtia.se.exp.v [[E:v[0-9]+]], [[X:v[0-9]+]]
# SE: mtia.se.exp2.v {{v[0-9]+}}, [[X]]
# SE-NOT: vfmacc
# the f64 exp: the library's polynomial
# SE: e64
# SE-NOT: mtia.se.
# SE: vfmacc.vv
# SE: ret

# COARSE-LABEL: k:
# COARSE-NOT: mtia.se.exp.v
# COARSE: vfmacc.vv
# COARSE-NOT: mtia.se.exp.v
# COARSE: mtia.se.exp2.v
# COARSE-NOT: mtia.se.exp.v
# COARSE: ret
