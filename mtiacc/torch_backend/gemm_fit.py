"""Whether a GEMM template's tile fits a PE's local memory, as the compiler lays the kernel out.

A block count made by hand misses what the compiler does with the template: its K loop is unrolled into as many
pipeline stages as local memory holds (``pipeline-dots``), the next program's first tiles are fetched ahead
(``persistent-programs``), accumulators stay in the matrix engine, so the blocks live at once depend on K and on
the passes, not only on the tile.  The fit rule therefore asks the compiler's local-memory plan
(:mod:`mtiacc.opt.memory.plan`): it runs the IR passes on a kernel of the template's shape for the candidate
(:func:`template_source`: the problem's M, N, K as constants as Inductor writes them, the tile's blocks and
pipeline stages, the dot's operand type and precision of :mod:`.precision`, masked loads when the tile does not
divide the problem, and ``epilogue`` blocks of ``BLOCK_M x BLOCK_N`` loaded and added before the store, as a bias
or a fused added tensor is) for the machine the kernels run on, and the tile fits when the plan's peak is within
the bytes local memory has for blocks.  The plan makes codegen's allocation ahead of it, and for these kernels its
peak is never below what codegen allocates (``tests/opt/test_lmem_plan_agrees.py`` compiles the template at
several tiles and shapes and checks so), so a tile the plan accepts compiles; no instruction is selected here.
The answer is cached per problem and tile in the process: a model's compile checks each distinct GEMM shape's
candidates once (a fraction of a second of host time each, for the candidates tried before the first that fits).
"""
from __future__ import annotations

import functools
import hashlib
import os
import tempfile
from typing import Optional

from mtiacc.diagnostics import CompileError
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


def _source_file(source: str) -> str:
    """A file holding ``source``, named by its digest: the same check compiles the same file, and a kernel that
    compiled is found in the compiler's cache next time (:mod:`mtiacc.runtime.cache`)."""
    folder = os.path.join(tempfile.gettempdir(), "mtiacc-gemm-fit")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, hashlib.sha256(source.encode()).hexdigest()[:24] + ".py")
    if not os.path.exists(path):
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    return path


@functools.lru_cache(maxsize=None)
def fits(tile: Tile, m: int, n: int, k: int, *, dtype: str, epilogue: int = 0, batch: int = 1,
         dot_type: str = "", input_precision: str = "ieee", machine: Optional[str] = None) -> bool:
    """Whether the compiler's local-memory plan finds room in a PE's local memory for every block of the
    template's kernel with ``tile`` (see the module's docstring); ``machine`` a built-in machine's name or YAML
    (None: the chip's).  A candidate the compiler rejects for another reason does not run on the chip either: it
    does not fit."""
    from mtiacc.runtime import load
    t = _TL[dtype]
    source = template_source(tile, m, n, k, dtype=dtype, epilogue=epilogue, batch=batch, dot_type=dot_type,
                             input_precision=input_precision)
    options = {"num_stages": tile.num_stages}
    if machine is not None:
        options["machine"] = machine
    kernel = load(_source_file(source), "gemm_fit", **options)
    try:
        peak, capacity, cuts = kernel.local_memory(",".join([f"*{t}"] * (3 + epilogue)))
    except CompileError:
        return False
    # a tile the local-memory ladder had to cut (bands of its accumulator, a back-off) is not the tile asked for
    return not cuts and peak <= capacity
