// tt.atomic_rmw, tt.atomic_cas and tt.barrier print and parse back unchanged; CSE, DCE and LICM keep all of
// them (none is pure): two identical atomics stay two, unused results stay, nothing leaves the loop.
// RUN: mtiacc-opt %s --passes=cse,dce,licm | filecheck %s
// CHECK: "scf.for"
// CHECK-NEXT: ^bb0(%i: i32):
// CHECK-NEXT: %a = "tt.atomic_rmw"(%p, %one, %t) {kind = "add", sem = "relaxed", scope = "gpu", operandSegmentSizes = [1, 1, 1]} : (!tt.ptr<i32>, i32, i1) -> i32
// CHECK-NEXT: %b = "tt.atomic_rmw"(%p, %one, %t) {kind = "add", sem = "relaxed", scope = "gpu", operandSegmentSizes = [1, 1, 1]} : (!tt.ptr<i32>, i32, i1) -> i32
// CHECK-NEXT: %c = "tt.atomic_cas"(%p, %one, %n) {sem = "acq_rel", scope = "sys"} : (!tt.ptr<i32>, i32, i32) -> i32
// CHECK-NEXT: "tt.barrier"() : () -> ()
// CHECK-NEXT: %f = "tt.atomic_rmw"(%q, %x) {kind = "fadd", sem = "release", scope = "cta", operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<bf16>, bf16) -> bf16
// CHECK-NEXT: "scf.yield"
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<i32>, !tt.ptr<bf16>, i32, bf16) -> (), arg_names = ["p", "q", "n", "x"]} ({
  ^bb0(%p: !tt.ptr<i32>, %q: !tt.ptr<bf16>, %n: i32, %x: bf16):
    %lo = "arith.constant"() {value = 0} : () -> i32
    %one = "arith.constant"() {value = 1} : () -> i32
    %t = "arith.constant"() {value = true} : () -> i1
    "scf.for"(%lo, %n, %one) {operandSegmentSizes = [1, 1, 1, 0]} ({
    ^bb0(%i: i32):
      %a = "tt.atomic_rmw"(%p, %one, %t) {kind = "add", sem = "relaxed", scope = "gpu", operandSegmentSizes = [1, 1, 1]} : (!tt.ptr<i32>, i32, i1) -> i32
      %b = "tt.atomic_rmw"(%p, %one, %t) {kind = "add", sem = "relaxed", scope = "gpu", operandSegmentSizes = [1, 1, 1]} : (!tt.ptr<i32>, i32, i1) -> i32
      %c = "tt.atomic_cas"(%p, %one, %n) {sem = "acq_rel", scope = "sys"} : (!tt.ptr<i32>, i32, i32) -> i32
      "tt.barrier"() : () -> ()
      %f = "tt.atomic_rmw"(%q, %x) {kind = "fadd", sem = "release", scope = "cta", operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<bf16>, bf16) -> bf16
      "scf.yield"() {operandSegmentSizes = [0]} : () -> ()
    }) : (i32, i32, i32) -> ()
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
