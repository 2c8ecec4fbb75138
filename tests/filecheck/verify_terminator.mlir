// A function must end with tt.return; the error names the function.
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "no_return", function_type = (i32) -> (), arg_names = ["x"]} ({
  ^bb0(%x: i32):
    %0 = "arith.muli"(%x, %x) : (i32, i32) -> i32
  }) : () -> ()
}) : () -> ()
// CHECK: verify_terminator.mlir:4:3: error: IR verification failed before the pipeline: 'tt.func' op 'no_return' must end with 'tt.return'
