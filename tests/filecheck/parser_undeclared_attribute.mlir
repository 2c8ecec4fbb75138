// An attribute the op does not declare is the parser's error at the attribute's name, not at the op's
// loc(...) (which names the kernel's source); tests/ir/test_attributes.py has a value of another kind.
// RUN: not mtiacc opt %s | filecheck %s
// CHECK: parser_undeclared_attribute.mlir:[[# @LINE + 6]]:43: error: 'tt.get_program_id' op has attribute 'hoisted', which 'tt.get_program_id' does not declare (it declares: 'axis')
// CHECK-NEXT: %0 = "tt.get_program_id"() {axis = 0, hoisted = true}
// CHECK-NEXT: {{^ {42}\^$}}
// CHECK-NOT: kernel.py
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = () -> (), arg_names = []} ({
    %0 = "tt.get_program_id"() {axis = 0, hoisted = true} : () -> i32 loc("kernel.py":7:12)
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
