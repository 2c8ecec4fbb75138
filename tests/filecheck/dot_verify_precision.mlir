// The verifier rejects input_precision "tf32" on f16 operands (it applies to f32 operands only).
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
// CHECK: dot_verify_precision.mlir:9:5: error: IR verification failed before the pipeline: 'tt.dot' op input_precision 'tf32' applies to f32 operands only
// CHECK-NOT: Traceback
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (tensor<16x16xf16>) -> (tensor<16x16xf32>), arg_names = ["a"]} ({
  ^bb0(%a: tensor<16x16xf16>):
    %acc = "arith.constant"() {value = 0.0} : () -> tensor<16x16xf32>
    %c = "tt.dot"(%a, %a, %acc) {input_precision = "tf32"} : (tensor<16x16xf16>, tensor<16x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
    "tt.return"(%c) {operandSegmentSizes = [1]} : (tensor<16x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
