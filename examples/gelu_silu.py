"""Fused activations: exact GELU (erf form) or SiLU, one block of elements per program.

    mkdir -p build
    mtiacc examples/gelu_silu.py -D ACTIVATION=0 -D BLOCK_SIZE=256 --grid 'cdiv(N, BLOCK_SIZE)' -o build/gelu_silu.bin
    python examples/inputs.py gelu_silu build/gelu_silu.npz   # small seeded inputs
    mtiasim run build/gelu_silu.bin --inputs build/gelu_silu.npz -o build/gelu_silu.out.npz
    python examples/inputs.py gelu_silu --check build/gelu_silu.npz build/gelu_silu.out.npz   # against numpy
"""
import triton
import triton.language as tl


@triton.jit
def gelu_silu_kernel(X, Y, N, ACTIVATION: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    x = tl.load(X + offsets, mask=mask, other=0.0)
    if ACTIVATION == 0:    # GELU: x * (1 + erf(x / sqrt(2))) / 2
        y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    else:                  # SiLU: x * sigmoid(x)
        y = x * tl.sigmoid(x)
    tl.store(Y + offsets, y, mask=mask)
