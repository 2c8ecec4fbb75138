# pipeline-loads: the prefetch a trip makes two iterations ahead may be past the loop's end; unless its mask says
# it reads nothing there, it takes this iteration's addresses (`select(next < end, next, this)`) and is guarded by
# `next < end` (the load's fourth operand group): codegen branches around its transfer, so the last trip of a
# slot's programs moves no tile twice.  The prefetch one iteration ahead is always inside and is not guarded.
# RUN: mtiacc %s --emit=ir -O3 -D BLOCK=256 --signature '*fp32,*fp32,i32' | filecheck %s
# RUN: mtiacc %s --emit=asm -O3 -D BLOCK=256 --signature '*fp32,*fp32,i32' | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def scale(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    tl.store(Y + offs, tl.load(X + offs, mask=m) * 2.0, mask=m)

# CHECK: "scf.for"{{.*}}persistent = 64, pipeline = 2
# CHECK: "tt.load"(%{{[0-9]+}}, %{{[0-9]+}}) {prefetch = true, access = "contiguous", operandSegmentSizes = [1, 1, 0]}
# CHECK: %[[MORE:[0-9]+]] = "arith.cmpi"(%{{[0-9]+}}, %{{[0-9]+}}) {predicate = "slt"} : (i32, i32) -> i1
# CHECK-NEXT: "arith.select"(%[[MORE]],
# CHECK: "tt.load"(%{{[0-9]+}}, %{{[0-9]+}}, %[[MORE]]) {prefetch = true, access = "contiguous", operandSegmentSizes = [1, 1, 0, 1]}
# CHECK: "scf.yield"

# ASM: beqz [[G:[a-z0-9]+]], [[SKIP:.Lnoprefetch[0-9]+]]
# ASM: mtia.dma.in
# ASM: [[SKIP]]:
