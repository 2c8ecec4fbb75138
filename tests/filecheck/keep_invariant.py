# keep-invariant: under persistent-programs, the tiles every program of a slot loads alike (the columns of W,
# whatever the row) are moved from DRAM once per slot.  The slot loop gets `keep_invariant = 1`; the column loop
# is versioned: when the row fits the buffer (`N - 0 <= 16 * 64`: the 64 KiB budget, 16 slots of a 4 KiB tile)
# and this is not the slot's first program, a copy of the loop reads the slots (`mtia.slot_load`, no DMA);
# else the loop as written loads W, and the slot's first program, when later programs will read them (`fills`),
# copies the tiles into the slots.  X depends on the program: not kept.  -O0 leaves it alone; a kernel that
# stores through W keeps nothing (ALIAS).
# RUN: mtiacc %s --kernel scale_rows --emit=ir -O3 --disable-pass=pipeline-loads -D BLOCK=1024 | filecheck %s
# RUN: mtiacc %s --kernel scale_rows --emit=ir -O0 -D BLOCK=1024 | filecheck %s --check-prefix=O0
# RUN: mtiacc %s --kernel scale_w --emit=ir -O3 -D BLOCK=1024 | filecheck %s --check-prefix=ALIAS
import triton
import triton.language as tl


@triton.jit
def scale_rows(X, W, Y, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        w = tl.load(W + cols, mask=cols < N)
        x = tl.load(X + row * N + cols, mask=cols < N)
        tl.store(Y + row * N + cols, x * w, mask=cols < N)


@triton.jit
def scale_w(X, W, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        w = tl.load(W + cols, mask=cols < N)
        x = tl.load(X + row * N + cols, mask=cols < N)
        tl.store(W + cols, x * w, mask=cols < N)

# CHECK-LABEL: sym_name = "scale_rows"
# CHECK: %keptinv0 = "mtia.local_alloc"() : () -> tensor<16x1024xf32>
# CHECK: "scf.for"(%slot, {{.*}}) {persistent = 64, keep_invariant = 1
# CHECK-NEXT: ^bb0(%program: i32):
# CHECK: %first = "arith.cmpi"(%program, %slot) {predicate = "eq"}
# CHECK: %later = "arith.cmpi"(%program, %slot) {predicate = "ne"}
# CHECK: [[NEXT:%[0-9]+]] = "arith.addi"(%program,
# CHECK: [[MORE:%[0-9]+]] = "arith.cmpi"([[NEXT]], {{.*}}) {predicate = "slt"}
# CHECK: %fills = "arith.andi"(%first, [[MORE]])
# CHECK: [[SPAN:%[0-9]+]] = "arith.subi"(%N,
# CHECK-NEXT: [[CAP:%[0-9]+]] = "arith.constant"() {value = 16384}
# CHECK-NEXT: [[FITS:%[0-9]+]] = "arith.cmpi"([[SPAN]], [[CAP]]) {predicate = "sle"}
# CHECK-NEXT: [[REUSE:%[0-9]+]] = "arith.andi"([[FITS]], %later)
# CHECK-NEXT: [[FILL:%[0-9]+]] = "arith.andi"([[FITS]], %fills)
# CHECK-NEXT: "scf.if"([[REUSE]]) ({
# CHECK-NEXT: "scf.for"
# CHECK: [[K:%[0-9]+]] = "arith.shrsi"
# CHECK-NEXT: %w = "mtia.slot_load"(%keptinv0, [[K]])
# CHECK: "tt.load"
# CHECK: "tt.store"
# CHECK: }, {
# CHECK-NEXT: "scf.for"
# CHECK: [[W:%[0-9]+]] = "tt.load"
# CHECK: [[K2:%[0-9]+]] = "arith.shrsi"
# CHECK-NEXT: "scf.if"([[FILL]]) ({
# CHECK-NEXT: "mtia.slot_store"(%keptinv0, [[K2]], [[W]])
# CHECK: "tt.store"

# O0-NOT: %keptinv
# O0-NOT: keep_invariant =

# ALIAS-LABEL: sym_name = "scale_w"
# ALIAS-NOT: keep_invariant =
# ALIAS-NOT: %keptinv
# ALIAS: "tt.return"
