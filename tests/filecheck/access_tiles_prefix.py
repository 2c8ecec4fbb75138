# access-plan `tiles` with a mask whose active elements are a row-major prefix of the tile: Inductor's
# `r0_mask & xmask` with one row (XBLOCK = 1).  The transfer moves the rows the mask keeps and only the
# tail after them takes `other`, filled while the transfer runs: no wait until the data is read, so the
# two loads' transfers run back to back.  A box that clips the columns too (`box`) is not a prefix: the
# tile is filled first and the load waits for its transfer.
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 --kernel=rows -D R0_BLOCK=64 --signature '*fp32,*fp32,*fp32,i32' | filecheck %s
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 --kernel=box -D B=8 --signature '*fp32,*fp32,i32,i32' | filecheck %s --check-prefix=BOX
import triton
import triton.language as tl


@triton.jit
def rows(in_ptr0, in_ptr1, out_ptr0, xnumel, R0_BLOCK: tl.constexpr):
    xindex = tl.program_id(0) + tl.arange(0, 1)[:, None]
    xmask = xindex < xnumel
    r0_index = tl.arange(0, R0_BLOCK)[None, :]
    a = tl.load(in_ptr0 + (r0_index + 64 * xindex), xmask, other=1.0)
    b = tl.load(in_ptr1 + (r0_index + 64 * xindex), xmask, other=2.0)
    tl.store(out_ptr0 + (r0_index + 64 * xindex), a * b, xmask)


@triton.jit
def box(X, Y, M, N, B: tl.constexpr):
    r = tl.arange(0, B)
    m = (r < M)[:, None] & (r < N)[None, :]
    t = tl.load(X + r[:, None] * N + r[None, :], m, other=0.0)
    tl.store(Y + r[:, None] * B + r[None, :], t)

# CHECK-LABEL: rows:
# CHECK: mtia.dma.in
# CHECK-NOT: mtia.dma.wait
# CHECK: # fill
# CHECK-NOT: mtia.dma.wait
# CHECK: mtia.dma.in
# CHECK-NOT: mtia.dma.wait
# CHECK: # fill
# CHECK: mtia.dma.wait {{.*}}# loads above complete before their data is read
# CHECK: mtia.dma.out

# BOX-LABEL: box:
# BOX: # fill
# BOX: mtia.dma.in2d
# BOX: mtia.dma.wait
# BOX: mtia.dma.out
