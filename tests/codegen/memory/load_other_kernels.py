import triton
import triton.language as tl


@triton.jit
def strided_other(X, O, A: tl.constexpr):
    """A masked strided tile load whose `other` is a computed block (not a splat)."""
    rows = tl.arange(0, A)[:, None]
    cols = tl.arange(0, A)[None, :]
    lin = rows * A + cols
    x = tl.load(X + rows * (3 * A) + cols * 3, mask=lin <= 31, other=(lin > 3).to(X.dtype.element_ty) + 1)
    tl.store(O + lin, x)


@triton.jit
def bool_other(X, O, A: tl.constexpr):
    """A masked load of bools (bytes compared with zero) with `other` a computed bool block."""
    rows = tl.arange(0, A)[:, None]
    cols = tl.arange(0, A)[None, :]
    lin = rows * A + cols
    x = tl.load(X + rows * (3 * A) + cols * 3, mask=lin <= 31, other=lin > 40)
    tl.store(O + lin, x)
