// legalize-fp8 on tt.dot: fp8 operands are first widened to f16 (which holds every value of the five fp8
// formats exactly), each arith.extf marked with its format like any other; the accumulator keeps its type
// and the op still verifies.  A dot without fp8 operands is left alone.
// RUN: mtiacc-opt %s --passes=legalize-fp8 | filecheck %s
// CHECK: %x = "tt.load"(%X) {operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<u8>) -> u8
// CHECK: %0 = "arith.extf"(%a) {fp8 = "f8E4M3FN"} : (tensor<16x32xu8>) -> tensor<16x32xf16>
// CHECK-NEXT: %1 = "arith.extf"(%b) {fp8 = "f8E5M2FNUZ"} : (tensor<32x16xu8>) -> tensor<32x16xf16>
// CHECK-NEXT: %c = "tt.dot"(%0, %1, %acc) : (tensor<16x32xf16>, tensor<32x16xf16>, tensor<16x16xf32>) -> tensor<16x16xf32>
// CHECK-NEXT: %2 = "arith.extf"(%a) {fp8 = "f8E4M3FN"} : (tensor<16x32xu8>) -> tensor<16x32xf16>
// CHECK-NEXT: %3 = "arith.extf"(%b) {fp8 = "f8E5M2FNUZ"} : (tensor<32x16xu8>) -> tensor<32x16xf16>
// CHECK-NEXT: %h = "tt.dot"(%2, %3, %hacc) {max_num_imprecise_acc = 32} : (tensor<16x32xf16>, tensor<32x16xf16>, tensor<16x16xf16>) -> tensor<16x16xf16>
// CHECK-NEXT: %f = "tt.dot"(%fa, %fb, %acc) {input_precision = "tf32"} : (tensor<16x32xf32>, tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<f8E4M3FN>, tensor<16x32xf8E4M3FN>, tensor<32x16xf8E5M2FNUZ>, tensor<16x32xf32>, tensor<32x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf16>, tensor<16x16xf32>), arg_names = ["X", "a", "b", "fa", "fb"]} ({
  ^bb0(%X: !tt.ptr<f8E4M3FN>, %a: tensor<16x32xf8E4M3FN>, %b: tensor<32x16xf8E5M2FNUZ>, %fa: tensor<16x32xf32>, %fb: tensor<32x16xf32>):
    %x = "tt.load"(%X) {operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<f8E4M3FN>) -> f8E4M3FN
    %acc = "arith.constant"() {value = 0.0} : () -> tensor<16x16xf32>
    %hacc = "arith.constant"() {value = 0.0} : () -> tensor<16x16xf16>
    %c = "tt.dot"(%a, %b, %acc) : (tensor<16x32xf8E4M3FN>, tensor<32x16xf8E5M2FNUZ>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %h = "tt.dot"(%a, %b, %hacc) {max_num_imprecise_acc = 32} : (tensor<16x32xf8E4M3FN>, tensor<32x16xf8E5M2FNUZ>, tensor<16x16xf16>) -> tensor<16x16xf16>
    %f = "tt.dot"(%fa, %fb, %acc) {input_precision = "tf32"} : (tensor<16x32xf32>, tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    "tt.return"(%c, %h, %f) {operandSegmentSizes = [3]} : (tensor<16x16xf32>, tensor<16x16xf16>, tensor<16x16xf32>) -> ()
  }) : () -> ()
}) : () -> ()
