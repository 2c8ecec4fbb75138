// The verifier rejects a tt.dot whose inner dimensions differ, at the op.
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
// CHECK: dot_verify.mlir:11:5: error: IR verification failed before the pipeline: 'tt.dot' op the inner dimensions differ: tensor<16x32xf16> @ tensor<16x16xf16>
// CHECK-NEXT: %c = "tt.dot"
// CHECK-NEXT: ^
// CHECK-NOT: Traceback
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (tensor<16x32xf16>, tensor<16x16xf16>) -> (tensor<16x16xf32>), arg_names = ["a", "b"]} ({
  ^bb0(%a: tensor<16x32xf16>, %b: tensor<16x16xf16>):
    %acc = "arith.constant"() {value = 0.0} : () -> tensor<16x16xf32>
    %c = "tt.dot"(%a, %b, %acc) : (tensor<16x32xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    "tt.return"(%c) {operandSegmentSizes = [1]} : (tensor<16x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
