// legalize-fp8: fp8 values become u8 bytes (arguments, results, region arguments, the function type);
// a conversion with an fp8 end names the format of its bytes in its fp8 attribute; fp8 constants become
// their byte (1.5 in f8E4M3FN is 0x3C); an fp8 -> fp8 conversion is split in two through f32.
// Every compile runs it last, after the optimizations, just before instruction selection.
// RUN: mtiacc-opt %s --passes=legalize-fp8 | filecheck %s
// RUN: mtiacc --dump-pipeline -O3 | filecheck %s --check-prefix=PIPELINE
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<f8E5M2>, !tt.ptr<f8E4M3FN>, !tt.ptr<f16>) -> (), arg_names = ["X", "Y", "Z"]} ({
  ^bb0(%X: !tt.ptr<f8E5M2>, %Y: !tt.ptr<f8E4M3FN>, %Z: !tt.ptr<f16>):
    %offs = "tt.make_range"() {start = 0, end = 8} : () -> tensor<8xi32>
    %0 = "tt.splat"(%X) : (!tt.ptr<f8E5M2>) -> tensor<8x!tt.ptr<f8E5M2>>
    %1 = "tt.addptr"(%0, %offs) : (tensor<8x!tt.ptr<f8E5M2>>, tensor<8xi32>) -> tensor<8x!tt.ptr<f8E5M2>>
    %x = "tt.load"(%1) {operandSegmentSizes = [1, 0, 0]} : (tensor<8x!tt.ptr<f8E5M2>>) -> tensor<8xf8E5M2>
    %2 = "arith.extf"(%x) : (tensor<8xf8E5M2>) -> tensor<8xf32>
    %3 = "arith.truncf"(%2) : (tensor<8xf32>) -> tensor<8xf8E4M3FN>
    %y = "tt.fused_elementwise"(%offs, %3) {operandSegmentSizes = [2]} ({
    ^bb0(%4: i32, %5: f8E4M3FN):
      %6 = "arith.constant"() {value = 1.5} : () -> f8E4M3FN
      %7 = "arith.constant"() {value = 4} : () -> i32
      %8 = "arith.cmpi"(%4, %7) {predicate = "slt"} : (i32, i32) -> i1
      %9 = "arith.select"(%8, %5, %6) : (i1, f8E4M3FN, f8E4M3FN) -> f8E4M3FN
      "tt.fused_yield"(%9) {operandSegmentSizes = [1]} : (f8E4M3FN) -> ()
    }) : (tensor<8xi32>, tensor<8xf8E4M3FN>) -> tensor<8xf8E4M3FN>
    %10 = "tt.splat"(%Y) : (!tt.ptr<f8E4M3FN>) -> tensor<8x!tt.ptr<f8E4M3FN>>
    %11 = "tt.addptr"(%10, %offs) : (tensor<8x!tt.ptr<f8E4M3FN>>, tensor<8xi32>) -> tensor<8x!tt.ptr<f8E4M3FN>>
    "tt.store"(%11, %y) {operandSegmentSizes = [1, 1, 0]} : (tensor<8x!tt.ptr<f8E4M3FN>>, tensor<8xf8E4M3FN>) -> ()
    %12 = "tt.splat"(%Z) : (!tt.ptr<f16>) -> tensor<8x!tt.ptr<f16>>
    %13 = "tt.addptr"(%12, %offs) : (tensor<8x!tt.ptr<f16>>, tensor<8xi32>) -> tensor<8x!tt.ptr<f16>>
    %14 = "arith.extf"(%y) : (tensor<8xf8E4M3FN>) -> tensor<8xf16>
    "tt.store"(%13, %14) {operandSegmentSizes = [1, 1, 0]} : (tensor<8x!tt.ptr<f16>>, tensor<8xf16>) -> ()
    %15 = "arith.truncf"(%x) : (tensor<8xf8E5M2>) -> tensor<8xf8E4M3FN>
    "tt.store"(%11, %15) {operandSegmentSizes = [1, 1, 0]} : (tensor<8x!tt.ptr<f8E4M3FN>>, tensor<8xf8E4M3FN>) -> ()
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK: "tt.func"() {sym_name = "k", function_type = (!tt.ptr<u8>, !tt.ptr<u8>, !tt.ptr<f16>) -> (), arg_names = ["X", "Y", "Z"]} ({
// CHECK-NEXT: ^bb0(%X: !tt.ptr<u8>, %Y: !tt.ptr<u8>, %Z: !tt.ptr<f16>):
// CHECK: %x = "tt.load"(%1) {operandSegmentSizes = [1, 0, 0]} : (tensor<8x!tt.ptr<u8>>) -> tensor<8xu8>
// CHECK-NEXT: %2 = "arith.extf"(%x) {fp8 = "f8E5M2"} : (tensor<8xu8>) -> tensor<8xf32>
// CHECK-NEXT: %3 = "arith.truncf"(%2) {fp8 = "f8E4M3FN"} : (tensor<8xf32>) -> tensor<8xu8>
// CHECK-NEXT: %y = "tt.fused_elementwise"(%offs, %3) {operandSegmentSizes = [2]} ({
// CHECK-NEXT: ^bb0(%4: i32, %5: u8):
// CHECK-NEXT: %6 = "arith.constant"() {value = 60} : () -> u8
// CHECK: %9 = "arith.select"(%8, %5, %6) : (i1, u8, u8) -> u8
// CHECK-NEXT: "tt.fused_yield"(%9) {operandSegmentSizes = [1]} : (u8) -> ()
// CHECK-NEXT: }) : (tensor<8xi32>, tensor<8xu8>) -> tensor<8xu8>
// CHECK: "tt.store"(%11, %y) {operandSegmentSizes = [1, 1, 0]} : (tensor<8x!tt.ptr<u8>>, tensor<8xu8>) -> ()
// CHECK: %14 = "arith.extf"(%y) {fp8 = "f8E4M3FN"} : (tensor<8xu8>) -> tensor<8xf16>
// CHECK: %[[WIDE:[0-9]+]] = "arith.extf"(%x) {fp8 = "f8E5M2"} : (tensor<8xu8>) -> tensor<8xf32>
// CHECK-NEXT: %[[BYTES:[0-9]+]] = "arith.truncf"(%[[WIDE]]) {fp8 = "f8E4M3FN"} : (tensor<8xf32>) -> tensor<8xu8>
// CHECK-NEXT: "tt.store"(%11, %[[BYTES]])

// PIPELINE: {{^}}inline,carry-pointer-offsets,{{.*}},dce,dot-accumulators,access-plan,legalize-fp8,machine-peephole,machine-schedule{{$}}
