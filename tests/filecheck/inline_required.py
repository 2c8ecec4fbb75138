# inline is a pass of every compile's pipeline, first (-O0 included: codegen lowers one function, so
# inlining is how calls compile); --print-ir-before/after, --time-passes and --dump-pipeline show it.
# RUN: mtiacc %s --emit=ir -O0 --print-ir-before=inline --print-ir-after=inline | filecheck %s
# RUN: mtiacc --dump-pipeline -O0 | filecheck %s --check-prefix=O0
# RUN: mtiacc --dump-pipeline -O2 | filecheck %s --check-prefix=O2
# RUN: not mtiacc %s --emit=ir --disable-pass=inline | filecheck %s --check-prefix=DISABLE
import triton
import triton.language as tl


@triton.jit
def twice(x):
    return x + x


@triton.jit
def k(X, BLOCK: tl.constexpr = 8):
    offs = tl.arange(0, BLOCK)
    tl.store(X + offs, twice(tl.load(X + offs)))

# CHECK: // -----// IR Dump Before inline //----- //
# CHECK: "tt.call"(%{{[0-9]+}}) {callee = "twice"{{.*}} : (tensor<8xf32>) -> tensor<8xf32>
# CHECK: "tt.func"() {sym_name = "twice"
# CHECK: // -----// IR Dump After inline //----- //
# CHECK-NOT: "tt.call"
# CHECK: "arith.addf"
# CHECK-NOT: "tt.func"() {sym_name = "twice"
# CHECK: "tt.return"

# O0: {{^}}inline,carry-pointer-offsets,contract-fma,split-dots,band-accumulators,stream-blocks,dot-accumulators,access-plan,legalize-fp8{{$}}
# O2: {{^}}inline,carry-pointer-offsets,contract-fma,canonicalize,{{.*}},dce,dot-accumulators,access-plan,legalize-fp8,machine-peephole,machine-schedule{{$}}
# DISABLE: error: --disable-pass: 'inline' cannot be disabled: code generation needs it
