"""A divergent kernel for the trace tests: program p sums p % 4 + 1 blocks of X, so the programs of a wave run
different trip counts (the timing model's per-program array path)."""
import triton
import triton.language as tl


@triton.jit
def ragged_sum(X, Y, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(pid % 4 + 1):
        offs = i * BLOCK + tl.arange(0, BLOCK)
        acc = acc + tl.load(X + offs) * 2.0
    tl.store(Y + pid * BLOCK + tl.arange(0, BLOCK), acc)
