# canonicalize: `float(x) * c > p` with x an i32 and c > 0, p fp32 constants compares x with the integer where the
# rounded product crosses p (tl.rand's uint_to_uniform_float against dropout's p = 0.1: 214748392, the last
# x whose fl(fl(x) * 4.6566127342e-10) does not exceed 0.1; tests/opt/test_scaled_compare.py checks them all
# against numpy around each threshold).  The other predicates take their own threshold;
# a scale that is not positive, or a compare that holds for every i32, is left alone.
# RUN: mtiacc-ir %s -O1 --kernel=keep --signature='*i32,*i32' | filecheck %s
# RUN: mtiacc-ir %s -O1 --kernel=left --signature='*i32,*i32' | filecheck %s --check-prefix=LEFT
# The folded word of uint_to_uniform_float (`x ^ (x >> 31)`, never negative) against a threshold t is an add and
# an unsigned compare: `x + (t + 1) >u 2t + 1` (tl.rand > 0.1: t = 214748392).
# RUN: mtiacc-ir %s -O1 --kernel=rand_keep --signature='*i32' -D P=0.1 | filecheck %s --check-prefix=FOLD
import triton
import triton.language as tl


@triton.jit
def keep(X, Y):
    offs = tl.arange(0, 64)
    f = tl.load(X + offs).to(tl.float32) * 4.6566127342e-10
    tl.store(Y + offs, (f > 0.1).to(tl.int32) + 2 * (f >= 0.5).to(tl.int32) + 4 * (f < 0.25).to(tl.int32)
             + 8 * (f <= 0.75).to(tl.int32))


@triton.jit
def left(X, Y):
    offs = tl.arange(0, 64)
    x = tl.load(X + offs).to(tl.float32)
    tl.store(Y + offs, (x * -2.0 > 1.0).to(tl.int32) + 2 * (x * 4.6566127342e-10 > -3.0).to(tl.int32))

@triton.jit
def rand_keep(Y, P: tl.constexpr):
    offs = tl.arange(0, 64)
    tl.store(Y + offs, (tl.rand(7, offs) > P).to(tl.int32))

# CHECK-LABEL: sym_name = "keep"
# CHECK-DAG: "arith.constant"() {value = 214748392} : () -> tensor<64xi32>
# CHECK-DAG: "arith.constant"() {value = 1073741889} : () -> tensor<64xi32>
# CHECK-DAG: "arith.constant"() {value = 536870945} : () -> tensor<64xi32>
# CHECK-DAG: "arith.constant"() {value = 1610612927} : () -> tensor<64xi32>
# CHECK-DAG: "arith.cmpi"({{.*}}) {predicate = "sgt"}
# CHECK-DAG: "arith.cmpi"({{.*}}) {predicate = "sge"}
# CHECK-DAG: "arith.cmpi"({{.*}}) {predicate = "slt"}
# CHECK-DAG: "arith.cmpi"({{.*}}) {predicate = "sle"}
# CHECK-NOT: "arith.cmpf"
# CHECK-NOT: "arith.sitofp"
# CHECK: "tt.return"

# LEFT-LABEL: sym_name = "left"
# LEFT: "arith.cmpf"
# LEFT: "arith.cmpf"

# FOLD-LABEL: sym_name = "rand_keep"
# FOLD-NOT: "arith.sitofp"
# FOLD-NOT: "arith.shrsi"
# FOLD: [[T1:%[0-9]+]] = "arith.constant"() {value = 214748393} : () -> tensor<64xi32>
# FOLD: [[M:%[0-9]+]] = "arith.addi"({{%[0-9]+}}, [[T1]])
# FOLD: [[T2:%[0-9]+]] = "arith.constant"() {value = 429496785} : () -> tensor<64xi32>
# FOLD: "arith.cmpi"([[M]], [[T2]]) {predicate = "ugt"}
