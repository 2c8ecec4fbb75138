# reuse-loads: the row that layer norm's loops load again is moved from DRAM once.  With the row length
# a constexpr the trip count is known: the buffer has that many slots and no check runs; the store of
# `Mean` between the loops is through another argument, so a run-time check that its bytes are not the
# row's, and one for the store of `Y` in the reading loop, guard that loop (`scf.if`).
# At -O0 the pass does not run.  (pipeline-loads, which runs next, is off: it has its own test.)
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=pipeline-loads -D BLOCK=64 -D N=2000 | filecheck %s
# RUN: mtiacc %s --emit=ir -O0 -D BLOCK=64 -D N=2000 | filecheck %s --check-prefix=O0
import triton
import triton.language as tl


@triton.jit
def norm(X, Y, Mean, N: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    X += row * N
    Y += row * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(X + cols, mask=cols < N, other=0.)
    mean = tl.sum(acc, axis=0) / N
    tl.store(Mean + row, mean)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.)
        tl.store(Y + cols, x - mean, mask=cols < N)

# CHECK-LABEL: sym_name = "norm"
# CHECK: %kept0 = "mtia.local_alloc"() : () -> tensor<32x64xf32>
# CHECK: "scf.for"
# CHECK: [[X:%[^ ]+]] = "tt.load"
# CHECK: [[SLOT:%[0-9]+]] = "arith.shrsi"
# CHECK-NEXT: "mtia.slot_store"(%kept0, [[SLOT]], [[X]])
# CHECK: "tt.store"({{.*}}) {access = "scalar"
# CHECK: "tt.ptr_to_int"
# CHECK: "arith.ori"
# CHECK: [[OK:%[0-9]+]] = "arith.andi"
# CHECK: "scf.for"
# CHECK: [[SLOT2:%[0-9]+]] = "arith.shrsi"
# CHECK-NEXT: "scf.if"([[OK]]) ({
# CHECK-NEXT: "mtia.slot_load"(%kept0, [[SLOT2]])
# CHECK: }, {
# CHECK-NEXT: "tt.load"
# CHECK: "tt.store"({{.*}}) {access = "contiguous"

# O0-NOT: mtia.
