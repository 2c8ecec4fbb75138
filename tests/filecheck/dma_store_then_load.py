# A load of bytes an earlier store writes waits for the stores in flight: the DMA engine's two channels order
# local-memory bytes only, not DRAM (docs/architecture.md, "DMA channels"), so without the wait the load could read
# the old bytes.  access-plan writes why on the load (`after_store`, mtiacc/ir/analysis/dram_order.py) and codegen
# waits before its transfer where a store may still be in flight; a load the analysis proves apart from every
# earlier store gets neither:
# - `y` reads what the store of line 22 writes (the same parameter, the same offsets): it waits;
# - `x2` reads X, another parameter (distinct pointer parameters a kernel writes do not share memory): no wait;
# - `z` reads Y one block past what the store wrote (offsets a constant apart): no wait;
# - `g` reads Y at offsets it loaded (a gather): the analysis cannot follow them, so it asks for the wait, which
#   insert-waits drops: the wait for the index load before it has completed every store.
# RUN: mtiacc %s --emit=ir -O3 -D BLOCK=16 -s '*fp32,*fp32,*i32' | filecheck %s
# RUN: mtiacc %s --emit=ir -O0 -D BLOCK=16 -s '*fp32,*fp32,*i32' | filecheck %s
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 -D BLOCK=16 -s '*fp32,*fp32,*i32' | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def store_then_load(X, Y, I, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * 2 * BLOCK + tl.arange(0, BLOCK)   # each program its own 2 BLOCK elements
    x = tl.load(X + offs)
    tl.store(Y + offs, x + 1)
    y = tl.load(Y + offs)
    x2 = tl.load(X + offs)
    z = tl.load(Y + BLOCK + offs)
    tl.store(X + offs, y * 2 + x2 + z)
    g = tl.load(Y + tl.load(I + offs))
    tl.store(X + BLOCK + offs, g)

# CHECK-LABEL: sym_name = "store_then_load"
# CHECK: %x = "tt.load"
# CHECK-NOT: after_store
# CHECK-SAME: loc("{{.*}}":21:9)
# CHECK: %y = "tt.load"(%{{[0-9]+}}) {access = "contiguous", after_store = "tl.store at line 22: the same parameter, at overlapping offsets", operandSegmentSizes = [1, 0, 0]}
# CHECK: %x2 = "tt.load"
# CHECK-NOT: after_store
# CHECK-SAME: loc("{{.*}}":24:10)
# CHECK: %z = "tt.load"
# CHECK-NOT: after_store
# CHECK-SAME: loc("{{.*}}":25:9)
# CHECK: %g = "tt.load"({{.*}}after_store = "tl.store at line 22: the same parameter, at offsets the analysis cannot follow"

# ASM-LABEL: store_then_load:
# ASM: mtia.dma.out
# ASM-NOT: mtia.dma.in
# ASM: mtia.dma.wait # a store in flight may write what the load reads (tl.store at line 22: the same parameter, at overlapping offsets)
# ASM-NOT: mtia.dma.{{out|wait}}
# ASM: mtia.dma.in
# ASM-NOT: a store in flight may write
# ASM: ret
