# The tutorial vector add, before and after -O1 (nothing folds: every value depends on the inputs).
# RUN: mtiacc-ir %s -O0 -D BLOCK_SIZE=256 | filecheck %s --check-prefix=O0
# RUN: mtiacc-ir %s -O1 -D BLOCK_SIZE=256 | filecheck %s --check-prefix=O1
# RUN: mtiacc %s --emit=ir -O1 -D BLOCK_SIZE=256 | filecheck %s --check-prefix=O1
import triton
import triton.language as tl


@triton.jit
def add_kernel(A_ptr, B_ptr, C_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    a = tl.load(A_ptr + offsets, mask=mask)
    b = tl.load(B_ptr + offsets, mask=mask)
    tl.store(C_ptr + offsets, a + b, mask=mask)

# O0: "tt.func"() {sym_name = "add_kernel", function_type = (!tt.ptr<f32>, !tt.ptr<f32>, !tt.ptr<f32>, i32) -> (), arg_names = ["A_ptr", "B_ptr", "C_ptr", "N"]}
# O0: ^bb0(%A_ptr: !tt.ptr<f32>, %B_ptr: !tt.ptr<f32>, %C_ptr: !tt.ptr<f32>, %N: i32):
# O0-NEXT: %pid = "tt.get_program_id"() {axis = 0} : () -> i32 loc("{{.*}}vector_add.py":11:11)
# O0-NEXT: %[[BS:.+]] = "arith.constant"() {value = 256} : () -> i32 loc("{{.*}}":12:15)
# O0-NEXT: %[[START:.+]] = "arith.muli"(%pid, %[[BS]]) : (i32, i32) -> i32
# O0-NEXT: %[[RANGE:.+]] = "tt.make_range"() {start = 0, end = 256} : () -> tensor<256xi32> loc("{{.*}}":12:34)
# O0-NEXT: %[[SPLAT:.+]] = "tt.splat"(%[[START]]) : (i32) -> tensor<256xi32>
# O0-NEXT: %offsets = "arith.addi"(%[[SPLAT]], %[[RANGE]]) : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi32>
# O0-NEXT: %[[N:.+]] = "tt.splat"(%N) : (i32) -> tensor<256xi32>
# O0-NEXT: %mask = "arith.cmpi"(%offsets, %[[N]]) {predicate = "slt"} : (tensor<256xi32>, tensor<256xi32>) -> tensor<256xi1> loc("{{.*}}":13:12)
# O0-NEXT: %[[A:.+]] = "tt.splat"(%A_ptr) : (!tt.ptr<f32>) -> tensor<256x!tt.ptr<f32>>
# O0-NEXT: %[[AP:.+]] = "tt.addptr"(%[[A]], %offsets)
# O0-NEXT: %a = "tt.load"(%[[AP]], %mask) {operandSegmentSizes = [1, 1, 0]} : (tensor<256x!tt.ptr<f32>>, tensor<256xi1>) -> tensor<256xf32> loc("{{.*}}":14:9)
# O0: %b = "tt.load"
# O0: %[[SUM:.+]] = "arith.addf"(%a, %b) : (tensor<256xf32>, tensor<256xf32>) -> tensor<256xf32> loc("{{.*}}":16:31)
# O0-NEXT: "tt.store"(%{{.+}}, %[[SUM]], %mask) {operandSegmentSizes = [1, 1, 1]} {{.*}} loc("{{.*}}":16:5)
# O0-NEXT: "tt.return"()

# O1: %pid = "tt.get_program_id"
# O1: %offsets = "arith.addi"
# O1: %mask = "arith.cmpi"(%offsets
# O1: %a = "tt.load"({{.*}}, %mask)
# O1: %b = "tt.load"({{.*}}, %mask)
# O1: "arith.addf"(%a, %b)
# O1-NEXT: "tt.store"
# O1-NEXT: "tt.return"
