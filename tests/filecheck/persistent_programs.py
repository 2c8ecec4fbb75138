# persistent-programs: a kernel whose body loads tiles runs the programs of its slot in one loop
# (`persistent = 64`, the target's PE count), which pipeline-loads then pipelines: the next program's tiles
# are fetched (`prefetch = true`) while this one computes.  The loop runs at least once (a launch starts only
# programs that exist), so the first tiles are loaded before it with no guard.  `tl.program_id(0)` becomes `program % nprogs(0)`,
# axis 1 `program / nprogs(0) % nprogs(1)`.  Kernels with atomics, or with nothing to fetch ahead (a load
# of the buffer the program stores to), keep one program per launch slot; -O0 leaves it alone.
# RUN: mtiacc %s --kernel add2d --emit=ir -O3 -D BLOCK=64 --signature '*fp32,*fp32,i32' | filecheck %s
# RUN: mtiacc %s --kernel add2d --emit=ir -O0 -D BLOCK=64 --signature '*fp32,*fp32,i32' | filecheck %s --check-prefix=O0
# RUN: mtiacc %s --kernel in_place --emit=ir -O3 -D BLOCK=64 --signature '*fp32,i32' | filecheck %s --check-prefix=ALIAS
# RUN: mtiacc %s --kernel counted --emit=ir -O3 -D BLOCK=64 --signature '*fp32,*fp32,*i32,i32' | filecheck %s --check-prefix=ATOMIC
import triton
import triton.language as tl


@triton.jit
def add2d(Y, X, N, BLOCK: tl.constexpr):
    row = tl.program_id(1)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + row * N + cols, mask=cols < N, other=0.0)
    tl.store(Y + row * N + cols, x + 1.0, mask=cols < N)


@triton.jit
def in_place(X, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N, other=0.0)
    tl.store(X + cols, x * 3.0, mask=cols < N)


@triton.jit
def counted(Y, X, C, N, BLOCK: tl.constexpr):
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(X + cols, mask=cols < N, other=0.0)
    tl.store(Y + cols, x * 3.0, mask=cols < N)
    tl.atomic_add(C, 1)

# CHECK-LABEL: sym_name = "add2d"
# CHECK: %[[N0:[0-9]+]] = "tt.get_num_programs"() {axis = 0}
# CHECK: %[[N1:[0-9]+]] = "tt.get_num_programs"() {axis = 1}
# CHECK: %[[NXY:[0-9]+]] = "arith.muli"(%[[N0]], %[[N1]])
# CHECK-NEXT: %[[TOTAL:[0-9]+]] = "arith.muli"(%[[NXY]],
# CHECK: %slot = "arith.addi"
# CHECK: %[[SLOTS:[0-9]+]] = "arith.constant"() {value = 64}
# CHECK-NOT: "scf.if"
# CHECK: %[[FIRST:[0-9]+]] = "tt.load"({{.*}}) {access = "contiguous"
# CHECK: "scf.for"(%slot, %{{[0-9]+}}, %{{[0-9]+}}, %[[FIRST]]) {persistent = 64, pipeline = 2
# CHECK-NEXT: ^bb0(%program: i32,
# CHECK: "arith.addi"(%program, %[[SLOTS]])
# CHECK: "arith.cmpi"(%{{[0-9]+}}, %[[TOTAL]]) {predicate = "slt"}
# CHECK-DAG: "arith.remsi"(%{{[0-9]+}}, %[[N0]])
# CHECK-DAG: %[[Q:[0-9]+]] = "arith.divsi"(%{{[0-9]+}}, %[[N0]])
# CHECK-DAG: "arith.remsi"(%[[Q]], %[[N1]])
# CHECK: %x = "tt.load"({{.*}}) {prefetch = true
# CHECK: "tt.store"
# CHECK-NOT: "tt.get_program_id"
# CHECK: "tt.return"

# O0-LABEL: sym_name = "add2d"
# O0-NOT: persistent =
# O0: "tt.get_program_id"() {axis = 1}
# O0-NOT: persistent =

# ALIAS-LABEL: sym_name = "in_place"
# ALIAS-NOT: persistent =
# ALIAS-NOT: "scf.for"
# ALIAS: "tt.return"

# ATOMIC-LABEL: sym_name = "counted"
# ATOMIC-NOT: persistent =
# ATOMIC: "tt.atomic_rmw"

