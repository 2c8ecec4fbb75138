// canonicalize on hand-written IR: folding (wrap-around at i8), select of a constant condition,
// x * 1, and the cmpi of a value with itself; dce then removes what became dead.
// RUN: mtiacc-opt %s --passes=canonicalize,dce | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i8, i8) -> (i8), arg_names = ["x", "y"]} ({
  ^bb0(%x: i8, %y: i8):
    %a = "arith.constant"() {value = 127} : () -> i8
    %b = "arith.constant"() {value = 1} : () -> i8
    %c = "arith.addi"(%a, %b) : (i8, i8) -> i8
    %same = "arith.cmpi"(%x, %x) {predicate = "sge"} : (i8, i8) -> i1
    %s = "arith.select"(%same, %y, %c) : (i1, i8, i8) -> i8
    %m = "arith.muli"(%s, %b) : (i8, i8) -> i8
    %r = "arith.addi"(%m, %c) : (i8, i8) -> i8
    "tt.return"(%r) {operandSegmentSizes = [1]} : (i8) -> ()
  }) : () -> ()
}) : () -> ()
// CHECK: ^bb0(%x: i8, %y: i8):
// CHECK-NEXT: %c = "arith.constant"() {value = -128} : () -> i8
// CHECK-NEXT: %r = "arith.addi"(%y, %c) : (i8, i8) -> i8
// CHECK-NEXT: "tt.return"(%r)
