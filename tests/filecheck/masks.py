# Mask simplification: a mask known to be all true is dropped (with `other`); a store whose
# mask is all false is removed; a load whose mask is all false is its `other`.
# `offs < BLOCK` with offs = tl.arange(0, BLOCK) is known true from the range of tl.arange.
# RUN: mtiacc-ir %s -O1 -D BLOCK=64 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def masks(X, Y, Z, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    always = offs < BLOCK
    never = offs >= BLOCK
    x = tl.load(X + offs, mask=always, other=0.0)
    tl.store(Y + offs, x, mask=always)
    tl.store(Y + offs, x, mask=never)
    z = tl.load(Z + offs, mask=never, other=-1.0)
    tl.store(Z + offs, z + x, mask=offs < 100)

# CHECK-LABEL: sym_name = "masks"
# CHECK-NOT: "arith.cmpi"
# CHECK: %[[X:.+]] = "tt.load"(%{{[^,]+}}) {operandSegmentSizes = [1, 0, 0]}
# CHECK: "tt.store"(%{{.+}}, %[[X]]) {operandSegmentSizes = [1, 1, 0]}
# CHECK-NOT: "tt.load"
# CHECK: %[[M1:.+]] = "arith.constant"() {value = -1.0} : () -> tensor<64xf32>
# CHECK: %[[SUM:.+]] = "arith.addf"(%[[M1]], %[[X]])
# CHECK-NEXT: "tt.store"(%{{.+}}, %[[SUM]]) {operandSegmentSizes = [1, 1, 0]}
# CHECK-NEXT: "tt.return"
