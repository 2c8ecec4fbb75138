// The IR parser's errors: file:line:col, the message, the line and a caret.
// RUN: not mtiacc opt %s | filecheck %s
// CHECK: parser_errors.mlir:[[# @LINE + 5]]:{{[0-9]+}}: error: expected '='
// CHECK-NEXT: %x "arith.constant"
// CHECK-NEXT: {{ *}}^
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = () -> (), arg_names = []} ({
    %x "arith.constant"() {value = 1} : () -> i32
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
