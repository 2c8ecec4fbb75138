# access-plan `elements`: a 1-D affine block whose mask comes from the data, or with a constant
# stride and such a mask, moves one element per DMA (the unmasked load stays `contiguous`).
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=64 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def positive_only(X, Y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs)
    keep = x > 0.0
    tl.store(Y + offs, x, mask=keep)
    z = tl.load(X + 2 * offs, mask=keep, other=0.0)
    tl.store(Y + BLOCK + offs, z)

# CHECK-LABEL: sym_name = "positive_only"
# CHECK: %x = "tt.load"(%{{[^,)]+}}) {access = "contiguous"
# CHECK: "tt.store"(%{{.+}}, %x, %keep) {access = "elements"
# CHECK: %z = "tt.load"(%{{.+}}, %keep, %{{.+}}) {access = "elements"
# CHECK: "tt.store"(%{{.+}}, %z) {access = "contiguous"
