// The verifier rejects a tt.split whose last dimension is not 2, at the op.
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
// CHECK: join_split_verify.mlir:9:5: error: IR verification failed before the pipeline: 'tt.split' op needs a block of rank 2 or more whose last dimension is 2, got tensor<8x4xi8>
// CHECK-NEXT: %h = "tt.split"
// CHECK-NEXT: ^
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (tensor<8x4xi8>) -> (), arg_names = ["x"]} ({
  ^bb0(%x: tensor<8x4xi8>):
    %h = "tt.split"(%x) {index = 0} : (tensor<8x4xi8>) -> tensor<8xi8>
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()
