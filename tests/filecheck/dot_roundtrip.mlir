// tt.dot prints and parses back in the generic form with its attributes (input_precision,
// max_num_imprecise_acc), 2-D and batched 3-D; the printed text is the input.
// RUN: mtiacc-opt %s | filecheck %s
// CHECK: %c = "tt.dot"(%a, %b, %acc) {input_precision = "tf32x3"} : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
// CHECK-NEXT: %h = "tt.dot"(%ha, %hb, %hacc) {max_num_imprecise_acc = 16} : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
// CHECK-NEXT: %i = "tt.dot"(%ia, %ib, %iacc) : (tensor<16x32xi8>, tensor<32x16xi8>, tensor<16x16xi32>) -> tensor<16x16xi32>
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (tensor<32x16xf32>, tensor<16x64xf32>, tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<16x32xi8>, tensor<32x16xi8>) -> (tensor<32x64xf32>, tensor<2x16x16xf16>, tensor<16x16xi32>), arg_names = ["a", "b", "ha", "hb", "ia", "ib"]} ({
  ^bb0(%a: tensor<32x16xf32>, %b: tensor<16x64xf32>, %ha: tensor<2x16x16xf16>, %hb: tensor<2x16x16xf16>, %ia: tensor<16x32xi8>, %ib: tensor<32x16xi8>):
    %acc = "arith.constant"() {value = 0.0} : () -> tensor<32x64xf32>
    %hacc = "arith.constant"() {value = 0.0} : () -> tensor<2x16x16xf16>
    %iacc = "arith.constant"() {value = 0} : () -> tensor<16x16xi32>
    %c = "tt.dot"(%a, %b, %acc) {input_precision = "tf32x3"} : (tensor<32x16xf32>, tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
    %h = "tt.dot"(%ha, %hb, %hacc) {max_num_imprecise_acc = 16} : (tensor<2x16x16xf16>, tensor<2x16x16xf16>, tensor<2x16x16xf16>) -> tensor<2x16x16xf16>
    %i = "tt.dot"(%ia, %ib, %iacc) : (tensor<16x32xi8>, tensor<32x16xi8>, tensor<16x16xi32>) -> tensor<16x16xi32>
    "tt.return"(%c, %h, %i) {operandSegmentSizes = [3]} : (tensor<32x64xf32>, tensor<2x16x16xf16>, tensor<16x16xi32>) -> ()
  }) : () -> ()
}) : () -> ()
