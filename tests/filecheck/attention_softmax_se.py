# Flash attention's softmax tile (S = Q K^T, 64 x 64 fp32) with the vector unit only loading, storing and
# reducing: the row maximum a column at a time (a strided load per column, combined on the SIMD engine's ALUs
# by mtia.se.fmax.vv), p = exp2(S * scale - m) as mtia.se.fmul.vf, mtia.se.fsub.vf and mtia.se.exp2.v on the SE,
# two rows an iteration, and the rescaling of the accumulator acc * alpha[:, None] as mtia.se.fmul.vf.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 --signature=*fp16,*fp16,*fp16,*fp32,fp32,i32 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def attn(Q, K, V, O, scale, n):
    i = tl.arange(0, 64)
    d = tl.arange(0, 64)
    q = tl.load(Q + i[:, None] * 64 + d[None, :])
    m = tl.zeros([64], tl.float32) - float("inf")
    l = tl.zeros([64], tl.float32)
    acc = tl.zeros([64, 64], tl.float32)
    for start in range(0, n, 64):
        k = tl.load(K + (start + i)[None, :] * 64 + d[:, None])
        s = tl.dot(q, k)
        m_new = tl.maximum(m, tl.max(s, 1) * scale)
        p = tl.math.exp2(s * scale - m_new[:, None])
        alpha = tl.math.exp2(m - m_new)
        l = l * alpha + tl.sum(p, 1)
        v = tl.load(V + (start + i)[:, None] * 64 + d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m = m_new
    tl.store(O + i[:, None] * 64 + d[None, :], acc / l[:, None])

# CHECK-LABEL: attn:
# the row maximum: 64 rows of S at a time, each further column loaded and folded in on the SE
# CHECK: vlse32.v {{v[0-9]+}}, ({{[a-z0-9]+}}), {{[a-z0-9]+}} # tt.reduce max, a column at a time
# (two columns a step: each column's load issues before the column before it is combined)
# CHECK: .Lcolumn{{[0-9]+}}:
# CHECK: vlse32.v [[NEXT:v[0-9]+]]
# CHECK-NEXT: mtia.se.fmax.vv [[MAX:v[0-9]+]], [[MAX]], [[COL:v[0-9]+]]
# CHECK: vlse32.v [[COL]]
# CHECK: mtia.se.fmax.vv [[MAX]], [[MAX]], [[NEXT]]
# CHECK-NOT: vfmax.vv
# CHECK: bnez
# p = exp2(S * scale - m), two rows an iteration: the arithmetic and the fp16 copy on the SE
# CHECK: two rows at a time
# CHECK: .Lrows{{[0-9]+}}:
# CHECK-DAG: mtia.se.fmul.vf
# CHECK-DAG: mtia.se.fsub.vf
# CHECK-DAG: mtia.se.exp2.v
# CHECK-DAG: mtia.se.fncvt.f.f.w
# CHECK-NOT: vfncvt
# CHECK-NOT: vfmul
# CHECK-NOT: vfsub
# CHECK: bnez {{[a-z0-9]+}}, .Lrows
# acc * alpha[:, None]
# CHECK: two rows at a time
# CHECK: .Lrows{{[0-9]+}}:
# CHECK-DAG: mtia.se.fmul.vf
# CHECK-DAG: mtia.se.fmul.vf
# CHECK-NOT: vfmul
# CHECK: bnez {{[a-z0-9]+}}, .Lrows
