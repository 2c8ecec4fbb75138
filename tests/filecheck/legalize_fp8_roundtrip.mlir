// Legalized fp8 IR round-trips: the fp8 attribute prints, parses back and verifies; legalize-fp8 finds
// nothing left to do on it (it changes nothing).
// RUN: mtiacc-opt %s | filecheck %s
// RUN: mtiacc-opt %s --passes=legalize-fp8 | filecheck %s
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<u8>, !tt.ptr<f64>) -> (), arg_names = ["X", "Y"]} ({
  ^bb0(%X: !tt.ptr<u8>, %Y: !tt.ptr<f64>):
    %x = "tt.load"(%X) {operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<u8>) -> u8
    %w = "arith.extf"(%x) {fp8 = "f8E4M3FNUZ"} : (u8) -> f64
    %b = "arith.truncf"(%w) {fp8 = "f8E4M3B15"} : (f64) -> u8
    "tt.store"(%X, %b) {operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<u8>, u8) -> ()
    "tt.store"(%Y, %w) {operandSegmentSizes = [1, 1, 0]} : (!tt.ptr<f64>, f64) -> ()
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK: %w = "arith.extf"(%x) {fp8 = "f8E4M3FNUZ"} : (u8) -> f64
// CHECK-NEXT: %b = "arith.truncf"(%w) {fp8 = "f8E4M3B15"} : (f64) -> u8
