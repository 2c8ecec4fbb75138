# Which math functions run on the SIMD engine.  By default those where the SE's table is within the vector
# library's guarantee (tanh: 2 ULP against 3; log2 and erf: 2 against 2), and tl.exp, marked approximate (as
# Triton's GPU backends compute it with an approximate exp2: 2 ULP, the table's bound); libdevice.exp (1 ULP) and
# sin keep the library's polynomial expansions (a multiply-add chain on the vector unit) and sqrt its vfsqrt.v.  With
# --fast-math every function the SE has is one mtia.se.<function>.v; f64 stays on the vector library either way.
# RUN: mtiacc %s --emit=asm -D BLOCK=64 --signature=*fp32,*fp32,*fp64 | filecheck %s --check-prefix=DEFAULT
# RUN: mtiacc %s --emit=asm -D BLOCK=64 --signature=*fp32,*fp32,*fp64 --fast-math | filecheck %s --check-prefix=FAST
# RUN: mtiacc %s --emit=ir -D BLOCK=64 --signature=*fp32,*fp32,*fp64 | filecheck %s --check-prefix=IR
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def k(X, Y, D, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(X + i)
    y = tl.exp(x) * tl.log2(x) + libdevice.tanh(x) - tl.erf(x) * tl.sqrt(x) + tl.sin(x) + libdevice.exp(x)
    tl.store(Y + i, y)
    d = tl.load(D + i)
    tl.store(D + i, tl.exp(d))

# IR: "math.exp"(%{{[0-9]+}}) {approx = true} : (f32) -> f32 loc({{.*}}:18:9)
# IR: "math.exp"(%{{[0-9]+}}) : (f32) -> f32 loc({{.*}}:18:91)
# IR: "math.exp"(%d) : (tensor<64xf64>)

# DEFAULT-LABEL: k:
# DEFAULT: mtia.se.exp.v [[E:v[0-9]+]], [[X:v[0-9]+]]
# DEFAULT: mtia.se.log2.v {{v[0-9]+}}, [[X]]
# DEFAULT: mtia.se.tanh.v {{v[0-9]+}}, [[X]]
# DEFAULT-DAG: vfsqrt.v {{v[0-9]+}}, [[X]]
# DEFAULT-DAG: mtia.se.erf.v {{v[0-9]+}}, [[X]]
# DEFAULT-NOT: mtia.se.{{exp|sqrt|sin}}.v
# DEFAULT-NOT: mtia.se.
# libdevice.exp: the library's polynomial
# DEFAULT: vfmacc.vv
# DEFAULT-NOT: mtia.se.
# DEFAULT: ret

# FAST-LABEL: k:
# FAST: vsetvli {{.+}}, e32, m4
# FAST: mtia.se.exp.v [[E:v[0-9]+]], [[X:v[0-9]+]]
# FAST: mtia.se.log2.v {{v[0-9]+}}, [[X]]
# FAST: mtia.se.tanh.v {{v[0-9]+}}, [[X]]
# FAST: mtia.se.erf.v {{v[0-9]+}}, [[X]]
# FAST: mtia.se.sqrt.v {{v[0-9]+}}, [[X]]
# FAST: mtia.se.sin.v {{v[0-9]+}}, [[X]]
# the f64 exp: the library's polynomial, no SE instruction
# FAST: e64
# FAST-NOT: mtia.se.
# FAST: vfmacc.vv
# FAST-NOT: mtia.se.
# FAST: ret
