# The tutorial matmul's K loop: `acc = tl.dot(a, b, acc)` carries the f32 accumulator through the loop
# (fp16 operands: no input_precision); `acc += tl.dot(a, b)` on fp32 operands is a tt.dot from a splat of
# zeros, recorded with the default input_precision "tf32", then an arith.addf.
# RUN: mtiacc-ir %s -O0 --kernel=matmul -D BM=64 -D BN=32 -D BK=32 --signature=*fp16,*fp16,*fp16,i32,i32,i32,i32 \
# RUN:   | filecheck %s --check-prefix=LOOP
# RUN: mtiacc-ir %s -O0 --kernel=matmul_plus -D BM=32 -D BN=32 -D BK=16 --signature=*fp32,*fp32,*fp32,i32,i32,i32,i32 \
# RUN:   | filecheck %s --check-prefix=PLUS
# RUN: mtiacc %s --emit=ir -O2 --kernel=matmul -D BM=64 -D BN=32 -D BK=32 --signature=*fp16,*fp16,*fp16,i32,i32,i32,i32 \
# RUN:   | filecheck %s --check-prefix=O2
# Codegen puts it on the matrix engine, the accumulator kept there across the loop.
# RUN: mtiacc %s --emit=asm --kernel=matmul -D BM=64 -D BN=32 -D BK=32 --signature=*fp16,*fp16,*fp16,i32,i32,i32,i32 \
# RUN:   2>&1 | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def matmul(A, B, C, M, N, K, stride_am, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = B + rk[:, None] * N + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=rk[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=rk[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * N
    c = acc.to(tl.float16)
    tl.store(C + rm[:, None] * N + rn[None, :], c, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def matmul_plus(A, B, C, M, N, K, stride_am, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * N + rn[None, :], acc)

# LOOP: %acc = "tt.splat"(%{{[0-9]+}}) : (f32) -> tensor<64x32xf32>
# LOOP: "scf.for"({{.*}}, %acc, %a_ptrs, %b_ptrs)
# LOOP-NEXT: ^bb0(%k: i32, %[[ACC:[0-9]+]]: tensor<64x32xf32>, {{.*}}):
# LOOP: %a = "tt.load"
# LOOP: %b = "tt.load"
# LOOP-NEXT: %[[D:[0-9]+]] = "tt.dot"(%a, %b, %[[ACC]]) : (tensor<64x32xf16>, tensor<32x32xf16>, tensor<64x32xf32>) -> tensor<64x32xf32> loc("{{.*}}dot_matmul.py":30:15)
# LOOP: "scf.yield"(%[[D]], {{.*}})

# PLUS: %acc = "tt.splat"(%{{[0-9]+}}) : (f32) -> tensor<32x32xf32>
# PLUS: ^bb0(%k: i32, %[[ACC:[0-9]+]]: tensor<32x32xf32>):
# PLUS: %b = "tt.load"
# PLUS-NEXT: %[[ZERO:[0-9]+]] = "arith.constant"() {value = 0.0} : () -> f32 loc("{{.*}}dot_matmul.py":46:16)
# PLUS-NEXT: %[[Z:[0-9]+]] = "tt.splat"(%[[ZERO]]) : (f32) -> tensor<32x32xf32>
# PLUS-NEXT: %[[D:[0-9]+]] = "tt.dot"(%a, %b, %[[Z]]) {input_precision = "tf32"} : (tensor<32x16xf32>, tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32> loc("{{.*}}dot_matmul.py":46:16)
# PLUS-NEXT: %[[SUM:[0-9]+]] = "arith.addf"(%[[ACC]], %[[D]]) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
# PLUS-NEXT: "scf.yield"(%[[SUM]])

# O2: %acc = "arith.constant"() {value = 0.0} : () -> tensor<64x32xf32>
# The first stage's tiles of the first trip load before the loop, guarded by the loop running (K is a run-time
# value); the loop carries them.
# O2: [[RUNS:%[0-9]+]] = "arith.cmpi"({{.*}}) {predicate = "slt"} : (i32, i32)
# O2: [[A0:%[0-9]+]] = "tt.load"({{.*}}, [[RUNS]]) {access = "tiles"
# O2: [[B0:%[0-9]+]] = "tt.load"({{.*}}, [[RUNS]]) {access = "tiles"
# O2: "scf.for"({{.*}}, %acc, {{.*}}, [[A0]], [[B0]]) {pipeline_stages = 4, pipeline = 2
# O2-NEXT: ^bb0(%k: i32, %[[ACC:[0-9]+]]: tensor<64x32xf32>, {{.*}}, %a: tensor<64x32xf16>, %b: tensor<32x32xf16>):
# The next stage's loads come before this stage's dot, marked prefetch (pipeline-dots).
# O2: "tt.load"({{.*}}) {prefetch = true, access = "tiles"
# O2: "tt.load"({{.*}}) {prefetch = true, access = "tiles"
# O2-NEXT: %[[D:[0-9]+]] = "tt.dot"(%a, %b, %[[ACC]]) {accumulator = "engine"} : (tensor<64x32xf16>, tensor<32x32xf16>, tensor<64x32xf32>) -> tensor<64x32xf32>
# The next trip's first tiles load before the last stage's dot, guarded by that trip running.
# O2: [[MORE:%[0-9]+]] = "arith.cmpi"({{.*}}) {predicate = "slt"} : (i32, i32)
# O2: [[NA:%[0-9]+]] = "tt.load"({{.*}}, [[MORE]]) {prefetch = true, access = "tiles"
# O2: [[NB:%[0-9]+]] = "tt.load"({{.*}}, [[MORE]]) {prefetch = true, access = "tiles"
# O2-NEXT: [[LAST:%[0-9]+]] = "tt.dot"
# O2-NEXT: "scf.yield"([[LAST]], {{.*}}, [[NA]], [[NB]])
# O2: %c = "arith.truncf"

# ASM-LABEL: matmul:
# ASM: mtia.dpe.zero
# ASM: mtia.dpe.mm
# ASM: mtia.dpe.acc.st
# ASM-NOT: Traceback

# f32 operands (tf32: split into bf16 parts on the vector unit) pipeline in stages, but the first stage's tiles
# are not fetched a trip ahead: the vector unit paces that loop (pipeline-dots, rotate.py).
# RUN: mtiacc %s --emit=ir -O2 --kernel=matmul -D BM=64 -D BN=32 -D BK=32 --signature=*fp32,*fp32,*fp32,i32,i32,i32,i32 \
# RUN:   | filecheck %s --check-prefix=F32
# F32: "scf.for"({{.*}}, %acc, %{{[0-9]+}}, %{{[0-9]+}}) {pipeline_stages = 4, operandSegmentSizes = [1, 1, 1, 3]}
# F32-NEXT: ^bb0(%k: i32, %{{[0-9]+}}: tensor<64x32xf32>, %{{[0-9]+}}: i32, %{{[0-9]+}}: i32):
# F32: %a = "tt.load"
# F32-NOT: pipeline = 2
