# pipeline-loads on flash attention's loop: S = Q K^T, the online softmax, O += P V.  Its products are chained
# (the first's result reaches a reduction and the second's operand), so pipeline-dots leaves it (no
# `pipeline_stages`) and pipeline-loads fetches each iteration's K and V tiles an iteration ahead, over the whole
# iteration's work (`pipeline = 2`, ping-pong).  K and V are walked as tutorial 06 walks them, by carried
# offsets advanced each iteration (`offk += BLOCK_N`): the prefetch of the next iteration reads `offk + BLOCK_N`,
# the one after it `offk + 2 * BLOCK_N` (past the end: the current tile's, under the guard), the first tiles the
# loop's init.  A K loop that only accumulates (`acc = tl.dot(a, b, acc)`) stays pipeline-dots' (its stages).
# RUN: mtiacc %s --kernel attn --emit=ir -O3 --signature '*fp16,*fp16,*fp16,*fp32,i32' | filecheck %s
# RUN: mtiacc %s --kernel gemm --emit=ir -O3 --signature '*fp16,*fp16,*fp32,i32' | filecheck %s --check-prefix=GEMM
import triton
import triton.language as tl


@triton.jit
def attn(Q, K, V, O, N):
    m = tl.arange(0, 64)
    n = tl.arange(0, 32)
    d = tl.arange(0, 32)
    q = tl.load(Q + m[:, None] * 32 + d[None, :])
    m_i = tl.zeros([64], tl.float32) - float("inf")
    l_i = tl.zeros([64], tl.float32)
    acc = tl.zeros([64, 32], tl.float32)
    offk = 0
    for start in range(0, N, 32):
        k = tl.load(K + (offk + n)[None, :] * 32 + d[:, None])
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(V + (offk + n)[:, None] * 32 + d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc * alpha[:, None])
        m_i = m_ij
        offk += 32
    tl.store(O + m[:, None] * 32 + d[None, :], acc / l_i[:, None])


@triton.jit
def gemm(A, B, C, K):
    r = tl.arange(0, 64)
    acc = tl.zeros([64, 64], tl.float32)
    for k in range(0, K, 64):
        a = tl.load(A + r[:, None] * K + (k + r)[None, :])
        b = tl.load(B + (k + r)[:, None] * 64 + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(C + r[:, None] * 64 + r[None, :], acc)

# CHECK-LABEL: sym_name = "attn"
# the first tiles, at the loop's init offset (0), before the loop, under `lower < upper`
# CHECK: "scf.if"
# CHECK: "tt.load"
# CHECK: "tt.load"
# CHECK: "scf.yield"
# CHECK: "scf.for"({{.*}}) {pipeline = 2, operandSegmentSizes
# CHECK-NEXT: ^bb0(%start: i32, {{.*}}, %offk: i32, %[[KA:[0-9]+]]: tensor<32x32xf16>, %[[VA:[0-9]+]]: tensor<32x32xf16>):
# the next iteration's K and V (offk + 32), fetched before this iteration's products
# CHECK: %[[NEXTK:[0-9]+]] = "arith.addi"(%offk, %{{[0-9]+}})
# CHECK: "arith.select"(%{{[0-9]+}}, %[[NEXTK]], %offk)
# CHECK: %k = "tt.load"({{.*}}) {prefetch = true
# CHECK: %v = "tt.load"({{.*}}) {prefetch = true
# CHECK: %[[TA:[0-9]+]] = "tt.trans"(%[[KA]])
# CHECK-NEXT: %qk = "tt.dot"(%q, %[[TA]],
# issue-dots-early: the second iteration's Q K^T (on the tile fetched at the top) right after the first's
# CHECK-NEXT: %[[TB:[0-9]+]] = "tt.trans"(%k)
# CHECK-NEXT: "tt.dot"(%q, %[[TB]], {{.*}}) {early = true}
# CHECK: "tt.reduce"
# CHECK: "tt.dot"({{.*}}, %[[VA]],
# the one after (offk + 64): this iteration's offset past the loop's end (select), and no transfer (the guard)
# CHECK: %[[AFTERK:[0-9]+]] = "arith.addi"(%{{[0-9]+}}, %{{[0-9]+}})
# CHECK: %[[MORE:[0-9]+]] = "arith.cmpi"({{.*}}) {predicate = "slt"}
# CHECK: "arith.select"(%[[MORE]], %[[AFTERK]], %offk)
# CHECK: %[[KC:[0-9]+]] = "tt.load"({{.*}}, %[[MORE]]) {prefetch = true
# CHECK: %[[VC:[0-9]+]] = "tt.load"({{.*}}, %[[MORE]]) {prefetch = true
# CHECK-NOT: "tt.dot"(%q,
# CHECK: "tt.dot"({{.*}}, %v,
# CHECK: "scf.yield"({{.*}}, %[[KC]], %[[VC]])
# the odd last iteration, on the tiles the loop fetched last
# CHECK: "scf.if"
# CHECK-NOT: "tt.load"
# CHECK: "scf.yield"

# GEMM-LABEL: sym_name = "gemm"
# GEMM: "scf.for"({{.*}}) {pipeline_stages = 4,
