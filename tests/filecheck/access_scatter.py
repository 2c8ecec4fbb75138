# access-plan `scatter`: a store through a pointer block without structure (`out + idx`, idx loaded)
# moves one element per DMA to the materialized addresses.
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=32 --signature='*fp32,*i32,*fp32,i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def scatter(X, I, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    idx = tl.load(I + offs, mask=m, other=0)
    x = tl.load(X + offs, mask=m)
    tl.store(Y + idx, x * 2.0, mask=m)

# CHECK-LABEL: sym_name = "scatter"
# CHECK: %x = "tt.load"(%{{.+}}, %m) {access = "contiguous"
# CHECK: "tt.store"(%{{.+}}, %m) {access = "scatter"
