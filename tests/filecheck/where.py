# tl.where with a constant condition folds to one of its values; with a run-time condition it is
# an arith.select whose scalar operands are splatted.
# RUN: mtiacc-ir %s -O0 | filecheck %s --check-prefix=O0
# RUN: mtiacc-ir %s -O1 | filecheck %s --check-prefix=O1
import triton
import triton.language as tl


@triton.jit
def where(X, Y, flag):
    offs = tl.arange(0, 8)
    x = tl.load(X + offs)
    a = tl.where(True, x, 0.0)
    b = tl.where(x > 0, a, 1.5)
    tl.store(Y + offs, b)

# O0: %[[T:.+]] = "arith.constant"() {value = true} : () -> i1
# O0: "tt.splat"(%[[T]]) : (i1) -> tensor<8xi1>
# O0: %a = "arith.select"
# O0: %b = "arith.select"(%{{.+}}, %a, %{{.+}}) : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>

# O1: %x = "tt.load"
# O1: %[[C:.+]] = "arith.cmpf"(%x, %{{.+}}) {predicate = "ogt"}
# O1: %b = "arith.select"(%[[C]], %x, %{{.+}})
# O1-NOT: "arith.select"
