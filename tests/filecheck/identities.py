# Algebraic identities: x + 0, x - 0, x * 1, x * 0, x & -1, x | 0, x ^ 0, x << 0, p + 0 and the
# exact float ones. x + 0.0 is NOT rewritten (it turns -0.0 into +0.0).
# RUN: mtiacc-ir %s -O1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def identities(X: tl.pointer_type(tl.int32), F, Out: tl.pointer_type(tl.int32), FOut):
    offs = tl.arange(0, 16)
    x = tl.load(X + offs)
    y = ((x + 0) - 0) * 1
    y = (y & -1) | 0
    y = (y ^ 0) << 0
    tl.store(Out + offs + 0, y)
    tl.store(Out + offs, x * 0)
    f = tl.load(F + offs)
    tl.store(FOut + offs, (f * 1.0) / 1.0 - 0.0)
    tl.store(FOut + offs, f + 0.0)

# CHECK-LABEL: sym_name = "identities"
# CHECK: %[[X:.+]] = "tt.load"
# CHECK-NOT: "arith.{{(addi|subi|muli|andi|ori|xori|shli)}}"
# CHECK: "tt.store"(%{{.+}}, %[[X]])
# CHECK: %[[ZERO:.+]] = "arith.constant"() {value = 0} : () -> tensor<16xi32>
# CHECK-NEXT: "tt.store"(%{{.+}}, %[[ZERO]])
# CHECK: %[[F:.+]] = "tt.load"
# CHECK-NOT: "arith.{{(mulf|divf|subf)}}"
# CHECK: "tt.store"(%{{.+}}, %[[F]])
# CHECK: "arith.addf"(%[[F]], %{{.+}})
# CHECK: "tt.return"
