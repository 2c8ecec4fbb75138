"""Softmax of one row per program in three loops over BLOCK columns (max, sum, write): rows of any length
with one block size, as Triton's online-softmax tutorials loop.  Used by benchmarks/bench_roofline.py and
tests/opt/test_pipeline_loads.py."""
import triton
import triton.language as tl


@triton.jit
def softmax_looped(Y, X, stride, N, BLOCK: tl.constexpr):
    """Softmax of one row per program, in three loops over BLOCK columns (max, sum, write)."""
    row = tl.program_id(0)
    X += row * stride
    Y += row * stride
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        m = tl.maximum(m, tl.load(X + cols, mask=cols < N, other=-float("inf")))
    mx = tl.max(m, axis=0)
    s = tl.zeros([BLOCK], tl.float32)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        s += tl.exp(tl.load(X + cols, mask=cols < N, other=-float("inf")) - mx)
    total = tl.sum(s, axis=0)
    for off in range(0, N, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(X + cols, mask=cols < N, other=-float("inf"))
        tl.store(Y + cols, tl.exp(x - mx) / total, mask=cols < N)
