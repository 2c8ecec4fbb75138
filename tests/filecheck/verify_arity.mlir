// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i32) -> (), arg_names = ["x"]} ({
  ^bb0(%x: i32):
    %0 = "arith.muli"(%x) : (i32) -> i32
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: verify_arity.mlir:5:5: error: IR verification failed before the pipeline: 'arith.muli' op expected 2 operands, got 1
