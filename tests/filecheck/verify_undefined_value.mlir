// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i32) -> (), arg_names = ["x"]} ({
  ^bb0(%x: i32):
    %0 = "arith.muli"(%x, %1) : (i32, i32) -> i32
    %1 = "arith.constant"() {value = 2} : () -> i32
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: verify_undefined_value.mlir:5:27: error: use of undefined value %1
