// The verifier checks the fp8 attribute of a conversion: the name of one of Triton's five fp8 formats
// (here a misspelt one).
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
// CHECK: legalize_fp8_verify_bad.mlir:9:5: error: IR verification failed before the pipeline: 'arith.extf' op fp8 = "f8E4M3" is not an fp8 format (expected one of f8E4M3FN, f8E5M2, f8E4M3B15, f8E4M3FNUZ, f8E5M2FNUZ)
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (!tt.ptr<u8>) -> (f32), arg_names = ["X"]} ({
  ^bb0(%X: !tt.ptr<u8>):
    %x = "tt.load"(%X) {operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<u8>) -> u8
    %w = "arith.extf"(%x) {fp8 = "f8E4M3"} : (u8) -> f32
    "tt.return"(%w) {operandSegmentSizes = [1]} : (f32) -> ()
  }) : () -> ()
}) : () -> ()
