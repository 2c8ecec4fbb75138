// loop-unroll: a constant trip count of 4 unrolls fully; factor=2 halves a trip count of 4;
// a trip count above max-trip stays a loop.
// RUN: mtiacc-opt %s --passes=loop-unroll | filecheck %s --check-prefix=FULL
// RUN: mtiacc-opt %s --passes='loop-unroll{factor=2}' | filecheck %s --check-prefix=PART
// RUN: mtiacc-opt %s --passes='loop-unroll{max-trip=2}' | filecheck %s --check-prefix=KEEP
// FULL-NOT: "scf.for"
// FULL: %[[A:.*]] = "arith.addi"(%n, %{{.*}})
// FULL: %[[B:.*]] = "arith.addi"(%[[A]], %{{.*}})
// FULL: %[[C:.*]] = "arith.addi"(%[[B]], %{{.*}})
// FULL: %[[D:.*]] = "arith.addi"(%[[C]], %{{.*}})
// FULL: "tt.return"(%[[D]])
// PART: %[[TWO:.*]] = "arith.constant"() {value = 2} : () -> i32
// PART: "scf.for"(%lo, %hi, %[[TWO]], %n)
// PART: "arith.addi"(%acc, %i)
// PART: %[[NEXT:.*]] = "arith.addi"(%i, %{{.*}})
// PART: "arith.addi"(%{{.*}}, %[[NEXT]])
// KEEP: "scf.for"(%lo, %hi, %one, %n)
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (i32) -> (i32), arg_names = ["n"]} ({
  ^bb0(%n: i32):
    %lo = "arith.constant"() {value = 0} : () -> i32
    %hi = "arith.constant"() {value = 4} : () -> i32
    %one = "arith.constant"() {value = 1} : () -> i32
    %r = "scf.for"(%lo, %hi, %one, %n) {operandSegmentSizes = [1, 1, 1, 1]} ({
    ^bb0(%i: i32, %acc: i32):
      %s = "arith.addi"(%acc, %i) : (i32, i32) -> i32
      "scf.yield"(%s) {operandSegmentSizes = [1]} : (i32) -> ()
    }) : (i32, i32, i32, i32) -> i32
    "tt.return"(%r) {operandSegmentSizes = [1]} : (i32) -> ()
  }) : () -> ()
}) : () -> ()
