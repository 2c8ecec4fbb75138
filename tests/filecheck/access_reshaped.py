# A reshape that splits or merges dimensions keeps a block affine when each group of merged source
# dimensions is row-major (`tl.arange(0, 64).reshape(4, 4, 4)`, a 2-D row-major tile read as one row):
# such pointer blocks are `tiles` (a DMA per row; the merged one is one row) instead of a `gather` that materializes
# one pointer per element.  A transposed tile merged into one row is not affine: still a gather.
# RUN: mtiacc %s --emit=ir -O2 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def reshaped(X, Y, S):
    idx = (tl.arange(0, 64) * S).reshape(4, 4, 4)
    cube = tl.load(X + idx)
    tl.store(Y + tl.arange(0, 64).reshape(4, 4, 4), cube)
    rows = tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :]
    flat = tl.load(X + rows.reshape(32))
    tl.store(Y + 64 + tl.arange(0, 32), flat)
    cols = tl.arange(0, 4)[:, None] + tl.arange(0, 8)[None, :] * 4
    twisted = tl.load(X + cols.reshape(32))
    tl.store(Y + 96 + tl.arange(0, 32), twisted)

# CHECK-LABEL: sym_name = "reshaped"
# CHECK: %cube = "tt.load"(%{{[^,)]+}}) {access = "tiles"
# CHECK: "tt.store"(%{{.+}}, %cube) {access = "tiles"
# CHECK: %flat = "tt.load"(%{{[^,)]+}}) {access = "tiles"
# CHECK: %twisted = "tt.load"(%{{[^,)]+}}) {access = "gather"
