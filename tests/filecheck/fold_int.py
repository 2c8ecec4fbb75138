# Integer constants fold with the target's semantics: C-like (truncating) division and
# remainder, wrap-around at the type's width, comparisons, shifts.
# RUN: mtiacc-ir %s -O1 --signature=*i32 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def fold_int(Out):
    offs = tl.arange(0, 4)
    seven = tl.full((4,), 7, tl.int32)
    minus_two = tl.full((4,), -2, tl.int32)
    big = tl.full((4,), 2147483647, tl.int32)
    tl.store(Out + offs, seven // minus_two)          # -3, not Python's -4
    tl.store(Out + offs, seven % minus_two)           # 1, not Python's -1
    tl.store(Out + offs, big + 1)                     # wraps to INT32_MIN
    tl.store(Out + offs, (seven << 2) | 1)            # 29
    tl.store(Out + offs, (minus_two >> 1) ^ seven)    # arithmetic shift: -1 ^ 7 = -8
    tl.store(Out + offs, (seven > minus_two).to(tl.int32) * 5)
    tl.store(Out + offs, tl.zeros((4,), tl.int8).to(tl.int32) - 128)

# CHECK-LABEL: "tt.func"() {sym_name = "fold_int"
# CHECK-NOT: "arith.divsi"
# CHECK-NOT: "arith.remsi"
# CHECK-DAG: "arith.constant"() {value = -3} : () -> tensor<4xi32>
# CHECK-DAG: "arith.constant"() {value = 1} : () -> tensor<4xi32>
# CHECK-DAG: "arith.constant"() {value = -2147483648} : () -> tensor<4xi32>
# CHECK-DAG: "arith.constant"() {value = 29} : () -> tensor<4xi32>
# CHECK-DAG: "arith.constant"() {value = -8} : () -> tensor<4xi32>
# CHECK-DAG: "arith.constant"() {value = 5} : () -> tensor<4xi32>
# CHECK-DAG: "arith.constant"() {value = -128} : () -> tensor<4xi32>
# CHECK-NOT: "arith.{{(addi|muli|shli|shrsi|ori|xori|cmpi|extui|extsi)}}"
# CHECK: "tt.return"
