# access-plan `contiguous`: a 1-D block of unit stride moves with one DMA transfer, without a mask,
# with a prefix mask (`offs < N`: the transfer is cut to the active prefix) or with a mask axis-info
# proves uniform over the block (`pid < M` splat: the transfer happens or not).
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=64 | filecheck %s
# RUN: mtiacc %s --emit=ir -O0 -D BLOCK=64 | filecheck %s
import triton
import triton.language as tl


@triton.jit
def contiguous(X, Y, N, M, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(X + offs)
    b = tl.load(X + offs, mask=offs < N, other=0.0)
    row = tl.full([BLOCK], 0, tl.int32) + pid
    tl.store(Y + offs, a + b, mask=row < M)

# CHECK-LABEL: sym_name = "contiguous"
# CHECK: %a = "tt.load"(%{{[^,)]+}}) {access = "contiguous", operandSegmentSizes = [1, 0, 0]}
# CHECK: %b = "tt.load"(%{{.+}}) {access = "contiguous", operandSegmentSizes = [1, 1, 1]}
# CHECK: "tt.store"(%{{.+}}) {access = "contiguous", operandSegmentSizes = [1, 1, 1]}
