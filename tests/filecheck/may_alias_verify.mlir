// The verifier knows what `may_alias` holds: groups of two or more distinct parameters of the function, by name.
// A group naming a parameter the function does not have is an error at the function.
// RUN: not mtiacc opt %s 2>&1 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<f32>, !tt.ptr<f32>) -> (), arg_names = ["X", "Y"], may_alias = ["X W"]} ({
  ^bb0(%X: !tt.ptr<f32>, %Y: !tt.ptr<f32>):
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: may_alias_verify.mlir:5:3: error: IR verification failed before the pipeline: 'tt.func' op may_alias entry "X W" must name two or more distinct parameters (no parameter W)
// CHECK-NEXT: "tt.func"() {sym_name = "k"
// CHECK-NEXT: ^
