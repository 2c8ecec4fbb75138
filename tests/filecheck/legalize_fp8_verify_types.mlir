// The verifier checks that a conversion's types agree with its fp8 attribute: the fp8 end holds bytes
// (u8), the other end is f16, bf16, f32 or f64; without the attribute both ends are floats.
// RUN: not mtiacc-opt %s 2>&1 | filecheck %s
// CHECK: legalize_fp8_verify_types.mlir:8:5: error: IR verification failed before the pipeline: 'arith.truncf' op with fp8 = "f8E5M2" the result holds its bytes and must be u8, got i8
"builtin.module"() ({
  "tt.func"() {sym_name = "k", function_type = (f32) -> (i8), arg_names = ["x"]} ({
  ^bb0(%x: f32):
    %b = "arith.truncf"(%x) {fp8 = "f8E5M2"} : (f32) -> i8
    "tt.return"(%b) {operandSegmentSizes = [1]} : (i8) -> ()
  }) : () -> ()
}) : () -> ()
