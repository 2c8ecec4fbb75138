# licm moves only ops without regions: the tt.reduce of the invariant block W by a combiner of the kernel's own (a
# region op, the combiner inside) stays in the loop, while the multiply of W by itself and the tt.reduce by a kind
# (no region), pure, leave it.
# RUN: mtiacc %s --emit=ir -O2 --signature=*fp32,*fp32,*fp32 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def _larger_magnitude(a, b):
    return tl.where(tl.abs(a) >= tl.abs(b), a, b)


@triton.jit
def reduced(X, W, Y):
    offs = tl.arange(0, 64)
    w = tl.load(W + offs)
    acc = tl.zeros([64], dtype=tl.float32)
    for i in range(0, 4):
        acc += tl.load(X + i * 64 + offs) * (w * w) + tl.sum(w, axis=0) + tl.reduce(w, 0, _larger_magnitude)
    tl.store(Y + offs, acc)

# CHECK-LABEL: "tt.func"
# CHECK: "arith.mulf"(%w, %w)
# CHECK: "tt.reduce"(%w) {axis = 0, kind = "sum"}
# CHECK-NOT: "tt.reduce"
# CHECK: "scf.for"
# CHECK: "tt.reduce"(%w) {axis = 0}
# CHECK: "scf.yield"
