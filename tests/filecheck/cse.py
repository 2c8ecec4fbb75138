# -O2 adds common-subexpression elimination: the three identical splats of Y (and the
# duplicated program ids and constants) become one.
# RUN: mtiacc-ir %s -O1 | filecheck %s --check-prefix=O1
# RUN: mtiacc-ir %s -O2 | filecheck %s --check-prefix=O2
# RUN: mtiacc-ir %s -O2 | filecheck %s --check-prefix=O2-LOADS
import triton
import triton.language as tl


@triton.jit
def cse(X, Y, BLOCK: tl.constexpr = 16):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    again = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(Y + offs, tl.load(X + offs))
    tl.store(Y + again, tl.load(X + again) * 2.0)

# O1-COUNT-2: "tt.get_program_id"
# O1-NOT: "tt.get_program_id"

# O2: "tt.get_program_id"
# O2-NOT: "tt.get_program_id"
# O2: %offs = "arith.addi"
# O2-NOT: "arith.addi"
# O2: "tt.splat"(%Y)
# O2-NOT: "tt.splat"(%Y)
# O2: "tt.return"

# Loads are not pure (a store may come between), so both stay.
# O2-LOADS-COUNT-2: "tt.load"
