// The verifier knows what `store_under_next` needs: the body's last op before the yield stores a K loop's result or
// the arith.truncf of it (the engine's store of its accumulators).  A loop whose last op stores something else is an
// error at the loop.
// RUN: not mtiacc opt %s 2>&1 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<f32>, i32) -> (), arg_names = ["X", "n"]} ({
  ^bb0(%X: !tt.ptr<f32>, %n: i32):
    %0 = "arith.constant"() {value = 0} : () -> i32
    %1 = "arith.constant"() {value = 1} : () -> i32
    %2 = "tt.splat"(%X) : (!tt.ptr<f32>) -> tensor<4x!tt.ptr<f32>>
    "scf.for"(%0, %n, %1) {store_under_next = true, operandSegmentSizes = [1, 1, 1, 0]} ({
    ^bb0(%i: i32):
      %3 = "tt.load"(%2) {operandSegmentSizes = [1, 0, 0]} : (tensor<4x!tt.ptr<f32>>) -> tensor<4xf32>
      "tt.store"(%2, %3) {operandSegmentSizes = [1, 1, 0]} : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>) -> ()
      "scf.yield"() {operandSegmentSizes = [0]} : () -> ()
    }) : (i32, i32, i32) -> ()
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: store_under_next_verify.mlir:11:5: error: IR verification failed before the pipeline: 'scf.for' op store_under_next: the body's last op before the yield must be a tt.store of a K loop's result or of an arith.truncf of it
// CHECK-NEXT: "scf.for"(%0, %n, %1) {store_under_next = true
// CHECK-NEXT: ^
