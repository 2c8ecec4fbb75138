# The K loop `acc += tl.dot(a, b)`: canonicalize makes it tt.dot(a, b, acc); pipeline-dots unrolls the loop
# into num_stages = 2 stages (the remainder in a loop of its own); dot-accumulators keeps the accumulator
# in the engine ({accumulator = "engine"}): cleared before the loop, only weight loads and streamed rows in
# the body; the remainder loop continues with the same accumulator rows (no acc.st / acc.ld between the two
# loops), and acc.st after it.
# RUN: mtiacc %s --emit=ir -O2 --signature '*bf16,*bf16,*fp32,i32' | filecheck %s --check-prefix=IR
# RUN: mtiacc %s --emit=asm -O2 --signature '*bf16,*bf16,*fp32,i32' | filecheck %s --check-prefix=ASM
# RUN: mtiacc %s --emit=ir -O0 --signature '*bf16,*bf16,*fp32,i32' | filecheck %s --check-prefix=O0
import triton
import triton.language as tl


@triton.jit
def k_loop(A, B, C, K):
    rm = tl.arange(0, 32)
    rn = tl.arange(0, 32)
    rk = tl.arange(0, 32)
    acc = tl.zeros((32, 32), dtype=tl.float32)
    for k in tl.range(0, K, 32, num_stages=2):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * 32 + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * 32 + rn[None, :], acc)

# IR: "scf.for"{{.*}}{num_stages = 2, pipeline_stages = 2
# IR: %[[D0:[0-9]+]] = "tt.dot"(%a, %b, %{{[0-9]+}}) {accumulator = "engine"}
# IR: %[[D1:[0-9]+]] = "tt.dot"(%{{[0-9]+}}, %{{[0-9]+}}, %[[D0]]) {accumulator = "engine"}
# IR: "scf.yield"(%[[D1]]
# IR: "scf.for"{{.*}}{num_stages = 2, pipeline_stages = 1
# IR: "tt.dot"({{.*}}) {accumulator = "engine"}

# ASM-LABEL: k_loop:
# ASM: mtia.dpe.zero
# ASM: .Lfor[[TOP:[0-9]+]]:
# ASM-NOT: mtia.dpe.acc.st
# ASM-NOT: mtia.dpe.wait
# ASM-NOT: mtia.dpe.cfg
# ASM: mtia.dpe.mm
# ASM-NOT: mtia.dpe.acc
# ASM: mtia.dpe.mm
# ASM-NOT: mtia.dpe.acc
# ASM: blt {{.*}}, .Lfor[[TOP]]
# ASM-NOT: mtia.dpe.acc
# ASM: mtia.dpe.mm
# ASM-NOT: mtia.dpe.acc
# ASM: blt
# ASM: mtia.dpe.acc.st

# -O0 neither canonicalizes nor pipelines: `acc +=` stays an addf, and the dot's accumulator is not the loop's
# O0: "scf.for"
# O0-NOT: pipeline_stages
# O0: "tt.dot"
# O0-NOT: accumulator
# O0: "arith.addf"
