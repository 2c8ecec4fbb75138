// The verifier rejects an atomic whose kind does not apply to its element type, at the op.
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
// CHECK: atomics_verify.mlir:11:5: error: IR verification failed before the pipeline: 'tt.atomic_rmw' op kind 'and' does not apply to f32 elements
// CHECK-NEXT: %a = "tt.atomic_rmw"
// CHECK-NEXT: ^
// CHECK-NOT: Traceback
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<f32>, f32) -> (), arg_names = ["p", "x"]} ({
  ^bb0(%p: !tt.ptr<f32>, %x: f32):
    %ok = "tt.atomic_rmw"(%p, %x) {kind = "fadd", sem = "relaxed", scope = "gpu", operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<f32>, f32) -> f32
    %a = "tt.atomic_rmw"(%p, %x) {kind = "and", sem = "relaxed", scope = "gpu", operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<f32>, f32) -> f32
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
