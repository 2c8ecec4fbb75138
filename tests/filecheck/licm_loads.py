# licm moves a load out of a loop when it reads one address in every iteration, nothing in the loop writes through
# its pointer parameter, and the loop surely runs (a constant trip count >= 1, or persistent-programs' loop over a
# slot's programs): the scale S is read once, before the loop.  A loop of run-time trip count keeps its load (it
# might not run at all), and so does a loop storing through the same parameter (T).
# RUN: mtiacc %s --emit=ir -O2 --kernel=scaled --signature=*fp32,*fp32,*fp32,*fp32,i32 | filecheck %s
# RUN: mtiacc %s --emit=ir -O3 --kernel=seeded --signature=*fp32,*fp32,*i32,i32 --grid=1024 | filecheck %s --check-prefix=SLOT
import triton
import triton.language as tl


@triton.jit
def scaled(X, Y, S, T, n):
    offs = tl.arange(0, 64)
    acc = tl.zeros([64], dtype=tl.float32)
    for i in range(0, 4):
        s = tl.load(S)
        acc += tl.load(X + i * 64 + offs) * s
    for i in range(0, n):
        acc += tl.load(S + 1)
    for i in range(0, 4):
        acc += tl.load(T)
        tl.store(T, tl.sum(acc, axis=0))
    tl.store(Y + offs, acc)

# CHECK-LABEL: "tt.func"
# CHECK: %s = "tt.load"(%S) {access = "scalar"
# CHECK-NOT: "tt.load"(%S)
# CHECK: "scf.for"
# CHECK: "scf.for"(%{{.+}}, %n,
# CHECK: "tt.load"(%{{.+}}) {access = "scalar"
# CHECK: "scf.for"
# CHECK-NEXT: ^bb0
# CHECK-NEXT: "tt.load"(%T)
# CHECK: "tt.store"(%T

@triton.jit
def seeded(X, Y, SEED, n):
    offs = tl.program_id(0) * 256 + tl.arange(0, 256)
    seed = tl.load(SEED)
    tl.store(Y + offs, tl.load(X + offs) + seed)

# SLOT: %seed = "tt.load"(%SEED) {{.*}} -> i32
# SLOT-NOT: "tt.load"(%SEED)
# SLOT: "scf.for"{{.*}}persistent = 64
# SLOT-NOT: "tt.load"(%SEED)
