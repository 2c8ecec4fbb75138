// The verifier knows the kinds of the `access` attribute: an unknown one is an error at the op.
// RUN: not mtiacc opt %s 2>&1 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<f32>) -> (), arg_names = ["X"]} ({
  ^bb0(%X: !tt.ptr<f32>):
    %0 = "tt.splat"(%X) : (!tt.ptr<f32>) -> tensor<4x!tt.ptr<f32>>
    %1 = "tt.load"(%0) {access = "bulk", operandSegmentSizes = [1, 0, 0]} : (tensor<4x!tt.ptr<f32>>) -> tensor<4xf32>
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: access_verify.mlir:7:5: error: IR verification failed before the pipeline: 'tt.load' op access = "bulk" is not a known kind (known: contiguous, elements, runs, split-tiles, wrapped-tiles, tiles, gather, scatter, scalar)
// CHECK-NEXT: %1 = "tt.load"(%0) {access = "bulk"
// CHECK-NEXT: ^
