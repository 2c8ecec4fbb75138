// tt.fused_elementwise round-trips through cse; cse does not reach into its region from
// outside (the outer %c stays, the region keeps its own constant).
// RUN: mtiacc-opt %s --passes=cse | filecheck %s
// CHECK: %c = "arith.constant"
// CHECK: %r = "tt.fused_elementwise"(%x, %s) {operandSegmentSizes = [2]} ({
// CHECK-NEXT: ^bb0(%a: f32, %b: f32):
// CHECK-NEXT: %c2 = "arith.constant"() {value = 2.0} : () -> f32
// CHECK-NEXT: %p = "arith.mulf"(%a, %c2)
// CHECK-NEXT: %q = "arith.addf"(%p, %b)
// CHECK-NEXT: "tt.fused_yield"(%q)
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (tensor<8xf32>, f32) -> (tensor<8xf32>), arg_names = ["x", "s"]} ({
  ^bb0(%x: tensor<8xf32>, %s: f32):
    %c = "arith.constant"() {value = 2.0} : () -> f32
    %r = "tt.fused_elementwise"(%x, %s) {operandSegmentSizes = [2]} ({
    ^bb0(%a: f32, %b: f32):
      %c2 = "arith.constant"() {value = 2.0} : () -> f32
      %p = "arith.mulf"(%a, %c2) : (f32, f32) -> f32
      %q = "arith.addf"(%p, %b) : (f32, f32) -> f32
      "tt.fused_yield"(%q) {operandSegmentSizes = [1]} : (f32) -> ()
    }) : (tensor<8xf32>, f32) -> tensor<8xf32>
    "tt.return"(%r) {operandSegmentSizes = [1]} : (tensor<8xf32>) -> ()
  }) : () -> ()
}) : () -> ()
