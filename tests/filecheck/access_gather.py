# access-plan `gather`: a load through a pointer block without structure (`table + idx`, idx loaded)
# moves one element per DMA from the materialized addresses; the index load is `contiguous`.
# RUN: mtiacc %s --emit=ir -O2 -D BLOCK=32 --signature='*fp32,*i32,*fp32,i32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def lookup(T, I, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    idx = tl.load(I + offs, mask=m, other=0)
    v = tl.load(T + idx, mask=m, other=0.0)
    tl.store(Y + offs, v, mask=m)

# CHECK-LABEL: sym_name = "lookup"
# CHECK: %idx = "tt.load"(%{{.+}}, %m, %{{.+}}) {access = "contiguous"
# CHECK: %v = "tt.load"(%{{.+}}, %m, %{{.+}}) {access = "gather"
# CHECK: "tt.store"(%{{.+}}, %v, %m) {access = "contiguous"
