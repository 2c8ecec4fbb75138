# tl.reduce with a tuple and a @triton.jit combine function is a tt.reduce with a combine region that
# calls the function on the scalars (a0, a1, b0, b1); inlining puts its body in the region.  Codegen
# runs the region on vector registers, rows as strided lanes.
# RUN: mtiacc-ir %s --kernel=k | filecheck %s --check-prefix=CALL
# RUN: mtiacc-ir %s --kernel=k --passes=inline | filecheck %s --check-prefix=INLINED
# RUN: mtiacc %s --kernel=k --emit=asm | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def pick(a, ai, b, bi):
    take = (a > b) | ((a == b) & (ai < bi))
    return tl.where(take, a, b), tl.where(take, ai, bi)


@triton.jit
def k(X, V, I, M: tl.constexpr = 4, N: tl.constexpr = 8):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    v, i = tl.reduce((x, tl.broadcast_to(cols[None, :], (M, N))), 1, pick)
    tl.store(V + rows, v)
    tl.store(I + rows, i)

# CALL: %v, %i = "tt.reduce"(%x, %{{[0-9]+}}) {axis = 1} ({
# CALL-NEXT: ^bb0(%a0: f32, %a1: i32, %b0: f32, %b1: i32):
# CALL-NEXT: = "tt.call"(%a0, %a1, %b0, %b1) {callee = "pick"
# CALL-NEXT: "tt.reduce.return"
# CALL: }) : (tensor<4x8xf32>, tensor<4x8xi32>) -> (tensor<4xf32>, tensor<4xi32>)
# CALL: "tt.func"() {sym_name = "pick", function_type = (f32, i32, f32, i32) -> (f32, i32)

# INLINED-NOT: "tt.call"
# INLINED: ^bb0(%a0: f32, %a1: i32, %b0: f32, %b1: i32):
# INLINED: "arith.cmpf"(%a0, %b0) {predicate = "ogt"}
# INLINED: "arith.select"
# INLINED: "arith.select"
# INLINED-NEXT: "tt.reduce.return"
# INLINED-NOT: "tt.func"() {sym_name = "pick"

# ASM: vlse32.v
# ASM: vmflt.vv
# ASM: vmerge.vvm
