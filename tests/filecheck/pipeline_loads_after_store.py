# pipeline-loads fetches a loop's tiles one trip ahead, above the stores of the trip before: it moves no load that
# may read what a store of the loop writes (any store through the same pointer parameter, or one the kernel's
# may_alias groups with it: mtiacc/opt/loops/pipeline_loads.py), whatever the offsets.  Here `prev` reads what the
# trip before stored to Y: it stays in its trip, below that store, and waits for it (`after_store`); `x` reads X,
# which no store of the loop writes, and is fetched a trip ahead (`prefetch = true`).  With `--may-alias X,Y` (a
# launch passing one array for both) `x` may read Y's stores too: nothing moves, and it waits as well.
# tests/codegen/machine/test_store_then_load.py runs both against numpy with the sanitizer on (`carried`).
# (persistent-programs and keep-invariant, which would restructure the loop at -O3, are off.)
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=persistent-programs --disable-pass=keep-invariant -D BLOCK=16 \
# RUN:   -s '*i32,*i32,i32' | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 --disable-pass=persistent-programs --disable-pass=keep-invariant -D BLOCK=16 \
# RUN:   -s '*i32,*i32,i32' --may-alias X,Y | filecheck %s --check-prefix=ALIAS
import triton
import triton.language as tl


@triton.jit
def running(X, Y, T, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for i in range(1, T):
        prev = tl.load(Y + (i - 1) * BLOCK + offs)
        x = tl.load(X + i * BLOCK + offs)
        tl.store(Y + i * BLOCK + offs, prev + x)

# CHECK-LABEL: sym_name = "running"
# CHECK: "scf.for"({{.*}}) {pipeline = 2
# CHECK: %x = "tt.load"({{.*}}prefetch = true{{.*}}:22:13)
# CHECK: %prev = "tt.load"
# CHECK-NOT: prefetch
# CHECK-SAME: after_store = "tl.store at line 23: the same parameter, at offsets an earlier trip of a loop around both stores to"
# CHECK-NOT: prefetch
# CHECK-SAME: :21:16)
# CHECK: "tt.store"({{.*}}:23:9)
# CHECK: "tt.load"({{.*}}prefetch = true{{.*}}:22:13)
# CHECK: "tt.load"
# CHECK-NOT: prefetch
# CHECK-SAME: after_store = "tl.store at line 23: the same parameter, at overlapping offsets"
# CHECK-NOT: prefetch
# CHECK-SAME: :21:16)

# ALIAS-LABEL: sym_name = "running"
# ALIAS-NOT: prefetch
# ALIAS: %prev = "tt.load"({{.*}}after_store = "tl.store at line 23: the same parameter, at offsets an earlier trip of a loop around both stores to"
# ALIAS: %x = "tt.load"({{.*}}after_store = "tl.store at line 23: parameters the launch passes shared memory for (may_alias)"
# ALIAS-NOT: prefetch
# ALIAS-NOT: pipeline = 2
