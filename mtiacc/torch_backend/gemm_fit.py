"""Whether a GEMM template's tile fits a PE's local memory, as the compiler lays the kernel out.

A block count made by hand misses what the compiler does with the template: a K loop of constant trip count is
unrolled (``loop-unroll``), its loads are fetched ahead and its accumulators are kept, so the blocks live at once
depend on K and on the passes, not only on the tile.  The fit rule therefore asks the compiler: it compiles a
kernel of the template's shape for the candidate (:func:`template_source`: the problem's M, N, K as constants as
Inductor writes them, the tile's blocks and pipeline stages, the dot's operand type and precision of
:mod:`.precision`, masked loads when the tile does not divide the problem, and ``epilogue`` blocks of
``BLOCK_M x BLOCK_N`` loaded and added before the store, as a bias or a fused added tensor is) for the machine
the kernels run on, through codegen's allocation of local memory, and the tile fits when no block is left
without room (:class:`mtiacc.codegen.vector.lmem.LocalMemoryFull`).  The answer is cached per problem and tile:
a model compiles each distinct GEMM shape's check once (about a second of host time per candidate tried).
"""
from __future__ import annotations

import functools
import os
import tempfile
from typing import Optional

from mtiacc.torch_backend.gemm_search import Tile

_TL = {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "int8": "i8"}


def template_source(tile: Tile, m: int, n: int, k: int, *, dtype: str, epilogue: int, batch: int = 1,
                    dot_type: str = "", input_precision: str = "ieee") -> str:
    """The Triton source of a GEMM kernel with the template's blocks for ``tile`` (``dtype`` an element type as
    torch names it: ``float16``, ``bfloat16``, ``float32``, ``int8``)."""
    int8 = dtype == "int8"
    acc = "tl.int32" if int8 else "tl.float32"
    dot_type = dot_type or f"tl.{dtype}"
    even_m, even_n, even_k = m % tile.block_m == 0, n % tile.block_n == 0, k % tile.block_k == 0
    extra = "".join(f", E{i}" for i in range(epilogue))
    a_mask = "" if even_k else ", mask=(k_idx * BLOCK_K + rk)[None, :] < K, other=0"
    b_mask = "" if even_k else ", mask=(k_idx * BLOCK_K + rk)[:, None] < K, other=0"
    out_mask = "" if even_m and even_n else ", mask=mask"
    lines = [
        "import triton",
        "import triton.language as tl",
        "",
        "",
        "@triton.jit",
        f"def gemm_fit(A, B, C{extra}):",
        f"    M: tl.constexpr = {m}",
        f"    N: tl.constexpr = {n}",
        f"    K: tl.constexpr = {k}",
        f"    BLOCK_M: tl.constexpr = {tile.block_m}",
        f"    BLOCK_N: tl.constexpr = {tile.block_n}",
        f"    BLOCK_K: tl.constexpr = {tile.block_k}",
        "    pid = tl.program_id(0)",
        "    batch = tl.program_id(1)",
        "    grid_n = tl.cdiv(N, BLOCK_N)",
        "    pid_m = pid // grid_n",
        "    pid_n = pid % grid_n",
        "    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)",
        "    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)",
        "    rk = tl.arange(0, BLOCK_K)",
        "    am = rm % M",
        "    bn = rn % N",
        "    A = A + batch * (M * K)",
        "    B = B + batch * (K * N)",
        f"    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype={acc})",
        "    for k_idx in range(0, tl.cdiv(K, BLOCK_K)):",
        f"        a = tl.load(A + am[:, None] * K + (k_idx * BLOCK_K + rk)[None, :]{a_mask})",
        f"        b = tl.load(B + (k_idx * BLOCK_K + rk)[:, None] * N + bn[None, :]{b_mask})",
        f"        acc += tl.dot(a.to({dot_type}), b.to({dot_type}), input_precision={input_precision!r}, "
        f"out_dtype={acc})",
        "    mask = (rm[:, None] < M) & (rn[None, :] < N)",
        "    idx = batch * (M * N) + rm[:, None] * N + rn[None, :]",
    ]
    for i in range(epilogue):
        lines.append(f"    acc = acc + tl.load(E{i} + idx{out_mask}).to({acc})")
    lines.append(f"    tl.store(C + idx, acc.to(C.dtype.element_ty){out_mask})")
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=None)
def fits(tile: Tile, m: int, n: int, k: int, *, dtype: str, epilogue: int = 0, batch: int = 1,
         dot_type: str = "", input_precision: str = "ieee", machine: Optional[str] = None) -> bool:
    """Whether the compiler finds room in a PE's local memory for every block of the template's kernel with
    ``tile`` (see the module's docstring); ``machine`` a built-in machine's name or YAML (None: the chip's)."""
    from mtiacc.codegen.vector.lmem import LocalMemoryFull
    from mtiacc.driver import Options, compile_kernel
    t = _TL[dtype]
    signature = ",".join([f"*{t}", f"*{t}", f"*{t}"] + [f"*{t}"] * epilogue)
    source = template_source(tile, m, n, k, dtype=dtype, epilogue=epilogue, batch=batch, dot_type=dot_type,
                             input_precision=input_precision)
    with tempfile.TemporaryDirectory(prefix="mtiacc-gemm-fit-") as d:
        path = os.path.join(d, "gemm_fit.py")
        with open(path, "w") as f:
            f.write(source)
        opts = Options(signature=signature, target=machine, num_stages=tile.num_stages)
        try:
            compile_kernel(path, opts, stop_after="asm")
        except LocalMemoryFull:
            return False
    return True
