# Dead code: pure ops whose results are unused are removed at -O1 (chains too), kept at -O0.
# Stores are never removed.
# RUN: mtiacc-ir %s -O0 | filecheck %s --check-prefix=O0
# RUN: mtiacc-ir %s -O1 | filecheck %s --check-prefix=O1
# RUN: mtiacc-ir %s --passes=dce | filecheck %s --check-prefix=O1
import triton
import triton.language as tl


@triton.jit
def dce(X, Y, N):
    pid = tl.program_id(0)
    unused = (pid * N + 3) // 2
    nprogs = tl.num_programs(0)
    offs = tl.arange(0, 32)
    tl.store(Y + offs, tl.load(X + offs))

# O0: "tt.get_program_id"
# O0: "arith.muli"
# O0: "arith.addi"
# O0: "arith.divsi"
# O0: "tt.get_num_programs"
# O0: "tt.store"

# O1-NOT: "tt.get_program_id"
# O1-NOT: "arith.muli"
# O1-NOT: "arith.divsi"
# O1-NOT: "tt.get_num_programs"
# O1: "tt.make_range"
# O1: "tt.load"
# O1: "tt.store"
