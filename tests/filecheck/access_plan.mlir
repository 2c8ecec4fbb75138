// The `access` attribute of tt.load / tt.store is read back and printed as written (prefix KEEP), and
// the access-plan pass writes it on every load and store, replacing what was there (prefix PLAN): the
// stale "elements" on %b becomes "contiguous", %a gets one, the scalar load is "scalar".
// RUN: mtiacc opt %s | filecheck %s --check-prefix=KEEP
// RUN: mtiacc opt %s --passes=access-plan | filecheck %s --check-prefix=PLAN
"builtin.module"() ({
  "tt.func"() {sym_name = "add_kernel", function_type = (!tt.ptr<f32>, !tt.ptr<f32>, !tt.ptr<f32>, i32) -> (), arg_names = ["A_ptr", "B_ptr", "C_ptr", "N"]} ({
  ^bb0(%A_ptr: !tt.ptr<f32>, %B_ptr: !tt.ptr<f32>, %C_ptr: !tt.ptr<f32>, %N: i32):
    %pid = "tt.get_program_id"() {axis = 0} : () -> i32
    %0 = "arith.constant"() {value = 4} : () -> i32
    %1 = "arith.muli"(%pid, %0) : (i32, i32) -> i32
    %2 = "tt.make_range"() {start = 0, end = 4} : () -> tensor<4xi32>
    %3 = "tt.splat"(%1) : (i32) -> tensor<4xi32>
    %offsets = "arith.addi"(%3, %2) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    %4 = "tt.splat"(%N) : (i32) -> tensor<4xi32>
    %mask = "arith.cmpi"(%offsets, %4) {predicate = "slt"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %5 = "tt.splat"(%A_ptr) : (!tt.ptr<f32>) -> tensor<4x!tt.ptr<f32>>
    %6 = "tt.addptr"(%5, %offsets) : (tensor<4x!tt.ptr<f32>>, tensor<4xi32>) -> tensor<4x!tt.ptr<f32>>
    %a = "tt.load"(%6, %mask) {operandSegmentSizes = [1, 1, 0]} : (tensor<4x!tt.ptr<f32>>, tensor<4xi1>) -> tensor<4xf32>
    %7 = "tt.splat"(%B_ptr) : (!tt.ptr<f32>) -> tensor<4x!tt.ptr<f32>>
    %8 = "tt.addptr"(%7, %offsets) : (tensor<4x!tt.ptr<f32>>, tensor<4xi32>) -> tensor<4x!tt.ptr<f32>>
    %b = "tt.load"(%8, %mask) {access = "elements", operandSegmentSizes = [1, 1, 0]} : (tensor<4x!tt.ptr<f32>>, tensor<4xi1>) -> tensor<4xf32>
    %s = "tt.load"(%A_ptr) {operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<f32>) -> f32
    %9 = "tt.splat"(%C_ptr) : (!tt.ptr<f32>) -> tensor<4x!tt.ptr<f32>>
    %10 = "tt.addptr"(%9, %offsets) : (tensor<4x!tt.ptr<f32>>, tensor<4xi32>) -> tensor<4x!tt.ptr<f32>>
    %11 = "arith.addf"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %12 = "tt.splat"(%s) : (f32) -> tensor<4xf32>
    %13 = "arith.mulf"(%11, %12) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "tt.store"(%10, %13, %mask) {access = "contiguous", operandSegmentSizes = [1, 1, 1]} : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>, tensor<4xi1>) -> ()
    "tt.return"() {operandSegmentSizes = [0]} : () -> ()
  }) : () -> ()
}) : () -> ()

// KEEP:      %a = "tt.load"(%6, %mask) {operandSegmentSizes = [1, 1, 0]} : (tensor<4x!tt.ptr<f32>>, tensor<4xi1>) -> tensor<4xf32>{{$}}
// KEEP:      %b = "tt.load"(%8, %mask) {access = "elements", operandSegmentSizes = [1, 1, 0]} : (tensor<4x!tt.ptr<f32>>, tensor<4xi1>) -> tensor<4xf32>{{$}}
// KEEP-NEXT: %s = "tt.load"(%A_ptr) {operandSegmentSizes = [1, 0, 0]} : (!tt.ptr<f32>) -> f32{{$}}
// KEEP:      "tt.store"(%10, %13, %mask) {access = "contiguous", operandSegmentSizes = [1, 1, 1]} : (tensor<4x!tt.ptr<f32>>, tensor<4xf32>, tensor<4xi1>) -> (){{$}}

// PLAN:      %a = "tt.load"(%6, %mask) {access = "contiguous", operandSegmentSizes = [1, 1, 0]}
// PLAN:      %b = "tt.load"(%8, %mask) {access = "contiguous", operandSegmentSizes = [1, 1, 0]}
// PLAN-NEXT: %s = "tt.load"(%A_ptr) {access = "scalar", operandSegmentSizes = [1, 0, 0]}
// PLAN:      "tt.store"(%10, %13, %mask) {access = "contiguous", operandSegmentSizes = [1, 1, 1]}
