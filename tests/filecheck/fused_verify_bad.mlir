// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
// CHECK: fused_verify_bad.mlir:6:5: error: IR verification failed before the pipeline: 'tt.fused_elementwise' op 'arith.addf' operand #1 is defined outside the region (the region is isolated from above)
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (tensor<8xf32>, f32) -> (tensor<8xf32>), arg_names = ["x", "s"]} ({
  ^bb0(%x: tensor<8xf32>, %s: f32):
    %r = "tt.fused_elementwise"(%x) {operandSegmentSizes = [1]} ({
    ^bb0(%a: f32):
      %q = "arith.addf"(%a, %s) : (f32, f32) -> f32
      "tt.fused_yield"(%q) {operandSegmentSizes = [1]} : (f32) -> ()
    }) : (tensor<8xf32>) -> tensor<8xf32>
    "tt.return"(%r) {operandSegmentSizes = [1]} : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()
