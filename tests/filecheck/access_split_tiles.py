# access-plan `split-tiles`: a (YBLOCK, XBLOCK) tile stored transposed with a split index on the y
# axis (`y0 + 3*x2 + 147*y1`, y0 = y % 3, y1 = y // 3) moves by runs along one axis; its affine,
# row-contiguous load is `tiles`.
# RUN: mtiacc %s --emit=ir -O2 -D YBLOCK=16 -D XBLOCK=32 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def transpose_tile(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK: tl.constexpr, XBLOCK: tl.constexpr):
    yoffset = tl.program_id(1) * YBLOCK
    yindex = yoffset + tl.arange(0, YBLOCK)[:, None]
    ymask = yindex < ynumel
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[None, :]
    xmask = xindex < xnumel
    x2 = xindex
    y0 = yindex % 3
    y1 = yindex // 3
    y3 = yindex
    tmp0 = tl.load(in_ptr0 + (x2 + 49 * y3), xmask & ymask)
    tl.store(out_ptr0 + (y0 + 3 * x2 + 147 * y1), tmp0, xmask & ymask)

# CHECK-LABEL: sym_name = "transpose_tile"
# CHECK: %tmp0 = "tt.load"(%{{.+}}) {access = "tiles"
# CHECK: "tt.store"(%{{.+}}, %tmp0, %{{.+}}) {access = "split-tiles"
