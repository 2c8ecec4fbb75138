# keep-invariant, periodic loads: a bias `B + offs % N` (N = 256 elements, BLOCK = 64) repeats every
# 256 / gcd(256, 64) = 4 programs, and 4 divides the slot step 64, so every program of a slot reads the same tile:
# the slot's first program loads it (and, when later programs follow, copies it to slot 0 of `%keptinv0`), the
# others read the slot.  The `scf.if` says why (`kept = ...`); its conditions: a one-dimensional launch
# (`nprogs(0) == total`: then pid(0) is the slot loop's program) and not the first program.  The mask `offs < n`
# shrinks as the program grows, so the first program's tile holds every element a later one keeps.
# Not kept: a period that does not divide 64 (N = 96: 3 programs), a run-time N (no constant to prove it with),
# an `other` with a mask that is not periodic, and -O0.
# RUN: mtiacc %s --kernel add_bias --emit=ir -O3 --disable-pass=pipeline-loads -D N=256 -D BLOCK=64 | filecheck %s
# RUN: mtiacc %s --kernel add_bias --emit=ir -O3 --disable-pass=pipeline-loads -D N=96 -D BLOCK=64 | filecheck %s --check-prefix=NOT
# RUN: mtiacc %s --kernel add_bias_n --emit=ir -O3 --disable-pass=pipeline-loads -D BLOCK=64 | filecheck %s --check-prefix=NOT
# RUN: mtiacc %s --kernel add_bias_other --emit=ir -O3 --disable-pass=pipeline-loads -D N=256 -D BLOCK=64 | filecheck %s --check-prefix=NOT
# RUN: mtiacc %s --kernel add_bias --emit=ir -O0 -D N=256 -D BLOCK=64 | filecheck %s --check-prefix=NOT
# The kept tile's guarded read does not end the count of transfers in flight: its loading branch waits for every
# transfer before the join, so the pipelined loop's second copy still waits for all but the next tile (and the first
# copy's store, issued right before it); the first copy's wait leaves the previous trip's last store in flight.
# RUN: mtiacc %s --kernel add_bias --emit=asm -O3 -D N=256 -D BLOCK=64 | filecheck %s --check-prefix=ASM
import triton
import triton.language as tl


@triton.jit
def add_bias(X, B, Y, n, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask)
    b = tl.load(B + offs % N, mask)
    tl.store(Y + offs, x + b, mask)


@triton.jit
def add_bias_n(X, B, Y, n, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask)
    b = tl.load(B + offs % N, mask)
    tl.store(Y + offs, x + b, mask)


@triton.jit
def add_bias_other(X, B, Y, n, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(X + offs, mask)
    b = tl.load(B + offs % N, mask, other=1.0)
    tl.store(Y + offs, x + b)

# CHECK-LABEL: sym_name = "add_bias"
# CHECK: %keptinv0 = "mtia.local_alloc"() : () -> tensor<1x64xf32>
# CHECK: [[NP:%[0-9]+]] = "tt.get_num_programs"() {axis = 0}
# CHECK: %one_d = "arith.cmpi"([[NP]], [[TOTAL:%[0-9]+]]) {predicate = "eq"}
# CHECK: "scf.for"(%slot, [[TOTAL]], {{.*}}) {persistent = 64, keep_invariant = 1
# CHECK: %first = "arith.cmpi"(%program, %slot) {predicate = "eq"}
# CHECK: %later = "arith.cmpi"(%program, %slot) {predicate = "ne"}
# CHECK: %fills = "arith.andi"(%first,
# CHECK: [[ZERO:%[0-9]+]] = "arith.constant"() {value = 0} : () -> i32
# CHECK-NEXT: [[REUSE:%[0-9]+]] = "arith.andi"(%one_d, %later)
# CHECK-NEXT: [[FILL:%[0-9]+]] = "arith.andi"(%one_d, %fills)
# CHECK-NEXT: [[B:%[0-9]+]] = "scf.if"([[REUSE]]) {kept = "address repeats every 4 programs, 4 divides the slot step 64; the mask shrinks as the program grows"} ({
# CHECK-NEXT: %b = "mtia.slot_load"(%keptinv0, [[ZERO]])
# CHECK-NEXT: "scf.yield"(%b)
# CHECK-NEXT: }, {
# CHECK-NEXT: "arith.remsi"
# CHECK-NEXT: "tt.addptr"
# CHECK-NEXT: [[L:%[0-9]+]] = "tt.load"
# CHECK-NEXT: "scf.yield"([[L]])
# CHECK: "scf.if"([[FILL]]) ({
# CHECK-NEXT: "mtia.slot_store"(%keptinv0, [[ZERO]], [[B]])
# CHECK: "tt.store"

# NOT-NOT: %keptinv
# NOT-NOT: kept =
# NOT: "tt.return"

# ASM: mtia.dma.out zero, zero, zero {{.*}}no store yet
# ASM-LABEL: .Lfor
# ASM: mtia.dma.wait 2 {{.*}}loads above complete before their data is read (the transfer issued since and the store before the loop's top stay in flight)
# ASM: this branch's loads complete before the branches join
# ASM: this branch's loads complete before the branches join
# ASM: mtia.dma.wait 2 {{.*}}the prefetched tiles complete before their data is read
# ASM: blt {{.*}}, .Lfor
