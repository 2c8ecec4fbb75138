// sccp: a constant condition picks the branch; a carried value that stays its constant init folds.
// RUN: mtiacc-opt %s --passes=sccp,dce | filecheck %s
// CHECK-LABEL: "tt.func"
// CHECK-NOT: "scf.if"
// CHECK: %[[R:.*]] = "scf.for"
// CHECK: %[[C:.*]] = "arith.constant"() {value = 7} : () -> i32
// CHECK: "arith.addi"(%acc, %[[C]])
// CHECK: "tt.return"(%[[R]])
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i32) -> (i32), arg_names = ["n"]} ({
  ^bb0(%n: i32):
    %t = "arith.constant"() {value = true} : () -> i1
    %a = "arith.constant"() {value = 7} : () -> i32
    %b = "arith.constant"() {value = 9} : () -> i32
    %x = "scf.if"(%t) ({
      "scf.yield"(%a) {operandSegmentSizes = [1]} : (i32) -> ()
    }, {
      "scf.yield"(%b) {operandSegmentSizes = [1]} : (i32) -> ()
    }) : (i1) -> i32
    %lo = "arith.constant"() {value = 0} : () -> i32
    %one = "arith.constant"() {value = 1} : () -> i32
    %r0, %r1 = "scf.for"(%lo, %n, %one, %x, %lo) {operandSegmentSizes = [1, 1, 1, 2]} ({
    ^bb0(%i: i32, %inv: i32, %acc: i32):
      %s = "arith.addi"(%acc, %inv) : (i32, i32) -> i32
      "scf.yield"(%inv, %s) {operandSegmentSizes = [2]} : (i32, i32) -> ()
    }) : (i32, i32, i32, i32, i32) -> (i32, i32)
    "tt.return"(%r1) {operandSegmentSizes = [1]} : (i32) -> ()
  }) : () -> ()
}) : () -> ()
