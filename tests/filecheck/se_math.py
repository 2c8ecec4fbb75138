# Which math functions run on the SIMD engine.  By default those where the SE's table is within the vector
# library's guarantee (tanh: 2 ULP against 3; log2 and erf: 2 against 2), and tl.exp and libdevice.exp, marked
# approximate (Triton's GPU backends compute tl.exp with an approximate exp2; CUDA states 2 ULP for libdevice's
# expf: the table's bound); sin keeps the library's polynomial expansion (a multiply-add chain on the vector unit)
# and sqrt its vfsqrt.v.  With --fast-math every function the SE has is one mtia.se.<function>.v; f64 stays on the
# vector library either way.
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

# libdevice.exp(x) is the same op as tl.exp(x) (both approx): one exp of x is left
# IR: "math.exp"(%{{[0-9]+}}) {approx = true} : (f32) -> f32 loc({{.*}}:19:9)
# IR-NOT: "math.exp"({{.*}}) {approx = true} : (f32)
# IR: "math.exp"(%d) : (tensor<64xf64>)

# DEFAULT-LABEL: k:
# DEFAULT: vle32.v [[X:v[0-9]+]]
# DEFAULT-DAG: mtia.se.exp.v {{v[0-9]+}}, [[X]]
# DEFAULT-DAG: mtia.se.log2.v {{v[0-9]+}}, [[X]]
# DEFAULT-DAG: mtia.se.tanh.v {{v[0-9]+}}, [[X]]
# DEFAULT-DAG: vfsqrt.v {{v[0-9]+}}, [[X]]
# DEFAULT-DAG: mtia.se.erf.v {{v[0-9]+}}, [[X]]
# DEFAULT-NOT: mtia.se.{{[a-z0-9]+}}.v{{\s}}
# sin: the library's polynomial
# DEFAULT: vfmacc.vv
# DEFAULT-NOT: mtia.se.{{[a-z0-9]+}}.v{{\s}}
# the f64 exp: the library's polynomial
# DEFAULT: e64
# DEFAULT-NOT: mtia.se.{{[a-z0-9]+}}.v{{\s}}
# DEFAULT: vfmacc.vv
# DEFAULT-NOT: mtia.se.{{[a-z0-9]+}}.v{{\s}}
# DEFAULT: ret

# FAST-LABEL: k:
# FAST: vsetvli {{.+}}, e32, m4
# FAST: vle32.v [[X:v[0-9]+]]
# FAST-DAG: mtia.se.exp.v {{v[0-9]+}}, [[X]]
# FAST-DAG: mtia.se.log2.v {{v[0-9]+}}, [[X]]
# FAST-DAG: mtia.se.tanh.v {{v[0-9]+}}, [[X]]
# FAST-DAG: mtia.se.erf.v {{v[0-9]+}}, [[X]]
# FAST-DAG: mtia.se.sqrt.v {{v[0-9]+}}, [[X]]
# FAST-DAG: mtia.se.sin.v {{v[0-9]+}}, [[X]]
# the f64 exp: the library's polynomial, no SE instruction
# FAST: e64
# FAST-NOT: mtia.se.{{[a-z0-9]+}}.v{{\s}}
# FAST: vfmacc.vv
# FAST-NOT: mtia.se.{{[a-z0-9]+}}.v{{\s}}
# FAST: ret
