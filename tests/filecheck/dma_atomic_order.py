# An atomic reaches its memory's atomic unit apart from the DMA engine, which compares no addresses with it
# (docs/architecture.md, "DMA channels"), so access-plan orders the pairs over the same bytes the sem does not
# (mtiacc/ir/analysis/dram_order.py):
# - the relaxed atomic_add of line 22 updates what the store of line 21 writes: `after_store`, it waits for the
#   stores in flight first;
# - the atomic on C (another parameter) and the acquire one a block past the store's bytes get nothing, nor does
#   the release atomic_or (its .rl waits for every transfer before it);
# - `y` reads what the relaxed atomic of line 22 updates: `after_atomic`, a fence precedes its transfer; `z` (X)
#   and the store a block past get nothing (the acquire atomic's .aq held the core until it was performed).
# RUN: mtiacc %s --emit=ir -O3 -D BLOCK=16 -s '*i32,*i32,*i32' | filecheck %s
# RUN: mtiacc %s --emit=ir -O0 -D BLOCK=16 -s '*i32,*i32,*i32' | filecheck %s
# RUN: mtiacc %s --emit=asm --asm-syntax=mtia -O2 -D BLOCK=16 -s '*i32,*i32,*i32' | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def atomic_order(X, Y, C, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * 2 * BLOCK + tl.arange(0, BLOCK)   # each program its own 2 BLOCK elements
    x = tl.load(X + offs)
    tl.store(Y + offs, x)
    tl.atomic_add(Y + offs, 1, sem="relaxed")
    tl.atomic_add(C, 1, sem="relaxed")
    tl.atomic_add(Y + BLOCK + offs, 1, sem="acquire")
    tl.atomic_or(Y + offs, 1, sem="release")
    y = tl.load(Y + offs)
    z = tl.load(X + offs)
    tl.store(Y + BLOCK + offs, y + z)

# CHECK-LABEL: sym_name = "atomic_order"
# CHECK: "tt.atomic_rmw"({{.*}}after_store = "tl.store at line 21: the same parameter, at overlapping offsets"{{.*}}loc("{{.*}}":22:5)
# CHECK: "tt.atomic_rmw"
# CHECK-NOT: after_store
# CHECK-SAME: loc("{{.*}}":23:5)
# CHECK: "tt.atomic_rmw"
# CHECK-NOT: after_store
# CHECK-SAME: loc("{{.*}}":24:5)
# CHECK: "tt.atomic_rmw"
# CHECK-NOT: after_store
# CHECK-SAME: loc("{{.*}}":25:5)
# CHECK: %y = "tt.load"({{.*}}after_atomic = "tl.atomic_add at line 22: the same parameter, at overlapping offsets"
# CHECK: %z = "tt.load"
# CHECK-NOT: after_atomic
# CHECK-SAME: loc("{{.*}}":27:9)
# CHECK: "tt.store"
# CHECK-NOT: after_atomic
# CHECK-SAME: loc("{{.*}}":28:5)

# ASM-LABEL: atomic_order:
# ASM: mtia.dma.out
# ASM: mtia.dma.wait # a store in flight may write what the atomic updates (tl.store at line 21: the same parameter, at overlapping offsets)
# ASM: amoadd.w {{.+}}
# ASM-NOT: mtia.dma.wait
# ASM: amoadd.w {{.+}}
# ASM-NOT: mtia.dma.wait
# ASM: amoadd.w.aq
# ASM-NOT: mtia.dma.wait
# ASM: amoor.w.rl
# ASM-NOT: mtia.dma.in
# ASM: fence # an atomic in flight may update what the load reads (tl.atomic_add at line 22: the same parameter, at overlapping offsets)
# ASM-NOT: fence
# ASM: mtia.dma.in
# ASM-NOT: fence
# ASM: ret
