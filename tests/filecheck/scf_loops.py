# Loops and branches in the IR: a runtime `for` carries its block in the scf.for's block arguments,
# a `while` becomes scf.while, a runtime `if` yields the names its branches assign.
# RUN: mtiacc-ir %s | filecheck %s
import triton
import triton.language as tl


@triton.jit
def k(X, N, BLOCK: tl.constexpr = 16):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for i in range(0, N, 2):
        acc += tl.load(X + offs)
    j = 0
    while j < N:
        j += 1
    if N > 3:
        acc = acc * 2.0
    tl.store(X + offs, acc)

# CHECK: "scf.for"(%{{[0-9]+}}, %N, %{{[0-9]+}}, %acc)
# CHECK-NEXT: ^bb0(%i: i32, %[[ACC:[0-9]+]]: tensor<16xf32>):
# CHECK: %[[NEW:[0-9]+]] = "arith.addf"(%[[ACC]],
# CHECK: "scf.yield"(%[[NEW]])
# CHECK: "scf.while"
# CHECK: "scf.condition"
# CHECK: "scf.yield"
# CHECK: "scf.if"
# CHECK: }) : (i1) -> tensor<16xf32>
