# access-plan `tiles`: affine N-d blocks move one row per DMA (a box mask clips the rows), and so
# does a 1-D block whose stride is a run-time value (it branches on the stride at run time).
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK_M=8 -D BLOCK_N=16 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def copy_tile(X, Y, Z, M, N, stride, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, BLOCK_N)
    box = (rows < M)[:, None] & (cols < N)[None, :]
    tile = tl.load(X + rows[:, None] * stride + cols[None, :], mask=box, other=0.0)
    tl.store(Y + rows[:, None] * N + cols[None, :], tile, mask=box)
    column = tl.load(X + cols * stride)
    tl.store(Z + cols, column)

# CHECK-LABEL: sym_name = "copy_tile"
# CHECK: %tile = "tt.load"(%{{.+}}, %box, %{{.+}}) {access = "tiles"
# CHECK: "tt.store"(%{{.+}}, %tile, %box) {access = "tiles"
# CHECK: %column = "tt.load"(%{{[^,)]+}}) {access = "tiles"
# CHECK: "tt.store"(%{{.+}}, %column) {access = "contiguous"
