# Float constants fold in float32 precision (not Python's double), IEEE division by zero,
# and casts between floats and integers.
# RUN: mtiacc-ir %s -O1 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def fold_float(Out, IOut: tl.pointer_type(tl.int32)):
    offs = tl.arange(0, 8)
    a = tl.full((8,), 0.1, tl.float32)
    b = tl.full((8,), 0.2, tl.float32)
    tl.store(Out + offs, a + b)
    tl.store(Out + offs, a / tl.zeros((8,), tl.float32))
    tl.store(Out + offs, tl.full((8,), 3, tl.int32).to(tl.float32) * 0.5)
    tl.store(IOut + offs, tl.full((8,), -2.7, tl.float32).to(tl.int32))

# CHECK-LABEL: sym_name = "fold_float"
# CHECK-DAG: "arith.constant"() {value = 0.30000001192092896} : () -> tensor<8xf32>
# CHECK-DAG: "arith.constant"() {value = 0x7F800000 : f32} : () -> tensor<8xf32>
# CHECK-DAG: "arith.constant"() {value = 1.5} : () -> tensor<8xf32>
# CHECK-DAG: "arith.constant"() {value = -2} : () -> tensor<8xi32>
# CHECK-NOT: "arith.{{(addf|divf|mulf|sitofp|fptosi)}}"
# CHECK: "tt.return"
