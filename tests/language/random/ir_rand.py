# What tl.rand builds (mtiacc/frontend/language/random.py), after -O1: the int32 offset is the counter's low word
# (a bitcast), the int32 seed is sign-extended to 64 bits and split into the two key words; the zero counter words
# are scalars, so the first round's product with c2 = 0 folds away (the first multiply is ROUND_A's), the second
# round's with c0 = k0 is a scalar one, and the last round keeps only the product c0 reads.  Each Philox product is
# a `tt.mulhiui` (high word) and an `arith.muli` (low word) on 32-bit lanes, never a widening to 64 bits: 16 high
# words and 14 low words of 32-bit lanes in all.  The uniform step is Triton's `where(x < 0, -x - 1, x)` as
# `x ^ (x >> 31)`: no compare, no select.
# RUN: mtiacc-ir %s -O1 -D BLOCK=64 --signature=*fp32,i32 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def k(Y, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.rand(seed, offs))

# CHECK: %[[LO:.+]] = "tt.bitcast"(%offs) : (tensor<64xi32>) -> tensor<64xu32>
# CHECK: %[[S:.+]] = "arith.extsi"(%seed) : (i32) -> u64
# CHECK: "arith.trunci"(%[[S]]) : (u64) -> u32
# CHECK: "arith.shrui"(%[[S]],
# CHECK-NOT: 3449720151
# CHECK-NOT: tensor<64xu64>
# CHECK: %[[A:.+]] = "arith.constant"() {value = 3528531795} : () -> tensor<64xu32>
# CHECK-NEXT: "tt.mulhiui"(%[[LO]], %[[A]]) : (tensor<64xu32>, tensor<64xu32>) -> tensor<64xu32>
# CHECK-COUNT-15: "tt.mulhiui"({{.*}}) : (tensor<64xu32>, tensor<64xu32>) -> tensor<64xu32>
# CHECK-NOT: "tt.mulhiui"({{.*}}tensor
# CHECK-NOT: tensor<64xu64>
# CHECK-NOT: "arith.select"
# CHECK: %[[X:.+]] = "tt.bitcast"({{.*}}) : (tensor<64xu32>) -> tensor<64xi32>
# CHECK-NEXT: %[[C31:.+]] = "arith.constant"() {value = 31} : () -> tensor<64xi32>
# CHECK-NEXT: %[[SH:.+]] = "arith.shrsi"(%[[X]], %[[C31]])
# CHECK-NEXT: %[[F:.+]] = "arith.xori"(%[[X]], %[[SH]])
# CHECK-NEXT: %[[FF:.+]] = "arith.sitofp"(%[[F]]) : (tensor<64xi32>) -> tensor<64xf32>
# CHECK-NEXT: %[[SC:.+]] = "arith.constant"() {value = 4.6566127342e-10} : () -> tensor<64xf32>
# CHECK-NEXT: %[[R:.+]] = "arith.mulf"(%[[FF]], %[[SC]])
# CHECK-NEXT: "tt.store"(%{{.+}}, %[[R]])
