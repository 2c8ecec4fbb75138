# issue-dots-early on flash attention's loop as pipeline-loads leaves it (two iterations a trip, K and V fetched an
# iteration ahead): the second iteration's S = Q K^T reads only Q and the K tile fetched at the top of the trip, so
# it moves (with its tt.trans) to just after the first iteration's, marked {early = true}; the first iteration's
# row maximum then waits only for the first product's commands (mtia.dpe.wait N: the N commands of the second stay
# running while the vector unit and the SE compute the softmax), and the second iteration's for the first P V's
# commands to finish. A product whose operand is loaded after the first product's consumer stays where it is.
# RUN: mtiacc %s --kernel attn --emit=ir -O3 --signature '*fp16,*fp16,*fp16,*fp32,i32' | filecheck %s
# RUN: mtiacc %s --kernel attn --emit=asm --asm-syntax=mtia -O3 --signature '*fp16,*fp16,*fp16,*fp32,i32' | filecheck %s --check-prefix=ASM
# RUN: mtiacc %s --kernel after_load --emit=ir -O3 --signature '*fp16,*fp16,*fp16,*fp32' | filecheck %s --check-prefix=STAYS
# RUN: mtiacc %s --kernel attn --emit=asm --asm-syntax=mtia -O3 --disable-pass=issue-dots-early --signature '*fp16,*fp16,*fp16,*fp32,i32' | filecheck %s --check-prefix=OFF
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
def after_load(A, B, C, O):
    r = tl.arange(0, 32)
    a = tl.load(A + r[:, None] * 32 + r[None, :])
    b = tl.load(B + r[:, None] * 32 + r[None, :])
    x = tl.dot(a, b)
    y = tl.exp(x)
    c = tl.load(C + r[:, None] * 32 + r[None, :] + tl.sum(y, 1).to(tl.int32)[:, None] * 0)
    z = tl.dot(a, c)
    tl.store(O + r[:, None] * 32 + r[None, :], y + z)

# CHECK-LABEL: sym_name = "attn"
# CHECK: "scf.for"({{.*}}) {pipeline = 2, operandSegmentSizes
# CHECK: %k = "tt.load"({{.*}}) {prefetch = true
# CHECK: %qk = "tt.dot"(%q,
# CHECK-NEXT: %[[TB:[0-9]+]] = "tt.trans"(%k)
# CHECK-NEXT: %[[SB:[0-9]+]] = "tt.dot"(%q, %[[TB]], {{.*}}) {early = true}
# CHECK-NEXT: "tt.reduce"(%qk) {axis = 1, kind = "max"}
# CHECK: "tt.dot"({{.*}}) :
# CHECK: "tt.reduce"(%[[SB]]) {axis = 1, kind = "max"}
# CHECK: "scf.yield"

# ASM: .Lfor{{[0-9]+}}:
# the first product's commands, then the second's (ending with its acc.st), then the row maximum of the first
# ASM: mtia.dpe.acc.st
# ASM: mtia.dpe.acc.st
# ASM: mtia.dpe.wait 4 # the earlier products complete before the vector unit reads them; later commands run on
# ASM-NOT: mtia.dpe
# ASM: tt.reduce max
# the first P V: the second iteration's row maximum waits for its S only (P V's commands run on)
# ASM: mtia.dpe.acc.st
# ASM: mtia.dpe.wait 5 # the earlier products complete before the vector unit reads them; later commands run on
# ASM-NOT: mtia.dpe
# ASM: tt.reduce max
# the carried m_i copied into its home at the back edge while the second P V's commands run
# ASM: mtia.dpe.acc.st
# ASM: mtia.dpe.wait 4 # the earlier products complete before the vector unit reads them; later commands run on
# ASM: .Lendfor

# without the pass the first row maximum waits for every command (the second S = Q K^T is not issued yet)
# OFF: .Lfor{{[0-9]+}}:
# OFF-NOT: mtia.dpe.wait {{[0-9]+}}
# OFF: mtia.dpe.wait # engine results complete before the core or vector unit uses the memory
# OFF-NOT: mtia.dpe.wait {{[0-9]+}}
# OFF: tt.reduce max

# STAYS-LABEL: sym_name = "after_load"
# STAYS-NOT: early = true
# STAYS: "tt.dot"
# STAYS: "tt.load"
# STAYS: "tt.dot"
# STAYS-NOT: early = true
