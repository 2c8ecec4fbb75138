# tl.dot_scaled is decomposed in the frontend: e2m1 bytes split into nibbles (low first), interleaved along K
# (tt.join + tt.reshape), decoded to f32 bits; the e8m0 scales become the f32 bits s << 23 (255: NaN) broadcast
# over groups of 32 along K; the product is rounded once to bf16 (no fp16 operand) and one tt.dot accumulates in
# f32.  An rhs packed along K is interleaved through a tt.trans; its scales [N, K/32] are transposed first.
# RUN: mtiacc %s --emit=ir -O0 --kernel=lhs_fp4 --signature '*u8,*u8,*bf16,*fp32' | filecheck %s --check-prefix=LHS
# RUN: mtiacc %s --emit=ir -O0 --kernel=rhs_fp4 --signature '*fp16,*u8,*u8,*fp32' | filecheck %s --check-prefix=RHS
import triton
import triton.language as tl


@triton.jit
def lhs_fp4(A, SA, B, C):
    a = tl.load(A + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    s = tl.load(SA + tl.arange(0, 32)[:, None] * 2 + tl.arange(0, 2)[None, :])
    b = tl.load(B + tl.arange(0, 64)[:, None] * 32 + tl.arange(0, 32)[None, :])
    c = tl.dot_scaled(a, s, "e2m1", b, None, "bf16")
    tl.store(C + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :], c)


@triton.jit
def rhs_fp4(A, B, SB, C):
    a = tl.load(A + tl.arange(0, 32)[:, None] * 64 + tl.arange(0, 64)[None, :])
    b = tl.load(B + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :])
    s = tl.load(SB + tl.arange(0, 32)[:, None] * 2 + tl.arange(0, 2)[None, :])
    c = tl.dot_scaled(a, None, "fp16", b, s, "e2m1")
    tl.store(C + tl.arange(0, 32)[:, None] * 32 + tl.arange(0, 32)[None, :], c)

# LHS-LABEL: "tt.func"() {sym_name = "lhs_fp4"
# LHS: %[[LO:[0-9]+]] = "arith.andi"(%a, %{{[0-9]+}}) : (tensor<32x32xu8>
# LHS: %[[HI:[0-9]+]] = "arith.shrui"(%a, %{{[0-9]+}}) : (tensor<32x32xu8>
# LHS: %[[J:[0-9]+]] = "tt.join"(%[[LO]], %[[HI]]) : {{.*}} -> tensor<32x32x2xu8>
# LHS: "tt.reshape"(%[[J]]) : (tensor<32x32x2xu8>) -> tensor<32x64xu8>
# LHS: "arith.select"({{.*}}) : {{.*}} -> tensor<32x64xu32>
# LHS: "tt.bitcast"({{.*}}) : (tensor<32x64xu32>) -> tensor<32x64xf32>
# LHS: "arith.extui"(%s) : (tensor<32x2xu8>) -> tensor<32x2xu32>
# LHS: "arith.shli"
# LHS: "arith.cmpi"(%s, %{{[0-9]+}}) {predicate = "eq"}
# LHS: "arith.constant"() {value = 0x7FC00000 : f32}
# LHS: "tt.expand_dims"({{.*}}) {axis = 2} : (tensor<32x2xf32>) -> tensor<32x2x1xf32>
# LHS: "tt.broadcast"({{.*}}) : (tensor<32x2x1xf32>) -> tensor<32x2x32xf32>
# LHS: "tt.reshape"({{.*}}) : (tensor<32x2x32xf32>) -> tensor<32x64xf32>
# LHS: "arith.mulf"({{.*}}) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
# LHS: %[[A:[0-9]+]] = "arith.truncf"({{.*}}) : (tensor<32x64xf32>) -> tensor<32x64xbf16>
# LHS-NOT: "arith.extf"(%b)
# LHS: %c = "tt.dot"(%[[A]], %b, %{{[0-9]+}}) : (tensor<32x64xbf16>, tensor<64x32xbf16>, tensor<32x32xf32>) -> tensor<32x32xf32>

# RHS-LABEL: "tt.func"() {sym_name = "rhs_fp4"
# RHS: "tt.join"({{.*}}) : {{.*}} -> tensor<32x32x2xu8>
# RHS: "tt.trans"({{.*}}) {order = [0, 2, 1]} : (tensor<32x32x2xu8>) -> tensor<32x2x32xu8>
# RHS: "tt.reshape"({{.*}}) : (tensor<32x2x32xu8>) -> tensor<64x32xu8>
# RHS: "tt.trans"({{.*}}) {order = [1, 0]} : (tensor<32x2xf32>) -> tensor<2x32xf32>
# RHS: "tt.expand_dims"({{.*}}) {axis = 1} : (tensor<2x32xf32>) -> tensor<2x1x32xf32>
# RHS: "tt.broadcast"({{.*}}) : (tensor<2x1x32xf32>) -> tensor<2x32x32xf32>
# RHS: "tt.reshape"({{.*}}) : (tensor<2x32x32xf32>) -> tensor<64x32xf32>
# RHS: %[[B:[0-9]+]] = "arith.truncf"({{.*}}) : (tensor<64x32xf32>) -> tensor<64x32xf16>
# RHS: %c = "tt.dot"(%a, %[[B]], %{{[0-9]+}}) : (tensor<32x64xf16>, tensor<64x32xf16>, tensor<32x32xf32>) -> tensor<32x32xf32>
