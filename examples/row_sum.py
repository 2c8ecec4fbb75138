"""Row sums of an M x N matrix: one program per row, looping over the columns in chunks of BLOCK.

    mkdir -p build
    mtiacc examples/row_sum.py -o build/row_sum.bin --signature '*fp32,*fp32,i32,i32' --grid M
    python examples/inputs.py row_sum build/row_sum.npz   # small seeded inputs
    mtiasim run build/row_sum.bin --inputs build/row_sum.npz -o build/row_sum.out.npz
    python examples/inputs.py row_sum --check build/row_sum.npz build/row_sum.out.npz   # against numpy
"""
import triton
import triton.language as tl


@triton.jit
def row_sum(X, Y, M, N, BLOCK: tl.constexpr = 64):
    row = tl.program_id(0)
    if row >= M:
        return
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, N, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(X + row * N + cols, mask=cols < N, other=0.0)
    total = tl.sum(acc, axis=0)
    one = tl.arange(0, 1)  # stores go through blocks: a block of one element
    tl.store(Y + row + one, tl.full([1], total, tl.float32))
