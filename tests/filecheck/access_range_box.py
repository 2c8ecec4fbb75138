# access-plan: a block pointer's (or a descriptor's) boundary mask is a range box,
# `-off <= arange(B) < shape - off` per checked axis.  A 1-D block with such a mask is `tiles` (one DMA of
# the clipped range), not `elements`; a 2-D one is `tiles` and clips each axis at run time, so the
# ragged block still moves with one 2-D DMA in and one out (no per-element DMA, no mask buffer).
# RUN: mtiacc %s --emit=ir -O2 --kernel=ragged_1d -D B=32 --signature '*fp32,*fp32,i32,i32' | filecheck %s --check-prefix=IR1
# RUN: mtiacc %s --emit=ir -O2 --kernel=ragged_2d -D B=16 --signature '*fp32,*fp32,i32,i32,i32,i32' | filecheck %s --check-prefix=IR2
# RUN: mtiacc %s --emit=asm -O2 --kernel=ragged_2d -D B=16 --signature '*fp32,*fp32,i32,i32,i32,i32' | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def ragged_1d(X, Y, N, off, B: tl.constexpr):
    p = tl.make_block_ptr(X, (N,), (1,), (off,), (B,), (0,))
    q = tl.make_block_ptr(Y, (N,), (1,), (off,), (B,), (0,))
    tl.store(q, tl.load(p, boundary_check=(0,), padding_option="zero"), boundary_check=(0,))


@triton.jit
def ragged_2d(X, Y, M, N, om, on, B: tl.constexpr):
    p = tl.make_block_ptr(X, (M, N), (N, 1), (om, on), (B, B), (1, 0))
    q = tl.make_block_ptr(Y, (M, N), (N, 1), (om, on), (B, B), (1, 0))
    tl.store(q, tl.load(p, boundary_check=(0, 1), padding_option="zero"), boundary_check=(0, 1))

# IR1-LABEL: sym_name = "ragged_1d"
# IR1: %[[LO:.+]] = "arith.cmpi"(%{{.+}}, %{{.+}}) {predicate = "sge"}
# IR1: %[[HI:.+]] = "arith.cmpi"(%{{.+}}, %{{.+}}) {predicate = "slt"}
# IR1: %[[M:.+]] = "arith.andi"(%[[LO]], %[[HI]])
# IR1: "tt.load"(%{{.+}}, %[[M]], %{{.+}}) {access = "tiles"
# IR1: "tt.store"(%{{.+}}, %{{.+}}, %[[M]]) {access = "tiles"

# IR2-LABEL: sym_name = "ragged_2d"
# IR2: "tt.load"({{.+}}) {access = "tiles"
# IR2: "tt.store"({{.+}}) {access = "tiles"

# ASM-LABEL: ragged_2d:
# ASM-NOT: mtia.dma.in {{.+}}
# ASM: mtia.dma.in2d
# ASM-NOT: mtia.dma.in {{.+}}
# ASM: mtia.dma.out2d
# ASM-NOT: mtia.dma.out {{.+}}
# ASM: ret
