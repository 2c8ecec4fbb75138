# pipeline-loads on a row loop the programs share, its step tl.num_programs(0) (known only at launch, and
# positive): program p takes rows p, p + P, p + 2P, ..., one row a trip, loaded, reduced, stored.  At the default
# level the row after this one is fetched while this one computes: the first row is loaded before the loop under
# `scf.if p < n_rows`; the pairs end at p + (ceil((n_rows - p) / P) // 2) * 2P, computed before the loop; the
# loop steps 2P; its first prefetch reads row r + P (inside the pairs), the second row r + 2P, clamped to r and
# guarded by r + 2P < n_rows (the mask says nothing of rows); the odd last row runs after the loop.  A plain
# `range` loop takes the config's num_stages: 2 by default, and a config with num_stages=1 turns it off; so does
# tl.range(..., num_stages=1).  The GPU-only hints (warp_specialize, flatten, ...) change nothing.
# RUN: mtiacc %s --kernel rows --emit=ir -D BLOCK=64 -D STAGES=2 --signature '*fp32,*fp32,i32,i32,i32' | filecheck %s
# RUN: mtiacc %s --kernel rows --emit=ir -D BLOCK=64 -D STAGES=1 --signature '*fp32,*fp32,i32,i32,i32' | filecheck %s --check-prefix=OFF
# RUN: mtiacc %s --kernel rows --emit=ir -O0 -D BLOCK=64 -D STAGES=2 --signature '*fp32,*fp32,i32,i32,i32' | filecheck %s --check-prefix=OFF
# RUN: mtiacc %s --kernel plain_rows --emit=ir -D BLOCK=64 --signature '*fp32,*fp32,i32,i32,i32' | filecheck %s --check-prefix=PLAIN
# RUN: mtiacc %s --kernel one_stage_config --emit=ir -D BLOCK=64 --signature '*fp32,*fp32,i32,i32,i32' | filecheck %s --check-prefix=OFF
import triton
import triton.language as tl


@triton.jit
def rows(Y, X, stride, n_rows, n_cols, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    first = tl.program_id(0)
    for r in tl.range(first, n_rows, tl.num_programs(0), num_stages=STAGES, warp_specialize=True, flatten=False,
                      loop_unroll_factor=1, disallow_acc_multi_buffer=True):
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + r * stride + cols, mask=cols < n_cols, other=float("-inf"))
        tl.store(Y + r * stride + cols, x - tl.max(x, axis=0), mask=cols < n_cols)


@triton.jit
def plain_rows(Y, X, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    for r in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + r * stride + cols, mask=cols < n_cols, other=0.0)
        tl.store(Y + r * stride + cols, x * 2.0, mask=cols < n_cols)


@triton.autotune(configs=[triton.Config({}, num_stages=1)], key=["n_cols"])
@triton.jit
def one_stage_config(Y, X, stride, n_rows, n_cols, BLOCK: tl.constexpr):
    for r in range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(X + r * stride + cols, mask=cols < n_cols, other=0.0)
        tl.store(Y + r * stride + cols, x * 2.0, mask=cols < n_cols)

# CHECK-LABEL: sym_name = "rows"
# CHECK: %[[FIRST:[0-9a-z_]+]] = "tt.get_program_id"() {axis = 0}
# CHECK-NEXT: %[[P:[0-9]+]] = "tt.get_num_programs"() {axis = 0}
# CHECK: %[[RUNS:[0-9]+]] = "arith.cmpi"(%[[FIRST]], %n_rows) {predicate = "slt"}
# CHECK-NEXT: %[[ROW0:[0-9]+]] = "scf.if"(%[[RUNS]])
# CHECK: "tt.load"
# CHECK: %[[SPAN:[0-9]+]] = "arith.subi"(%n_rows, %[[FIRST]])
# CHECK: %[[COUNT:[0-9]+]] = "arith.divsi"(%{{[0-9]+}}, %[[P]])
# CHECK: %[[PAIRS:[0-9]+]] = "arith.divsi"(%[[COUNT]], %{{[0-9]+}})
# CHECK-NEXT: %[[TWO:[0-9]+]] = "arith.addi"(%[[P]], %[[P]])
# CHECK-NEXT: %[[LEN:[0-9]+]] = "arith.muli"(%[[PAIRS]], %[[TWO]])
# CHECK-NEXT: %[[HI:[0-9]+]] = "arith.addi"(%[[FIRST]], %[[LEN]])
# CHECK-NEXT: %[[OUT:[0-9]+]] = "scf.for"(%[[FIRST]], %[[HI]], %[[TWO]], %[[ROW0]]) {num_stages = 2, pipeline = 2
# CHECK-NEXT: ^bb0(%r: i32, %[[A:[0-9]+]]: tensor<64xf32>):
# CHECK-NEXT: %[[NEXT:[0-9]+]] = "arith.addi"(%r, %[[P]])
# CHECK-NEXT: %[[AFTER:[0-9]+]] = "arith.addi"(%r, %[[TWO]])
# CHECK: %x = "tt.load"({{.*}}) {prefetch = true, access = "contiguous", operandSegmentSizes = [1, 1, 1]}
# CHECK: "tt.reduce"(%[[A]]) {axis = 0, kind = "max"}
# CHECK: "tt.store"
# CHECK: %[[MORE:[0-9]+]] = "arith.cmpi"(%[[AFTER]], %n_rows) {predicate = "slt"}
# CHECK-NEXT: "arith.select"(%[[MORE]], %[[AFTER]], %r)
# CHECK: %[[B:[0-9]+]] = "tt.load"(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[MORE]]) {prefetch = true
# CHECK: "tt.reduce"(%x) {axis = 0, kind = "max"}
# CHECK: "tt.store"
# CHECK: "scf.yield"(%[[B]])
# CHECK: %[[ODD:[0-9]+]] = "arith.cmpi"(%[[HI]], %n_rows) {predicate = "slt"}
# CHECK-NEXT: "scf.if"(%[[ODD]])
# CHECK: "tt.reduce"(%[[OUT]])
# CHECK: "tt.store"

# OFF-NOT: pipeline =
# OFF-NOT: prefetch

# PLAIN-LABEL: sym_name = "plain_rows"
# PLAIN: "scf.for"({{.*}}) {pipeline = 2
# PLAIN: "tt.load"({{.*}}) {prefetch = true
# PLAIN: "tt.load"({{.*}}) {prefetch = true
