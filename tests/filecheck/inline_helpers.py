# A helper call is a tt.call to a private tt.func specialized on its constant arguments; the
# inline pass puts the body in place and removes the helpers.
# RUN: mtiacc-ir %s --kernel=k | filecheck %s --check-prefix=CALL
# RUN: mtiacc-ir %s --kernel=k --passes=inline | filecheck %s --check-prefix=INLINED
import triton
import triton.language as tl


@triton.jit
def scale(x, by: tl.constexpr):
    return x * by, x


@triton.jit
def k(X, BLOCK: tl.constexpr = 8):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    a, _ = scale(x, 2.0)
    b, _ = scale(a, by=3.0)
    tl.store(X + offs, b)

# CALL: "tt.call"(%x) {callee = "scale"
# CALL: "tt.call"(%a) {callee = "scale_1"
# CALL: "tt.func"() {sym_name = "scale", function_type = (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>), arg_names = ["x"], sym_visibility = "private"}
# CALL: "arith.constant"() {value = 2.0}
# CALL: "tt.func"() {sym_name = "scale_1"
# CALL: "arith.constant"() {value = 3.0}

# INLINED-NOT: "tt.call"
# INLINED: "arith.mulf"(%x,
# INLINED: "arith.mulf"
# INLINED-NOT: "tt.func"
