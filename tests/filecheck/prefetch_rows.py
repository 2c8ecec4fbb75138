# prefetch-rows: the row reuse-loads keeps is fetched whole, one program of the slot ahead, into the half of the
# kept buffer that the previous program does not use; the row the last loop stores goes back in one transfer too,
# from the same slots, at the start of the next program, before it waits for its own row (the slot's last program
# stores as written).
# RUN: mtiacc %s --emit=ir -O3 -D BLOCK=256 --kernel center_rows | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 -D BLOCK=256 --kernel center_then_reread | filecheck %s --check-prefix=REREAD
# RUN: mtiacc %s --emit=asm -O3 -D BLOCK=256 --kernel center_rows | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def center_rows(X, Y, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * N
    Y += row * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    mean = tl.sum(acc, axis=0) / N
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.)
        tl.store(Y + cols, x - mean, mask=cols < N)


@triton.jit
def center_then_reread(X, Y, N, BLOCK: tl.constexpr):
    # the stores are not the last reader of the row: they stay tt.store, only the fetch moves
    row = tl.program_id(0)
    X += row * N
    Y += row * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    mean = tl.sum(acc, axis=0) / N
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.)
        tl.store(Y + cols, x - mean, mask=cols < N)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.)
        tl.store(Y + cols, x * mean, mask=cols < N)

# A row now takes half the buffer (64 of its 128 slots of 256 floats):
# CHECK: %kept0 = "mtia.local_alloc"() : () -> tensor<128x256xf32>
# CHECK: [[HALFCAP:%[0-9]+]] = "arith.constant"() {value = 16384} : () -> i32
# CHECK-NEXT: [[FITS:%[0-9]+]] = "arith.cmpi"({{%[0-9]+}}, [[HALFCAP]]) {predicate = "sle"}
# The slot's first row, before the loop, in one transfer into half 0 (the rest of its last tile: other, 0.0):
# CHECK: [[COUNT:%[0-9]+]] = "arith.subi"(%N,
# CHECK: [[ZERO:%[0-9]+]] = "arith.constant"() {value = 0.0} : () -> f32
# CHECK: "scf.if"
# CHECK: "mtia.slot_fetch"(%kept0, {{%[0-9]+}}, {{%[0-9]+}}, [[COUNT]], [[ZERO]])
# CHECK: "scf.for"(%slot, {{%[0-9]+}}, {{%[0-9]+}}) {persistent = 64, flush_rows = 1, prefetch_rows = 64
# CHECK: %half = "arith.muli"
# CHECK-NEXT: [[OTHER:%[0-9]+]] = "arith.constant"() {value = 64}
# CHECK-NEXT: [[OTHERHALF:%[0-9]+]] = "arith.subi"([[OTHER]], %half)
# the previous program's row goes first, and stays in flight while the program waits for its own row
# CHECK: [[PREV:%[0-9]+]] = "arith.subi"(%program,
# CHECK: [[YPREV:%[0-9]+]] = "tt.addptr"(%Y,
# CHECK-NEXT: "mtia.slot_flush"(%kept0, [[OTHERHALF]], [[YPREV]], [[COUNT]])
# CHECK-NEXT: "mtia.slot_wait"() {behind = 1}
# CHECK-NEXT: "scf.yield"
# CHECK-NEXT: }, {
# CHECK-NEXT: "mtia.slot_wait"() :
# CHECK-NEXT: "scf.yield"
# CHECK: [[NEXT:%[0-9]+]] = "arith.addi"(%program,
# CHECK-NEXT: [[MORE:%[0-9]+]] = "arith.cmpi"([[NEXT]],
# CHECK: [[XNEXT:%[0-9]+]] = "tt.addptr"(%X,
# CHECK-NEXT: "mtia.slot_fetch"(%kept0, [[OTHERHALF]], [[XNEXT]], [[COUNT]], [[ZERO]])
# CHECK: [[AHEAD:%[0-9]+]] = "arith.andi"([[FITS]], [[MORE]])
# The first loop reads this program's half when the row fits, and loads tile by tile when it does not:
# CHECK: "scf.if"([[FITS]]) ({
# CHECK: "mtia.slot_load"(%kept0,
# CHECK: }, {
# CHECK: "tt.load"
# A program with a successor writes each result tile of the last loop into the slot it was read from; the
# slot's last program stores as written:
# CHECK: "scf.if"([[AHEAD]]) ({
# CHECK: "mtia.slot_load"(%kept0,
# CHECK: "mtia.slot_store"(%kept0,
# CHECK: }, {
# CHECK: "tt.store"
# CHECK-NOT: mtia.slot_flush
# CHECK: "tt.return"

# REREAD: "scf.for"(%slot, {{%[0-9]+}}, {{%[0-9]+}}) {persistent = 64, prefetch_rows = 64
# REREAD-NOT: mtia.slot_flush
# REREAD: "tt.store"
# REREAD-NOT: mtia.slot_flush

# The fetch and the flush are one DMA transfer each; the program waits once, at its start, for its row and for
# everything issued before it (the previous program's stores too: no wait at the end of an iteration), the flush
# in flight:
# ASM: mtia.dma.out {{.*}}# mtia.slot_flush: the row in one transfer
# ASM-NEXT: mtia.dma.wait 1{{.*}}# mtia.slot_wait
# ASM: mtia.dma.wait{{.*}}# mtia.slot_wait
# ASM: mtia.dma.in {{.*}}# mtia.slot_fetch: the row in one transfer
# ASM-NOT: this iteration's stores complete before the next
# ASM: stores complete before the program ends
