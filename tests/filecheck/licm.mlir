// licm: pure ops of loop-invariant operands leave the loop; the ones using the induction variable stay.
// RUN: mtiacc-opt %s --passes=licm | filecheck %s
// CHECK: "arith.muli"(%n, %n)
// CHECK-NEXT: "arith.addi"(%sq, %n)
// CHECK-NEXT: %{{.*}} = "scf.for"
// CHECK-NEXT: ^bb0(%i: i32, %acc: i32):
// CHECK-NEXT: "arith.addi"(%i, %inv)
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i32) -> (i32), arg_names = ["n"]} ({
  ^bb0(%n: i32):
    %lo = "arith.constant"() {value = 0} : () -> i32
    %one = "arith.constant"() {value = 1} : () -> i32
    %r = "scf.for"(%lo, %n, %one, %lo) {operandSegmentSizes = [1, 1, 1, 1]} ({
    ^bb0(%i: i32, %acc: i32):
      %sq = "arith.muli"(%n, %n) : (i32, i32) -> i32
      %inv = "arith.addi"(%sq, %n) : (i32, i32) -> i32
      %v = "arith.addi"(%i, %inv) : (i32, i32) -> i32
      %s = "arith.addi"(%acc, %v) : (i32, i32) -> i32
      "scf.yield"(%s) {operandSegmentSizes = [1]} : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "tt.return"(%r) {operandSegmentSizes = [1]} : (i32) -> ()
  }) : () -> ()
}) : () -> ()
