# pipeline-loads: a loop over column tiles fetches the tile after this one while it computes on this one.
# The loop runs two iterations a trip (`pipeline = 2`); each copy's tiles are fetched by a `prefetch` load
# before it computes; the first tile is loaded before the loop, the odd last iteration runs after it (scf.if).
# The mask `cols < N` of a loop `range(0, N, BLOCK)` reads nothing past the end, so the prefetch reads `off +
# BLOCK` and `off + 2 * BLOCK` as they are, and the first tile needs no guard.  A load of the buffer the loop
# stores to is not moved; -O0 moves nothing; `tl.range(..., num_stages=1)` turns it off.
# RUN: mtiacc %s --kernel row_scale --emit=ir -O2 -D BLOCK=64 --signature '*fp32,*fp32,i32' | filecheck %s
# RUN: mtiacc %s --kernel row_scale --emit=ir -O0 -D BLOCK=64 --signature '*fp32,*fp32,i32' | filecheck %s --check-prefix=O0
# RUN: mtiacc %s --kernel in_place --emit=ir -O2 -D BLOCK=64 --signature '*fp32,i32' | filecheck %s --check-prefix=ALIAS
# RUN: mtiacc %s --kernel one_stage --emit=ir -O2 -D BLOCK=64 --signature '*fp32,*fp32,i32' | filecheck %s --check-prefix=OFF
import triton
import triton.language as tl


@triton.jit
def row_scale(Y, X, N, BLOCK: tl.constexpr):
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0)
        tl.store(Y + cols, x * 3.0, mask=cols < N)


@triton.jit
def in_place(X, N, BLOCK: tl.constexpr):
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0)
        tl.store(X + cols, x * 3.0, mask=cols < N)


@triton.jit
def one_stage(Y, X, N, BLOCK: tl.constexpr):
    for off in tl.range(0, N, BLOCK, num_stages=1):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=0.0)
        tl.store(Y + cols, x * 3.0, mask=cols < N)

# CHECK-LABEL: sym_name = "row_scale"
# CHECK: %[[FIRST:[0-9]+]] = "tt.load"({{.*}}) {access = "contiguous"
# CHECK: "scf.for"(%{{[0-9]+}}, %[[MAINHI:[0-9]+]], %[[TWO:[0-9]+]], %[[FIRST]]) {pipeline = 2
# CHECK-NEXT: ^bb0(%off: i32, %[[A:[0-9]+]]: tensor<64xf32>):
# CHECK-NEXT: %[[NEXT:[0-9]+]] = "arith.addi"(%off, %{{[0-9]+}})
# CHECK-NEXT: %[[AFTER:[0-9]+]] = "arith.addi"(%off, %[[TWO]])
# CHECK-NEXT: "tt.splat"(%[[NEXT]])
# CHECK: %x = "tt.load"({{.*}}) {prefetch = true, access = "contiguous"
# CHECK: "arith.mulf"(%[[A]],
# CHECK: "tt.store"
# CHECK: "tt.splat"(%[[AFTER]])
# CHECK: %[[B:[0-9]+]] = "tt.load"({{.*}}) {prefetch = true, access = "contiguous"
# CHECK: "arith.mulf"(%x,
# CHECK: "tt.store"
# CHECK: "scf.yield"(%[[B]])
# CHECK: "arith.cmpi"(%[[MAINHI]], %N) {predicate = "slt"}
# CHECK-NEXT: "scf.if"
# CHECK: "tt.store"

# O0-LABEL: sym_name = "row_scale"
# O0-NOT: pipeline =
# O0-NOT: prefetch

# ALIAS-LABEL: sym_name = "in_place"
# ALIAS-NOT: pipeline =
# ALIAS-NOT: prefetch

# OFF-LABEL: sym_name = "one_stage"
# OFF-NOT: pipeline =
# OFF-NOT: prefetch
