# A column broadcast along the rows (`m[:, None]`, [R, 1] -> [R, C] with C >= 16) is never built: a lone op reading
# one is fused (fuse-elementwise), and the fused loop runs by rows with the column's element in an f register
# (`flw`, then the `.vf` form, on the SIMD engine's ALUs), as flash attention's `acc * alpha[:, None]` and
# `qk - m[:, None]`.  A row that fits one chunk at LMUL 4 (C = 64 f32) runs two rows an iteration, each in groups
# of its own, each row's store after the other row's step (both loads and both multiplies issue before the first
# store, which waits for its multiply), its loads and stores the SE's own (mtia.se.vle32.v / vse32.v: the
# vector unit does nothing); a longer one (C = 128) a row at a time, in chunks, through the SE as well.
# RUN: mtiacc %s --emit=ir -O3 -D C=64 | filecheck %s --check-prefix=IR
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D C=64 | filecheck %s --check-prefix=PAIRS
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D C=128 | filecheck %s --check-prefix=ROWS
import triton
import triton.language as tl


@triton.jit
def rows(X, M, O, C: tl.constexpr):
    r = tl.arange(0, 32)
    c = tl.arange(0, C)
    x = tl.load(X + r[:, None] * C + c[None, :])
    m = tl.load(M + r)
    tl.store(O + r[:, None] * C + c[None, :], x * m[:, None])

# IR: %[[B:[0-9]+]] = "tt.broadcast"({{.*}}) : (tensor<32x1xf32>) -> tensor<32x64xf32>
# IR: "tt.fused_elementwise"(%x, %[[B]])
# IR-NEXT: ^bb0
# IR-NEXT: "arith.mulf"
# IR-NEXT: "tt.fused_yield"

# PAIRS: li {{[a-z0-9]+}}, 16 # tt.fused_elementwise (1 ops), two rows at a time
# PAIRS-NOT: vlse32.v
# PAIRS: .Lrows{{[0-9]+}}:
# PAIRS-DAG: flw [[S0:[a-z0-9]+]], 0({{[a-z0-9]+}})
# PAIRS-DAG: flw [[S1:[a-z0-9]+]], 0({{[a-z0-9]+}})
# PAIRS-DAG: mtia.se.fmul.vf {{v[0-9]+}}, {{v[0-9]+}}, [[S0]]
# PAIRS-DAG: mtia.se.fmul.vf {{v[0-9]+}}, {{v[0-9]+}}, [[S1]]
# PAIRS-DAG: mtia.se.vle32.v [[X0:v[0-9]+]]
# PAIRS-DAG: mtia.se.vle32.v [[X1:v[0-9]+]]
# PAIRS-NOT: vle32.v
# PAIRS: mtia.se.vse32.v
# PAIRS-NOT: vle32.v
# PAIRS: mtia.se.vse32.v
# PAIRS: bnez {{[a-z0-9]+}}, .Lrows

# ROWS: li {{[a-z0-9]+}}, 32 # tt.fused_elementwise (1 ops), a row at a time
# ROWS-NOT: vlse32.v
# ROWS: .Lrows{{[0-9]+}}:
# ROWS-NEXT: flw [[S:[a-z0-9]+]], 0([[P:[a-z0-9]+]])
# ROWS-NEXT: addi [[P]], [[P]], 4
# ROWS: .Lfused{{[0-9]+}}:
# ROWS: mtia.se.vle32.v
# ROWS-NOT: {{[[:space:]]}}vle32.v
# ROWS: mtia.se.fmul.vf {{v[0-9]+}}, {{v[0-9]+}}, [[S]]
# ROWS-NEXT: mtia.se.vse32.v
# ROWS: bnez
# ROWS: bnez {{[a-z0-9]+}}, .Lrows
