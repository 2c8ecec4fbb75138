// accumulator = "engine" is checked: a dot outside a loop cannot keep its accumulator in the engine.
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
// CHECK: dot_accumulator_verify.mlir:11:5: error: IR verification failed before the pipeline: 'tt.dot' op accumulator = "engine" outside the body of an scf.for
// CHECK-NEXT: %c = "tt.dot"
// CHECK-NOT: Traceback
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (tensor<16x16xf16>, tensor<16x16xf16>) -> (tensor<16x16xf32>), arg_names = ["a", "b"]} ({
  ^bb0(%a: tensor<16x16xf16>, %b: tensor<16x16xf16>):
    %acc = "arith.constant"() {value = 0.0} : () -> tensor<16x16xf32>
    // a comment line keeps the op on line 11
    %c = "tt.dot"(%a, %b, %acc) {accumulator = "engine"} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    "tt.return"(%c) {operandSegmentSizes = [1]} : (tensor<16x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
