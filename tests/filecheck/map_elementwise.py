# tl.map_elementwise: the scalar function is called once on the whole blocks; an `if` / `elif` on a block
# condition inside it computes both branches and selects per element (no scf.if), and `pack=2` splits each
# argument into its even and odd elements and joins the results back.
# RUN: mtiacc %s --emit=ir -O0 --signature '*i32,*i32,*i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1


@triton.jit
def add2(a0, a1, b0, b1):
    return a0 + b0, a1 + b1


@triton.jit
def kernel(X, Y, Z):
    x = tl.load(X + tl.arange(0, 8))
    y = tl.load(Y + tl.arange(0, 8))
    tl.store(Z + tl.arange(0, 8), tl.map_elementwise(compare, x, y))
    s, = tl.map_elementwise(add2, x, y, pack=2)
    tl.store(Z + tl.arange(0, 8), s)

# CHECK-LABEL: sym_name = "kernel"
# CHECK-NOT: "scf.if"
# CHECK: %[[LT:.+]] = "arith.cmpi"(%x, %y) {predicate = "slt"} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
# CHECK: %[[EQ:.+]] = "arith.cmpi"(%x, %y) {predicate = "eq"} : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
# CHECK: %[[IN:.+]] = "arith.select"(%[[EQ]], {{.*}}) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
# CHECK: %[[OUT:.+]] = "arith.select"(%[[LT]], {{.*}}, %[[IN]]) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
# CHECK: "tt.store"(%{{.+}}, %[[OUT]])
# CHECK: %[[XP:.+]] = "tt.reshape"(%x) : (tensor<8xi32>) -> tensor<4x1x2xi32>
# CHECK: "tt.split"(%[[XP]]) {index = 0}
# CHECK: "tt.split"(%[[XP]]) {index = 1}
# CHECK: "arith.addi"
# CHECK: "arith.addi"
# CHECK: %[[J:.+]] = "tt.join"(%{{.+}}, %{{.+}}) : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1x2xi32>
# CHECK: %s = "tt.reshape"(%[[J]]) : (tensor<4x1x2xi32>) -> tensor<8xi32>
