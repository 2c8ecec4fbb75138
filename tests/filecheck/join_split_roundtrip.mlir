// tt.join / tt.split / tt.cat / tt.flip print and parse back in the generic form.
// RUN: mtiacc-opt %s | filecheck %s
// CHECK: %j = "tt.join"(%x, %y) : (tensor<8xi8>, tensor<8xi8>) -> tensor<8x2xi8>
// CHECK-NEXT: %h = "tt.split"(%j) {index = 1} : (tensor<8x2xi8>) -> tensor<8xi8>
// CHECK-NEXT: %c = "tt.cat"(%h, %x) {dim = 0} : (tensor<8xi8>, tensor<8xi8>) -> tensor<16xi8>
// CHECK-NEXT: %f = "tt.flip"(%c) {dim = 0} : (tensor<16xi8>) -> tensor<16xi8>
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (tensor<8xi8>, tensor<8xi8>) -> (tensor<16xi8>), arg_names = ["x", "y"]} ({
  ^bb0(%x: tensor<8xi8>, %y: tensor<8xi8>):
    %j = "tt.join"(%x, %y) : (tensor<8xi8>, tensor<8xi8>) -> tensor<8x2xi8>
    %h = "tt.split"(%j) {index = 1} : (tensor<8x2xi8>) -> tensor<8xi8>
    %c = "tt.cat"(%h, %x) {dim = 0} : (tensor<8xi8>, tensor<8xi8>) -> tensor<16xi8>
    %f = "tt.flip"(%c) {dim = 0} : (tensor<16xi8>) -> tensor<16xi8>
    "tt.return"(%f) {operandSegmentSizes = [1]} : (tensor<16xi8>) -> ()
  }) : () -> ()
}) : () -> ()
