// Wrong operand count and a missing attribute are verifier errors; a use of an undefined
// value is already a parse error.
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i32) -> (), arg_names = ["x"]} ({
  ^bb0(%x: i32):
    %0 = "tt.get_program_id"() : () -> i32
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: verify_arity_and_attrs.mlir:7:5: error: IR verification failed before the pipeline: 'tt.get_program_id' op missing attribute 'axis'
