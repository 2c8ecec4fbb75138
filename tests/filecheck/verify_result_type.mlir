// The verifier rejects an integer add whose result is a float, at the op, with a caret.
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i32) -> (), arg_names = ["x"]} ({
  ^bb0(%x: i32):
    %0 = "arith.addi"(%x, %x) : (i32, i32) -> f32
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: verify_result_type.mlir:6:5: error: IR verification failed before the pipeline: 'arith.addi' op result 'result' must be integer or block of integers, got f32
// CHECK-NEXT: %0 = "arith.addi"(%x, %x) : (i32, i32) -> f32
// CHECK-NEXT: {{^    \^$}}
