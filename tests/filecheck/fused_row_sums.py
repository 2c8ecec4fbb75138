# A fused loop run two rows an iteration sums the rows of a value whose one reader is tl.sum(., 1) beside computing
# them (flash attention's l_ij = tl.sum(p, 1) of p = exp2(qk * scale - m[:, None])): per row, the elements after
# the first slid down one and reduced into the first (vfredusum.vs at vl = C - 1 starting from the row's own group),
# the reduction a stored row would get, so the f32 block is never read back from its buffer; the sums are stored
# after the row's later steps (its fp16 copy). The rows' loads and stores are the SE's own (mtia.se.vle32.v,
# mtia.se.vse16.v, mtia.se.vse32.v), and so is the slide (the SE stores the row in a scratch row and loads it back
# from its second element) and the conversion to fp16 (mtia.se.fncvt.f.f.w): the vector unit only reduces. A value
# with a second reader is stored and reduced as before.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D STORE_P=False --signature '*fp32,*fp32,*fp16,*fp32,fp32' | filecheck %s --check-prefix=FUSED
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O3 -D STORE_P=True --signature '*fp32,*fp32,*fp16,*fp32,fp32' | filecheck %s --check-prefix=KEPT
import triton
import triton.language as tl


@triton.jit
def softmax_rows(X, M, P, L, s, STORE_P: tl.constexpr):
    r = tl.arange(0, 32)
    c = tl.arange(0, 64)
    x = tl.load(X + r[:, None] * 64 + c[None, :])
    m = tl.load(M + r)
    p = tl.math.exp2(x * s - m[:, None])
    tl.store(L + r, tl.sum(p, 1))
    tl.store(P + r[:, None] * 64 + c[None, :], p.to(tl.float16))
    if STORE_P:
        tl.store(L + 32 + r[:, None] * 64 + c[None, :], p)

# FUSED: li {{[a-z0-9]+}}, 16 # tt.fused_elementwise (4 ops), two rows at a time, row sums fused
# FUSED: .Lrows{{[0-9]+}}:
# FUSED: mtia.se.vle32.v [[X0:v[0-9]+]]
# FUSED-NEXT: mtia.se.vle32.v [[X1:v[0-9]+]]
# FUSED-NOT: {{[[:space:]]}}vle32.v
# FUSED: mtia.se.exp2.v [[P0:v[0-9]+]]
# FUSED: mtia.se.exp2.v [[P1:v[0-9]+]]
# the slide, by the SE through local memory: each row stored, read back from its second element at vl = C - 1
# FUSED: mtia.se.vse32.v [[P0]], ([[S0:[a-z0-9]+]]) # the row, to be read back from its second element
# FUSED-NEXT: mtia.se.vse32.v [[P1]], ([[S1:[a-z0-9]+]]) # the row, to be read back from its second element
# FUSED-NEXT: vsetvli zero, {{[a-z0-9]+}}, e32, m4
# FUSED-NEXT: mtia.se.vle32.v [[T0:v[0-9]+]], ({{[a-z0-9]+}}) # its elements after the first
# FUSED-NEXT: mtia.se.vle32.v [[T1:v[0-9]+]], ({{[a-z0-9]+}}) # its elements after the first
# FUSED-NEXT: vfredusum.vs v1, [[T0]], [[P0]] # tt.reduce sum of the row, fused
# FUSED-NEXT: vfredusum.vs v2, [[T1]], [[P1]] # tt.reduce sum of the row, fused
# the fp16 copy converted by the SE too (mtia.se.fncvt.f.f.w), beside the vector unit's reductions
# FUSED: mtia.se.fncvt.f.f.w {{v[0-9]+}}, [[P0]]
# FUSED: mtia.se.vse16.v
# FUSED: mtia.se.vse16.v
# FUSED: vsetvli zero, {{[a-z0-9]+}}, e32, m1
# FUSED: mtia.se.vse32.v v1
# FUSED: mtia.se.vse32.v v2
# FUSED: bnez {{[a-z0-9]+}}, .Lrows
# FUSED-NOT: tt.reduce sum, 2 row(s) a step
# FUSED: ret

# KEPT: two rows at a time
# KEPT-NOT: row sums fused
# KEPT-NOT: vslidedown.vi
# KEPT: tt.reduce sum, 2 row(s) a step
