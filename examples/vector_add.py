"""Element-wise sum of two float vectors: C[i] = A[i] + B[i].

Each program instance handles one BLOCK_SIZE-wide slice of the vectors; the mask keeps the
last, partial slice from touching memory past the end (N need not be a multiple of BLOCK_SIZE).

    mkdir -p build
    mtiacc examples/vector_add.py -D BLOCK_SIZE=256 --grid 'cdiv(N, BLOCK_SIZE)' -o build/add.bin
    python examples/vector_add_inputs.py build/data.npz          # A = 1..N, B = N..1, C = 0, N = 1024
    mtiasim run build/add.bin --inputs build/data.npz -o build/out.npz --stats
    python examples/vector_add_inputs.py --check build/out.npz   # C must be N + 1 everywhere
    mtiasim profile build/add.bin --inputs build/data.npz        # cycles per source line and per instruction
"""
import triton
import triton.language as tl


@triton.jit
def add_kernel(A_ptr, B_ptr, C_ptr, N, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < N
    a = tl.load(A_ptr + offsets, mask=mask)
    b = tl.load(B_ptr + offsets, mask=mask)
    tl.store(C_ptr + offsets, a + b, mask=mask)
